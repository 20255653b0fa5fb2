/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs of the GNSS family: multichannel_correlator_cc and
// pcps_acquisition_cc, on one simulated sky.

#include "soak_case_builders.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/cudadsp/pcps_acquisition_cc.h>
#include <unordered_map>
#include <algorithm>
#include <cmath>
#include <complex>

namespace gr {
namespace cudadsp {
namespace soak {

// ---------------------------------------------------------------- GNSS
// Four GPS satellites in noise (as in qa_gnss_block_flowgraph), 4 Msps.
namespace {

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

} // namespace

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
    multichannel_correlator_block_config config;
    config.sample_rate_hz = gnss_rate;
    config.max_channels = max_channels;
    config.device = device;
    auto blk = multichannel_correlator_cc::make(config);
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
    pcps_acquisition_block_config config;
    config.acquisition.sample_rate_hz = gnss_rate;
    config.acquisition.doppler_max_hz = 5000.0;
    config.acquisition.noncoherent_dwells = 4;
    config.acquisition.device = device;
    config.satellites = { 2, 7, 12, 17 };
    config.max_channels = 4;
    config.satellites_per_search = 2;
    auto blk = pcps_acquisition_cc::make(config);
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

} // namespace soak
} // namespace cudadsp
} // namespace gr
