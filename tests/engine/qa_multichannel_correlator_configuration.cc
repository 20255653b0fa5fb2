/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator: sample formats by name, and every bad configuration or
// channel refused with a message naming its field.

#include "qa_multichannel_correlator.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;

using multichannel_correlator_qa::make_config;

template <typename F>
void expect_invalid(F f, const std::string& needle)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        if (what.find(needle) == std::string::npos)
            CPPUNIT_FAIL("message lacks \"" + needle + "\": " + what);
        return;
    }
    CPPUNIT_FAIL("no std::invalid_argument (expected one naming \"" + needle + "\")");
}

} // namespace

void qa_multichannel_correlator::formats_and_names()
{
    CPPUNIT_ASSERT(parse_gnss_sample_format("ci16") == gnss_sample_format::ci16);
    CPPUNIT_ASSERT(parse_gnss_sample_format("ci8") == gnss_sample_format::ci8);
    CPPUNIT_ASSERT(parse_gnss_sample_format("cf32") == gnss_sample_format::cf32);
    CPPUNIT_ASSERT_EQUAL(std::string("ci8"), to_string(gnss_sample_format::ci8));
    CPPUNIT_ASSERT_EQUAL(std::size_t(4), bytes_per_sample(gnss_sample_format::ci16));
    CPPUNIT_ASSERT_EQUAL(std::size_t(8), bytes_per_sample(gnss_sample_format::cf32));
    expect_invalid([] { parse_gnss_sample_format("sc16"); }, "input_format");
}

void qa_multichannel_correlator::bad_configuration_names_the_field()
{
    auto config = make_config("cpu", 4e6);
    auto engine_with = [](multichannel_correlator_config c) {
        return [c] { multichannel_correlator::make(c); };
    };
    auto c1 = config;
    c1.sample_rate_hz = 0;
    expect_invalid(engine_with(c1), "sample_rate_hz");
    c1 = config;
    c1.taps = 0;
    expect_invalid(engine_with(c1), "taps");
    c1 = config;
    c1.max_channels = 0;
    expect_invalid(engine_with(c1), "max_channels");
    c1 = config;
    c1.device = "gpu";
    expect_invalid(engine_with(c1), "device");

    config.max_channels = 2;
    auto engine = multichannel_correlator::make(config);
    const gnss_channel good = [] {
        gnss_channel c;
        c.id = 7;
        c.code = gps_l1ca_code(1);
        c.carrier_frequency_hz = 1000.0;
        return c;
    }();
    auto add_with = [&](auto change) {
        gnss_channel c = good;
        change(c);
        return [&engine, c] { engine->add_channel(c); };
    };
    expect_invalid(add_with([](gnss_channel& c) { c.code.clear(); }), "code");
    expect_invalid(add_with([](gnss_channel& c) { c.code[5] = 0; }), "entry 5");
    expect_invalid(add_with([](gnss_channel& c) { c.code_entries_per_chip = 2; }),
                   "code_entries_per_chip");
    expect_invalid(add_with([](gnss_channel& c) { c.periods_per_integration = 0; }),
                   "periods_per_integration");
    expect_invalid(add_with([](gnss_channel& c) { c.code_rate_cps = -1; }),
                   "code_rate_cps");
    expect_invalid(add_with([](gnss_channel& c) { c.code_rate_cps = 2e6; }),
                   "code_rate_cps"); // tracking: beyond 50 % of nominal
    expect_invalid(add_with([](gnss_channel& c) { c.code_phase_chips = 1023; }),
                   "code_phase_chips");
    expect_invalid(add_with([](gnss_channel& c) { c.carrier_frequency_hz = 2e6; }),
                   "carrier_frequency_hz");
    expect_invalid(add_with([](gnss_channel& c) { c.intermediate_frequency_hz = NAN; }),
                   "intermediate_frequency_hz");
    expect_invalid(add_with([](gnss_channel& c) { c.carrier_phase_rad = INFINITY; }),
                   "carrier_phase_rad");
    expect_invalid(add_with([](gnss_channel& c) { c.tap_offsets_chips = { 0.0 }; }),
                   "tap_offsets_chips");
    expect_invalid(add_with([](gnss_channel& c) {
                       c.tap_offsets_chips = { -2000, 0, 0.5 };
                   }),
                   "tap_offsets_chips[0]");
    expect_invalid(add_with([](gnss_channel& c) { c.prompt_tap = 3; }), "prompt_tap");
    expect_invalid(add_with([](gnss_channel& c) { c.early_tap = 2; }), "early");
    expect_invalid(add_with([](gnss_channel& c) {
                       c.code = boc11_expand(c.code);
                       c.code_entries_per_chip = 2;
                   }),
                   "spacing"); // +-0.5 chip is past a BOC(1,1) peak
    expect_invalid(add_with([](gnss_channel& c) { c.loop.pll_order = 1; }),
                   "loop.pll_order");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.pll_bandwidth_hz = 0; }),
                   "loop.pll_bandwidth_hz");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.fll_bandwidth_hz = -1; }),
                   "loop.fll_bandwidth_hz");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.dll_order = 3; }),
                   "loop.dll_order");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.dll_bandwidth_hz = NAN; }),
                   "loop.dll_bandwidth_hz");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.cn0_epochs = 1; }),
                   "loop.cn0_epochs");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.carrier_lock_threshold = 1; }),
                   "loop.carrier_lock_threshold");
    expect_invalid(add_with([](gnss_channel& c) { c.loop.nominal_code_rate_cps = 0; }),
                   "loop.nominal_code_rate_cps");
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), engine->channel_count());

    engine->add_channel(good);
    expect_invalid([&] { engine->add_channel(good); }, "id");
    gnss_channel other = good;
    other.id = 8;
    engine->add_channel(other);
    other.id = 9;
    expect_invalid([&] { engine->add_channel(other); }, "max_channels");
    expect_invalid([&] { engine->remove_channel(9); }, "id");
    expect_invalid([&] { engine->reinit_channel(other); }, "id");
    other.id = 8;
    other.code_rate_cps = 0;
    expect_invalid([&] { engine->reinit_channel(other); }, "code_rate_cps");
    gnss_correlator_results r;
    expect_invalid([&] { engine->process(nullptr, 10, r); }, "samples");
    r.taps = 5;
    r.records.resize(1);
    std::vector<cfloat> x(10);
    expect_invalid([&] { engine->process(x.data(), x.size(), r); }, "results");
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), engine->samples_processed());
    CPPUNIT_ASSERT_EQUAL(std::size_t(2), engine->channel_count());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
