/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator: channels that start in the past or the future, and channels
// added, re-initialised and removed between calls.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using multichannel_correlator_qa::make_config;
using multichannel_correlator_qa::noise_samples;
using multichannel_correlator_qa::to_cf32;
using qa::open_loop_channel;
using qa::records_of;
using qa::same_bits;

} // namespace

/*!
 * A channel may start in the past (its NCOs are advanced exactly) or in the
 * future (it waits). A copy of a running channel added later with start_sample 0
 * produces, after its first (partial) epoch, exactly the running channel's epochs.
 */
void qa_multichannel_correlator::start_sample_past_and_future(const std::string& device)
{
    const double fs = 3e6;
    auto engine = multichannel_correlator::make(make_config(device, fs));
    gnss_channel a = open_loop_channel(1, gps_l1ca_code(14));
    a.code_rate_cps = 1.023e6 + 0.7;
    a.code_phase_chips = 12.3;
    a.carrier_frequency_hz = 987.6;
    a.carrier_phase_rad = 1.0;
    a.start_sample = 0;
    engine->add_channel(a);
    auto x = to_cf32(noise_samples(100000, 4));
    gnss_correlator_results first;
    engine->process(x.data(), 31234, first);
    gnss_channel b = a;
    b.id = 2; // same phases, at sample 0
    engine->add_channel(b);
    gnss_channel f = a;
    f.id = 3;
    f.start_sample = 50000;
    engine->add_channel(f);
    gnss_correlator_results r;
    engine->process(x.data() + 31234, x.size() - 31234, r);
    const auto ra = records_of(r, 1), rb = records_of(r, 2), rf = records_of(r, 3);
    CPPUNIT_ASSERT(rb.size() >= 3);
    // b's first record ends where a's epoch in progress ends; then identical.
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(31234), r.records[rb[0]].start_sample);
    CPPUNIT_ASSERT_EQUAL(r.records[ra[0]].start_sample + r.records[ra[0]].sample_count,
                         r.records[rb[0]].start_sample + r.records[rb[0]].sample_count);
    CPPUNIT_ASSERT_EQUAL(ra.size(), rb.size());
    for (std::size_t e = 1; e < ra.size(); ++e) {
        const gnss_epoch_record& ea = r.records[ra[e]];
        const gnss_epoch_record& eb = r.records[rb[e]];
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(e), eb.epoch);
        // Indicator windows started at different epochs; the NCO fields must agree.
        CPPUNIT_ASSERT_EQUAL(ea.start_sample, eb.start_sample);
        CPPUNIT_ASSERT_EQUAL(ea.sample_count, eb.sample_count);
        CPPUNIT_ASSERT(same_bits(ea.code_phase_chips, eb.code_phase_chips));
        CPPUNIT_ASSERT(same_bits(ea.carrier_phase_rad, eb.carrier_phase_rad));
        for (std::size_t t = 0; t < 3; ++t)
            CPPUNIT_ASSERT(r.taps_of(ra[e])[t] == r.taps_of(rb[e])[t]);
    }
    // f waits until sample 50000 and starts its first epoch there.
    CPPUNIT_ASSERT(!rf.empty());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(50000), r.records[rf[0]].start_sample);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), r.records[rf[0]].epoch);
}

//! Channels added, re-initialised and removed between calls.
void qa_multichannel_correlator::add_remove_reinit(const std::string& device)
{
    const double fs = 2e6;
    auto engine = multichannel_correlator::make(make_config(device, fs));
    auto x = to_cf32(noise_samples(60000, 6));
    for (std::uint32_t id : { 30u, 10u, 20u }) {
        gnss_channel c = open_loop_channel(id, gps_l1ca_code(id / 10));
        c.code_phase_chips = id;
        engine->add_channel(c);
    }
    gnss_correlator_results r;
    engine->process(x.data(), 20000, r);
    CPPUNIT_ASSERT((engine->channel_ids() == std::vector<std::uint32_t>{ 10, 20, 30 }));
    // Ascending id, each id's epochs contiguous and in time order.
    for (std::size_t i = 1; i < r.records.size(); ++i) {
        const auto &p = r.records[i - 1], &q = r.records[i];
        CPPUNIT_ASSERT(p.channel_id < q.channel_id ||
                       (p.channel_id == q.channel_id && p.epoch + 1 == q.epoch &&
                        p.start_sample + p.sample_count == q.start_sample));
    }
    engine->remove_channel(20);
    gnss_channel re = open_loop_channel(30, gps_l1ca_code(5));
    re.code_phase_chips = 600.0;
    re.carrier_frequency_hz = 100.0;
    engine->reinit_channel(re);
    gnss_channel added = open_loop_channel(15, gps_l1ca_code(6));
    engine->add_channel(added);
    r.clear();
    engine->process(x.data() + 20000, 40000, r);
    CPPUNIT_ASSERT_EQUAL(std::size_t(0), records_of(r, 20).size());
    const auto r30 = records_of(r, 30), r15 = records_of(r, 15), r10 = records_of(r, 10);
    CPPUNIT_ASSERT(!r30.empty() && !r15.empty() && !r10.empty());
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), r.records[r30[0]].epoch);
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(20000), r.records[r30[0]].start_sample);
    CPPUNIT_ASSERT(r.records[r10[0]].epoch > 0);
    // Reinit phase 600 chips: the first epoch holds the rest of the period.
    CPPUNIT_ASSERT_EQUAL(std::uint32_t(std::ceil((1023.0 - 600.0) * fs / 1.023e6)),
                         r.records[r30[0]].sample_count);
    CPPUNIT_ASSERT(r15.front() < r30.front() && r10.front() < r15.front());
    CPPUNIT_ASSERT_EQUAL(std::size_t(3), engine->channel_count());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
