/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs, one per block. Each input is a deterministic function of the item
// index whose expected output is known in closed form (a delay, a power ratio, a phase
// slope, an image shift, a satellite's truth), so the sink checks the content of what
// arrives as well as its count, and an item lost or repeated shifts the stream off its
// definition. Each case also churns what the block takes at run time: reset messages
// and tags, scan messages and tags, channels added, re-initialised and removed, lost
// satellites, and malformed messages among them.

#include "qa_fft_reference.h"
#include "runtime/splitmix64.h"
#include "soak_cases.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/cudadsp/cross_correlator_cc.h>
#include <gnuradio/cudadsp/kdp_ff.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <gnuradio/cudadsp/st_tbd_ff.h>
#include <unordered_map>
#include <algorithm>
#include <cmath>
#include <complex>
#include <mutex>

namespace gr {
namespace cudadsp {
namespace soak {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

//! A value in [-1, 1) from any 64-bit key: the content of the random test images.
float hashed_unit(std::uint64_t key)
{
    return static_cast<float>(
        static_cast<double>(core::splitmix64::mix(key) >> 11) * 0x1p-52 - 1.0);
}

gr_complex hashed_complex(std::uint64_t key)
{
    return { hashed_unit(2 * key), hashed_unit(2 * key + 1) };
}

double pmt_number(const pmt::pmt_t& x)
{
    if (pmt::is_uint64(x))
        return static_cast<double>(pmt::to_uint64(x));
    if (pmt::is_integer(x))
        return static_cast<double>(pmt::to_long(x));
    if (pmt::is_real(x))
        return pmt::to_double(x);
    return std::nan("");
}

/*!
 * Checks that every item of a call carries the tag \p key with the value
 * value_of(item index): tags on item streams survive the block one per item, none
 * lost, repeated or moved. Returns the items without their tag.
 */
std::uint64_t check_item_tags(const std::vector<gr::tag_t>& tags,
                              const pmt::pmt_t& key,
                              std::uint64_t first,
                              int n,
                              const std::function<double(std::uint64_t)>& value_of)
{
    std::uint64_t good = 0;
    for (const gr::tag_t& t : tags)
        if (pmt::eqv(t.key, key) && t.offset >= first && t.offset < first + n &&
            pmt_number(t.value) == value_of(t.offset))
            ++good;
    return static_cast<std::uint64_t>(n) - std::min<std::uint64_t>(good, n);
}

soak_flowgraph finish(gr::top_block_sptr tb,
                      counted_source::sptr source,
                      counted_sink::sptr sink,
                      std::function<std::uint64_t(std::uint64_t)> expected_out)
{
    soak_flowgraph f;
    f.tb = tb;
    f.source = source;
    f.items_out = [sink] { return sink->items(); };
    f.lost = [source, sink, expected_out] {
        return static_cast<std::int64_t>(expected_out(source->produced())) -
               static_cast<std::int64_t>(sink->items());
    };
    f.bad = [sink] { return sink->bad_items(); };
    f.messages = [] { return std::uint64_t(0); };
    f.messages_queued = [] { return std::uint64_t(0); };
    f.messages_queued_max = [] { return std::uint64_t(0); };
    f.churn = [](std::mt19937_64&) {};
    return f;
}

//! The summary's message figures, from the port that counts the block's messages.
void count_messages(soak_flowgraph& f, const message_counter::sptr& counter)
{
    f.messages = [counter] { return counter->count(); };
    f.messages_queued = [counter] { return counter->queued(); };
    f.messages_queued_max = [counter] { return counter->queued_max(); };
}

// ---------------------------------------------------------------- phase_unwrap_ff
// Input: a wrapped phase 20 sin(2 pi n / 1000) + 0.3 (steps below pi). Whatever the
// resets, the output is the input plus whole periods; a missing item breaks that.
soak_flowgraph phase_unwrap_ff_soak(const std::string& device, double seconds)
{
    auto table = std::make_shared<std::vector<float>>(1000);
    for (int k = 0; k < 1000; ++k)
        (*table)[k] = static_cast<float>(
            std::remainder(20.0 * std::sin(two_pi * k / 1000.0) + 0.3, two_pi));
    auto fill = [table](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i)
            o[i] = (*table)[(first + i) % 1000];
    };
    const pmt::pmt_t reset_key = pmt::mp("unwrap_reset");
    auto tag = [reset_key](counted_source& s, std::uint64_t first, int n) {
        constexpr std::uint64_t every = 1 << 18;
        for (std::uint64_t k = (first + every - 1) / every * every; k < first + n;
             k += every)
            s.tag(k, reset_key, pmt::PMT_T);
    };
    auto check = [table](std::uint64_t first,
                         int n,
                         const gr_vector_const_void_star& in,
                         const std::vector<gr::tag_t>&) {
        const auto* x = static_cast<const float*>(in[0]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const double periods = (double(x[i]) - (*table)[(first + i) % 1000]) / two_pi;
            if (!(std::abs(periods - std::round(periods)) < 1e-4))
                ++bad;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) }, seconds, fill, tag);
    auto blk = phase_unwrap_ff::make(1, two_pi, device);
    auto sink = counted_sink::make({ sizeof(float) }, check);
    auto tb = gr::make_top_block("soak_phase_unwrap_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    soak_flowgraph f = finish(tb, source, sink, [](std::uint64_t in) { return in; });
    f.churn = [blk](std::mt19937_64&) { blk->_post(pmt::mp("reset"), pmt::PMT_T); };
    return f;
}

// ---------------------------------------------------------------- phase_unwrap_2d_ff
// Frame f: a wrapped plane a_f x + b_f y (a_f, b_f from f, below pi per pixel). The
// reliability method recovers the plane up to one constant number of periods.
soak_flowgraph phase_unwrap_2d_ff_soak(const std::string& device, double seconds)
{
    constexpr int width = 64, height = 48, pixels = width * height;
    const auto plane = [](std::uint64_t f, int p) {
        const double a = 0.4 + 0.05 * double(f % 11), b = -0.3 + 0.07 * double(f % 5);
        return a * (p % width) + b * (p / width);
    };
    auto fill = [plane](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i)
            for (int p = 0; p < pixels; ++p)
                o[std::size_t(i) * pixels + p] =
                    static_cast<float>(std::remainder(plane(first + i, p), two_pi));
    };
    const pmt::pmt_t key = pmt::mp("soak_item");
    auto tag = [key](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i)
            s.tag(first + i, key, pmt::from_uint64(first + i));
    };
    auto check = [plane, key](std::uint64_t first,
                              int n,
                              const gr_vector_const_void_star& in,
                              const std::vector<gr::tag_t>& tags) {
        const auto* x = static_cast<const float*>(in[0]);
        std::uint64_t bad = check_item_tags(
            tags, key, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const float* frame = x + std::size_t(i) * pixels;
            const double offset = frame[0] - plane(first + i, 0);
            const double periods = offset / two_pi;
            bool ok = std::abs(periods - std::round(periods)) < 1e-4;
            for (int p = 37; p < pixels; p += 397)
                ok = ok && std::abs(frame[p] - plane(first + i, p) - offset) < 1e-3;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) * pixels }, seconds, fill, tag);
    auto blk = phase_unwrap_2d_ff::make(width,
                                        height,
                                        "reliability",
                                        two_pi,
                                        false,
                                        false,
                                        7,
                                        true,
                                        100,
                                        1e-5,
                                        false,
                                        device);
    auto sink = counted_sink::make({ sizeof(float) * pixels }, check);
    auto tb = gr::make_top_block("soak_phase_unwrap_2d_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    return finish(tb, source, sink, [](std::uint64_t in) { return in; });
}

// ---------------------------------------------------------------- cross_correlator_cc
// Frame f: y a random sequence, x the same sequence delayed by d_f = f mod 21 - 10
// samples; the peak lag is d_f, its normalised magnitude (L - |d_f|) / L.
soak_flowgraph cross_correlator_cc_soak(const std::string& device, double seconds)
{
    constexpr int frame = 512;
    const auto delay = [](std::uint64_t f) { return int(f % 21) - 10; };
    auto fill = [delay](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* x = static_cast<gr_complex*>(out[0]);
        auto* y = static_cast<gr_complex*>(out[1]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t s = first + i, f = s / frame;
            const int m = int(s % frame) + 16;
            y[i] = hashed_complex(f * 4096 + m);
            x[i] = hashed_complex(f * 4096 + (m - delay(f)));
        }
    };
    auto check = [delay](std::uint64_t first,
                         int n,
                         const gr_vector_const_void_star& in,
                         const std::vector<gr::tag_t>&) {
        const auto* lag = static_cast<const float*>(in[0]);
        const auto* magnitude = static_cast<const float*>(in[1]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i)
            if (!(std::abs(lag[i] - delay(first + i)) <= 1.0 / 16 + 1e-4 &&
                  magnitude[i] > 0.9f && magnitude[i] <= 1.0f))
                ++bad;
        return bad;
    };
    auto source =
        counted_source::make({ sizeof(gr_complex), sizeof(gr_complex) }, seconds, fill);
    auto blk = cross_correlator_cc::make(frame, 16, 0, false, false, device);
    auto sink =
        counted_sink::make({ sizeof(float), sizeof(float), sizeof(float) }, check);
    auto tb = gr::make_top_block("soak_cross_correlator_cc");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    for (int p = 0; p < 3; ++p)
        tb->connect(blk, p, sink, p);
    return finish(tb, source, sink, [](std::uint64_t in) { return in / frame; });
}

// ----------------------------------------------------------------
// polarimetric_products_cf Radial r: random H pulses and V = a_r H, a_r = 0.5 + 0.1 (r
// mod 5): ZDR = -20 log10 a_r and RhoHV = 1 at every gate; the block's "radial_index" tag
// is the radial's count.
soak_flowgraph polarimetric_products_cf_soak(const std::string& device, double seconds)
{
    constexpr int ngates = 32, pulses = 16;
    const auto ratio = [](std::uint64_t r) { return 0.5 + 0.1 * double(r % 5); };
    auto fill = [ratio](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* h = static_cast<gr_complex*>(out[0]);
        auto* v = static_cast<gr_complex*>(out[1]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t p = first + i;
            const float a = static_cast<float>(ratio(p / pulses));
            for (int g = 0; g < ngates; ++g) {
                const gr_complex x = hashed_complex(p * ngates + g);
                h[std::size_t(i) * ngates + g] = x;
                v[std::size_t(i) * ngates + g] = a * x;
            }
        }
    };
    // The antenna's azimuth as the radar would tag it, every 64 pulses.
    const pmt::pmt_t azimuth = pmt::mp("azimuth_deg");
    auto tag = [azimuth](counted_source& s, std::uint64_t first, int n) {
        for (std::uint64_t k = (first + 63) / 64 * 64; k < first + n; k += 64)
            s.tag(k, azimuth, pmt::from_double(double(k / 64 % 3600) * 0.1));
    };
    const pmt::pmt_t radial_index = pmt::mp("radial_index");
    auto check = [ratio, radial_index](std::uint64_t first,
                                       int n,
                                       const gr_vector_const_void_star& in,
                                       const std::vector<gr::tag_t>& tags) {
        const auto* zdr = static_cast<const float*>(in[1]);
        const auto* rhohv = static_cast<const float*>(in[5]);
        std::uint64_t bad = check_item_tags(
            tags, radial_index, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const double expected = -20.0 * std::log10(ratio(first + i));
            bool ok = true;
            for (int g = 0; g < ngates; g += 7)
                ok = ok && std::abs(zdr[std::size_t(i) * ngates + g] - expected) < 1e-3 &&
                     std::abs(rhohv[std::size_t(i) * ngates + g] - 1.0) < 1e-4;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    const int item = sizeof(gr_complex) * ngates;
    auto source = counted_source::make({ item, item }, seconds, fill, tag);
    polarimetric_products_cf_config config;
    config.processing.ngates = ngates;
    config.processing.pulses_per_radial = pulses;
    config.processing.device = device;
    auto blk = polarimetric_products_cf::make(config);
    auto sink = counted_sink::make(std::vector<int>(7, sizeof(float) * ngates), check);
    auto tb = gr::make_top_block("soak_polarimetric_products_cf");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    for (int p = 0; p < 7; ++p)
        tb->connect(blk, p, sink, p);
    soak_flowgraph f =
        finish(tb, source, sink, [](std::uint64_t in) { return in / pulses; });
    f.churn = [blk](std::mt19937_64& rng) {
        pmt::pmt_t scan = pmt::make_dict();
        if (rng() % 8 == 0) { // a malformed one now and then: logged and ignored
            scan = pmt::dict_add(scan, pmt::mp("rate_deg_s"), pmt::mp("fast"));
        } else {
            scan = pmt::dict_add(scan,
                                 pmt::mp("start_azimuth_deg"),
                                 pmt::from_double(double(rng() % 360)));
            scan = pmt::dict_add(
                scan, pmt::mp("rate_deg_s"), pmt::from_double(double(rng() % 30)));
        }
        blk->_post(pmt::mp("scan"), scan);
    };
    return f;
}

// ---------------------------------------------------------------- kdp_ff
// Radial r: PhiDP wrapped from c_r + s_r range (s_r = 2 + r mod 7 deg/km): KDP = s_r / 2
// wherever the window fits; an "azimuth_deg" tag on every radial must come through.
soak_flowgraph kdp_ff_soak(const std::string& device, double seconds)
{
    constexpr int ngates = 200;
    constexpr double spacing_km = 0.15;
    const auto slope = [](std::uint64_t r) { return 2.0 + double(r % 7); };
    auto fill = [slope](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i) {
            const std::uint64_t r = first + i;
            const double start = -170.0 + 13.0 * double(r % 20);
            for (int g = 0; g < ngates; ++g)
                o[std::size_t(i) * ngates + g] = static_cast<float>(
                    std::remainder(start + slope(r) * g * spacing_km, 360.0));
        }
    };
    const pmt::pmt_t azimuth = pmt::mp("azimuth_deg");
    const auto azimuth_of = [](std::uint64_t r) { return double(r % 3600) * 0.1; };
    auto tag = [azimuth, azimuth_of](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i)
            s.tag(first + i, azimuth, pmt::from_double(azimuth_of(first + i)));
    };
    auto blk = kdp_ff::make(
        ngates, spacing_km * 1000.0, 3.0, 1.0, false, false, 0.8, 3.0, device);
    const int h = blk->half_window_gates();
    auto check = [slope, azimuth, azimuth_of, h](std::uint64_t first,
                                                 int n,
                                                 const gr_vector_const_void_star& in,
                                                 const std::vector<gr::tag_t>& tags) {
        const auto* kdp = static_cast<const float*>(in[1]);
        std::uint64_t bad = check_item_tags(tags, azimuth, first, n, azimuth_of);
        for (int i = 0; i < n; ++i) {
            bool ok = true;
            for (int g = h; g < ngates - h; g += 11)
                ok = ok && std::abs(kdp[std::size_t(i) * ngates + g] -
                                    slope(first + i) / 2) < 1e-3;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    auto source = counted_source::make({ sizeof(float) * ngates }, seconds, fill, tag);
    auto sink =
        counted_sink::make({ sizeof(float) * ngates, sizeof(float) * ngates }, check);
    auto tb = gr::make_top_block("soak_kdp_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    tb->connect(blk, 1, sink, 1);
    return finish(tb, source, sink, [](std::uint64_t in) { return in; });
}

// ---------------------------------------------------------------- st_tbd_ff
// One stationary hypothesis and frames c_f g(x, y) of one fixed pattern g: the state,
// however reset, stays s_f g, so D / g is one number per frame, and the argmax is 0.
soak_flowgraph st_tbd_ff_soak(const std::string& device, double seconds)
{
    constexpr int width = 48, height = 48, pixels = width * height;
    auto pattern = std::make_shared<std::vector<float>>(pixels);
    for (int p = 0; p < pixels; ++p)
        (*pattern)[p] = 0.75f + 0.25f * hashed_unit(p);
    auto fill = [pattern](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i) {
            const float c = 1.0f + 0.25f * float((first + i) % 9);
            for (int p = 0; p < pixels; ++p)
                o[std::size_t(i) * pixels + p] = c * (*pattern)[p];
        }
    };
    const pmt::pmt_t key = pmt::mp("soak_item"), reset = pmt::mp("tbd_reset");
    auto tag = [key, reset](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i) {
            s.tag(first + i, key, pmt::from_uint64(first + i));
            if ((first + i) % 101 == 100)
                s.tag(first + i, reset, pmt::PMT_T);
        }
    };
    auto check = [pattern, key](std::uint64_t first,
                                int n,
                                const gr_vector_const_void_star& in,
                                const std::vector<gr::tag_t>& tags) {
        const auto* d = static_cast<const float*>(in[0]);
        const auto* argmax = static_cast<const float*>(in[1]);
        std::uint64_t bad = check_item_tags(
            tags, key, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const float* map = d + std::size_t(i) * pixels;
            const double s = map[0] / (*pattern)[0];
            bool ok = s >= 0.0 && s <= 3.0 + 1e-4;
            for (int p = 29; p < pixels; p += 211)
                ok = ok && std::abs(map[p] / (*pattern)[p] - s) <= 1e-4 * (1.0 + s) &&
                     argmax[std::size_t(i) * pixels + p] == 0.0f;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    core::tbd_hypothesis still;
    still.transitions.push_back(core::tbd_transition{});
    auto source = counted_source::make({ sizeof(float) * pixels }, seconds, fill, tag);
    auto blk = st_tbd_ff::make(
        width, height, { still }, 0.9f, 1.5f, device, "auto", "auto", false, 2);
    auto sink =
        counted_sink::make({ sizeof(float) * pixels, sizeof(float) * pixels }, check);
    auto detections = message_counter::make();
    auto tb = gr::make_top_block("soak_st_tbd_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    tb->connect(blk, 1, sink, 1);
    tb->msg_connect(blk, "detections", detections, "in");
    soak_flowgraph f = finish(tb, source, sink, [](std::uint64_t in) { return in; });
    count_messages(f, detections);
    // A detection dropped at the counter (which never stalls) is one lost.
    f.bad = [sink, blk] { return sink->bad_items() + blk->detections_dropped(); };
    f.churn = [blk](std::mt19937_64& rng) {
        if (rng() % 4 == 0)
            blk->_post(pmt::mp("reset"), pmt::PMT_T);
    };
    return f;
}

// ---------------------------------------------------------------- patch_xcorr_cc
// A band-limited speckle image (periodic, 512 x 512: the lines repeat every 512, far
// beyond the search) and the same image moved by 2 columns and 1 line: every patch has
// dx = 2, dy = 1 (to GMTSAR's scatter), at the block's grid positions, strip after strip.
constexpr long speckle_size = 512;

//! Complex speckle with a spectrum flat inside |f| < 0.4 cycles/sample on both axes and
//! zero outside, as GMTSAR's range interpolation assumes; periodic on both axes.
std::shared_ptr<std::vector<gr_complex>> periodic_speckle()
{
    const long n = speckle_size;
    std::vector<std::complex<double>> z(std::size_t(n * n));
    core::splitmix64 random(0x5bec);
    auto freq = [n](long k) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < n; ++r)
        for (long c = 0; c < n; ++c)
            z[r * n + c] = std::abs(freq(r)) < 0.4 && std::abs(freq(c)) < 0.4
                               ? random.complex_normal()
                               : 0.0;
    qa::fft2(z, n, n, true);
    auto out = std::make_shared<std::vector<gr_complex>>(z.size());
    const double scale = 1.0 / std::sqrt(double(z.size()));
    for (std::size_t i = 0; i < z.size(); ++i)
        (*out)[i] = gr_complex(z[i] * scale);
    return out;
}

soak_flowgraph patch_xcorr_cc_soak(const std::string& device, double seconds)
{
    constexpr int width = 256, nx = 4, line_step = 32, search = 16;
    auto image = periodic_speckle();
    auto fill = [image](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* master = static_cast<gr_complex*>(out[0]);
        auto* aligned = static_cast<gr_complex*>(out[1]);
        const long size = speckle_size;
        for (int i = 0; i < n; ++i) {
            const long y = long((first + i) % size), y_before = (y + size - 1) % size;
            for (int x = 0; x < width; ++x) {
                master[std::size_t(i) * width + x] = (*image)[y * size + x];
                aligned[std::size_t(i) * width + x] =
                    (*image)[y_before * size + (x + size - 2) % size];
            }
        }
    };
    auto blk = patch_xcorr_cc::make(
        width, nx, -1, line_step, search, search, 2, 16, 0, 0, device);
    core::patch_correlator_config config;
    config.xsearch = search;
    config.ysearch = search;
    const std::uint64_t npy = config.npy();
    auto check = [blk](std::uint64_t first,
                       int n,
                       const gr_vector_const_void_star& in,
                       const std::vector<gr::tag_t>&) {
        const auto* r = static_cast<const float*>(in[0]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const float* rec = r + 5 * std::size_t(i);
            const std::uint64_t k = (first + i) / nx;
            const int column = blk->patch_column(int((first + i) % nx));
            // GMTSAR's estimate on 64-pixel patches of speckle scatters by about 0.2
            // pixel; a line lost on one input would move dy by a whole line.
            if (!(rec[0] == column && std::abs(rec[1] - 2.0f) < 0.5f &&
                  rec[2] == float(blk->strip_line(k)) && std::abs(rec[3] - 1.0f) < 0.5f &&
                  rec[4] > 50.0f))
                ++bad;
        }
        return bad;
    };
    const int line = sizeof(gr_complex) * width;
    auto source = counted_source::make({ line, line }, seconds, fill);
    auto sink = counted_sink::make({ 5 * sizeof(float) }, check);
    auto patches = message_counter::make();
    auto tb = gr::make_top_block("soak_patch_xcorr_cc");
    tb->connect(source, 0, blk, 0);
    tb->connect(source, 1, blk, 1);
    tb->connect(blk, 0, sink, 0);
    tb->msg_connect(blk, "patches", patches, "in");
    // Strip k is centred on npy / 2 + k line_step and runs once npy / 2 lines past it
    // have arrived.
    soak_flowgraph f = finish(tb, source, sink, [npy](std::uint64_t lines) {
        return lines < npy ? 0 : ((lines - npy) / line_step + 1) * nx;
    });
    count_messages(f, patches);
    return f;
}

// ---------------------------------------------------------------- GNSS
// Four GPS satellites in noise (as in qa_gnss_block_flowgraph), 4 Msps.
constexpr double gnss_rate = 4e6;

std::shared_ptr<core::gnss_signal_simulator> gnss_sky()
{
    core::gnss_simulator_config config;
    config.sample_rate_hz = gnss_rate;
    config.seed = 16;
    std::vector<core::gnss_simulated_satellite> sats;
    for (int i = 0; i < 4; ++i) {
        core::gnss_simulated_satellite s;
        s.code = core::gps_l1ca_code(2 + 5 * i);
        s.code_phase_chips = 100.0 + 211.7 * i;
        s.doppler_hz = -3000.0 + 1900.0 * i;
        s.cn0_dbhz = 44.0 + 2.0 * i;
        sats.push_back(s);
    }
    return std::make_shared<core::gnss_signal_simulator>(config, sats);
}

counted_source::sptr gnss_source(std::shared_ptr<core::gnss_signal_simulator> sky,
                                 double seconds)
{
    return counted_source::make(
        { sizeof(gr_complex) },
        seconds,
        [sky](std::uint64_t, int n, gr_vector_void_star& out) {
            sky->generate(static_cast<std::complex<float>*>(out[0]), std::size_t(n));
        });
}

//! A correlator channel on satellite \p sat of the sky, its truth at sample \p at.
pmt::pmt_t satellite_channel(const core::gnss_signal_simulator& sky,
                             std::size_t sat,
                             std::uint32_t id,
                             std::uint64_t at,
                             bool tracking)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::mp("id"), pmt::from_long(id));
    d = pmt::dict_add(d, pmt::mp("prn"), pmt::from_long(long(2 + 5 * sat)));
    d = pmt::dict_add(d,
                      pmt::mp("code_phase_chips"),
                      pmt::from_double(sky.code_phase_chips(sat, double(at))));
    d = pmt::dict_add(
        d, pmt::mp("doppler_hz"), pmt::from_double(sky.doppler_hz(sat, double(at))));
    d = pmt::dict_add(d, pmt::mp("start_sample"), pmt::from_uint64(at));
    d = pmt::dict_add(d, pmt::mp("mode"), pmt::mp(tracking ? "tracking" : "open_loop"));
    return d;
}

// ----------------------------------------------------------------
// multichannel_correlator_cc Channels come and go all the time: added on the sky's
// satellites at their truth (and on absent ones, which lose lock and are removed by the
// block), re-initialised, removed, with malformed and refused messages among them. Every
// record must continue its channel: epoch e + 1 starts where epoch e ended, or a channel
// starts again at epoch 0.
soak_flowgraph multichannel_correlator_cc_soak(const std::string& device, double seconds)
{
    constexpr int max_channels = 16, taps = 3;
    auto sky = gnss_sky();
    auto source = gnss_source(sky, seconds);
    auto blk = multichannel_correlator_cc::make(
        gnss_rate, { -0.5, 0.0, 0.5 }, max_channels, pmt::PMT_NIL, 0.0, 10.0, device);
    struct epoch_end {
        std::uint64_t epoch, end, seen_at;
    };
    auto last = std::make_shared<std::unordered_map<std::uint32_t, epoch_end>>();
    auto check = [last](std::uint64_t first,
                        int n,
                        const gr_vector_const_void_star& in,
                        const std::vector<gr::tag_t>&) {
        const auto* t = static_cast<const gr_complex*>(in[0]);
        const auto* s = static_cast<const double*>(in[1]);
        std::uint64_t bad = 0;
        for (int i = 0; i < n; ++i) {
            const double* st = s + std::size_t(i) * gnss_state_field_count;
            const auto id = static_cast<std::uint32_t>(st[gnss_state_channel_id]);
            const auto epoch = static_cast<std::uint64_t>(st[gnss_state_epoch]);
            const auto start = static_cast<std::uint64_t>(st[gnss_state_start_sample]);
            const auto count = static_cast<std::uint64_t>(st[gnss_state_sample_count]);
            bool ok = count > 0;
            for (int k = 0; k < taps; ++k)
                ok = ok && std::isfinite(t[std::size_t(i) * taps + k].real()) &&
                     std::isfinite(t[std::size_t(i) * taps + k].imag());
            const auto it = last->find(id);
            if (epoch != 0)
                ok = ok && it != last->end() && it->second.epoch + 1 == epoch &&
                     it->second.end == start;
            bad += ok ? 0 : 1;
            (*last)[id] = { epoch, start + count, first + i };
        }
        // Forget channels silent for a million records (long removed), so that the
        // check's own memory stays bounded over an hour.
        for (auto it = last->begin(); it != last->end();)
            it = first + n - it->second.seen_at > 1000000 ? last->erase(it)
                                                          : std::next(it);
        return bad;
    };
    auto sink = counted_sink::make(
        { taps * sizeof(gr_complex), gnss_state_field_count * sizeof(double) }, check);
    auto events = message_counter::make();
    auto tb = gr::make_top_block("soak_multichannel_correlator_cc");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    tb->connect(blk, 1, sink, 1);
    tb->msg_connect(blk, "events", events, "in");
    soak_flowgraph f;
    f.tb = tb;
    f.source = source;
    f.items_out = [sink] { return sink->items(); };
    f.lost = [source, blk] {
        return static_cast<std::int64_t>(source->produced()) -
               static_cast<std::int64_t>(blk->samples_processed());
    };
    f.bad = [sink] { return sink->bad_items(); };
    count_messages(f, events);
    auto next_id = std::make_shared<std::uint32_t>(1);
    f.churn = [blk, sky, source, next_id](std::mt19937_64& rng) {
        const std::vector<std::uint32_t> ids = blk->channel_ids();
        const std::uint64_t now = source->produced();
        const unsigned action = rng() % 20;
        auto post = [&blk](const char* port, const pmt::pmt_t& msg) {
            blk->_post(pmt::mp(port), msg);
        };
        if (action < 8 && ids.size() + blk->pending_changes() < max_channels - 2) {
            // A new channel: on a satellite of the sky, or on an absent PRN (lost later).
            const std::uint32_t id = (*next_id)++;
            if (action < 6) {
                post("add", satellite_channel(*sky, rng() % 4, id, now, action % 2 == 0));
            } else {
                pmt::pmt_t d = satellite_channel(*sky, 0, id, now, true);
                post("add", pmt::dict_add(d, pmt::mp("prn"), pmt::from_long(30)));
            }
        } else if (action < 13 && !ids.empty()) {
            post("remove", pmt::from_long(ids[rng() % ids.size()]));
        } else if (action < 16 && !ids.empty()) {
            post("reinit",
                 satellite_channel(*sky, rng() % 4, ids[rng() % ids.size()], now, true));
        } else {
            // Refused whole: a channel without "prn", an id that is not there, a list
            // whose second channel repeats the first, nesting beyond the limit.
            const std::uint32_t id = (*next_id)++;
            pmt::pmt_t nested = pmt::from_long(1);
            for (int k = 0; k < 20; ++k)
                nested = pmt::list1(nested);
            const pmt::pmt_t good = satellite_channel(*sky, 1, id, now, true);
            switch (action) {
            case 16:
                post("add", pmt::dict_delete(good, pmt::mp("prn")));
                break;
            case 17:
                post("remove", pmt::from_long(4000000 + long(id)));
                break;
            case 18:
                post("add", pmt::list2(good, good));
                break;
            default:
                post("add", nested);
                break;
            }
        }
    };
    return f;
}

// ---------------------------------------------------------------- pcps_acquisition_cc
// The sky's four satellites, searched, handed off and returned by "lost" messages (and
// malformed ones). Every sample must be consumed; every detection must be its
// satellite's truth (Doppler within half a bin, code phase within a chip), but for the
// false-alarm rate the block is built for.
soak_flowgraph pcps_acquisition_cc_soak(const std::string& device, double seconds)
{
    auto sky = gnss_sky();
    auto source = gnss_source(sky, seconds);
    auto blk = pcps_acquisition_cc::make(gnss_rate,
                                         "gps_l1ca",
                                         { 2, 7, 12, 17 },
                                         5000.0,
                                         500.0,
                                         1,
                                         4,
                                         1e-3,
                                         4,
                                         2,
                                         pmt::PMT_NIL,
                                         0,
                                         0.0,
                                         0.0,
                                         false,
                                         device);
    auto truth = [sky](const pmt::pmt_t& msg) {
        const double prn = pmt_number(pmt::dict_ref(msg, pmt::mp("prn"), pmt::PMT_NIL));
        const double at =
            pmt_number(pmt::dict_ref(msg, pmt::mp("start_sample"), pmt::PMT_NIL));
        const double phase =
            pmt_number(pmt::dict_ref(msg, pmt::mp("code_phase_chips"), pmt::PMT_NIL));
        const double doppler =
            pmt_number(pmt::dict_ref(msg, pmt::mp("doppler_hz"), pmt::PMT_NIL));
        for (std::size_t sat = 0; sat < 4; ++sat) {
            if (prn != double(2 + 5 * sat))
                continue;
            const double dphase =
                std::remainder(phase - sky->code_phase_chips(sat, at), 1023.0);
            return std::abs(dphase) <= 1.0 &&
                   std::abs(doppler - sky->doppler_hz(sat, at)) <= 250.0;
        }
        return false;
    };
    auto detections = message_counter::make(truth);
    auto tb = gr::make_top_block("soak_pcps_acquisition_cc");
    tb->connect(source, 0, blk, 0);
    tb->msg_connect(blk, "detections", detections, "in");
    soak_flowgraph f;
    f.tb = tb;
    f.source = source;
    f.items_out = [blk] { return blk->nitems_read(0); };
    f.lost = [source, blk] {
        return static_cast<std::int64_t>(source->produced()) -
               static_cast<std::int64_t>(blk->nitems_read(0));
    };
    // A search may detect a wrong peak at the contract's false-alarm rate (1e-3 per
    // satellite searched): the hour on the CPU saw 4 in 56048 detections. Only wrong
    // detections beyond that rate count as bad.
    f.bad = [detections, blk] {
        const double allowed = std::ceil(1e-3 * 2.0 * double(blk->searches_completed()));
        const double wrong = double(detections->bad_messages());
        return wrong > allowed ? detections->bad_messages() : std::uint64_t(0);
    };
    count_messages(f, detections);
    f.churn = [blk](std::mt19937_64& rng) {
        const std::vector<std::uint32_t> ids = blk->tracked_ids();
        pmt::pmt_t msg = pmt::make_dict();
        if (rng() % 5 == 0 || ids.empty()) {
            msg = rng() % 2 ? pmt::from_long(3) // not a dict: ignored
                            : pmt::dict_add(msg, pmt::mp("event"), pmt::mp("lost"));
        } else {
            msg = pmt::dict_add(msg, pmt::mp("event"), pmt::mp("lost"));
            msg = pmt::dict_add(
                msg, pmt::mp("id"), pmt::from_uint64(ids[rng() % ids.size()]));
        }
        blk->_post(pmt::mp("lost"), msg);
    };
    return f;
}

} // namespace

std::vector<soak_case> soak_cases()
{
    return { { "phase_unwrap_ff", phase_unwrap_ff_soak },
             { "phase_unwrap_2d_ff", phase_unwrap_2d_ff_soak },
             { "cross_correlator_cc", cross_correlator_cc_soak },
             { "polarimetric_products_cf", polarimetric_products_cf_soak },
             { "kdp_ff", kdp_ff_soak },
             { "st_tbd_ff", st_tbd_ff_soak },
             { "patch_xcorr_cc", patch_xcorr_cc_soak },
             { "multichannel_correlator_cc", multichannel_correlator_cc_soak },
             { "pcps_acquisition_cc", pcps_acquisition_cc_soak } };
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
