/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GNSS_NAVIGATION_CHAIN_H
#define INCLUDED_CUDADSP_QA_GNSS_NAVIGATION_CHAIN_H

// What the navigation blocks' flowgraph tests share (qa_gnss_navigation_flowgraph for
// GPS, qa_gnss_galileo_flowgraph for GPS + Galileo): the chain gps_telemetry_decoder ->
// gnss_observables -> gnss_pvt -> a collector of fixes, perfect trackers' records
// (qa_gps_receiver_truth.h) as the correlator's two output streams, the fix dicts' fields
// and the RINEX observation file read back.

#include "qa_gps_receiver_truth.h"
#include "qa_message_collector.h"
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/gnss_observables.h>
#include <gnuradio/cudadsp/gnss_pvt.h>
#include <gnuradio/cudadsp/gps_telemetry_decoder.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/top_block.h>
#include <cppunit/TestAssert.h>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! A record as the correlator's "state" output writes it, of a channel on \p system's
//! code.
inline std::vector<double> state_fields(const core::gnss_epoch_record& r,
                                        int prn,
                                        gnss_signal_system system = gnss_system_gps_l1ca)
{
    std::vector<double> s(gnss_state_field_count, 0.0);
    s[gnss_state_channel_id] = r.channel_id;
    s[gnss_state_epoch] = static_cast<double>(r.epoch);
    s[gnss_state_start_sample] = static_cast<double>(r.start_sample);
    s[gnss_state_sample_count] = r.sample_count;
    s[gnss_state_flags] = r.flags;
    s[gnss_state_prompt_sign] = r.prompt_sign;
    s[gnss_state_code_phase_chips] = r.code_phase_chips;
    s[gnss_state_code_rate_cps] = r.code_rate_cps;
    s[gnss_state_doppler_hz] = r.doppler_hz;
    s[gnss_state_carrier_phase_rad] = r.carrier_phase_rad;
    s[gnss_state_carrier_cycles] = r.carrier_cycles;
    s[gnss_state_cn0_dbhz] = r.cn0_dbhz;
    s[gnss_state_carrier_lock] = 1.0;
    s[gnss_state_prn] = prn;
    s[gnss_state_system] = system;
    return s;
}

inline double number(const pmt::pmt_t& dict, const char* key)
{
    return pmt::to_double(pmt::dict_ref(dict, pmt::mp(key), pmt::PMT_NIL));
}

inline gnss_vec3 vec3(const pmt::pmt_t& dict, const char* key)
{
    const std::vector<double> v =
        pmt::f64vector_elements(pmt::dict_ref(dict, pmt::mp(key), pmt::PMT_NIL));
    return { v[0], v[1], v[2] };
}

//! A fix dict's vector of symbols ("satellites", "excluded", ...) as strings.
inline std::vector<std::string> texts(const pmt::pmt_t& dict, const char* key)
{
    const pmt::pmt_t v = pmt::dict_ref(dict, pmt::mp(key), pmt::PMT_NIL);
    CPPUNIT_ASSERT_MESSAGE(key, pmt::is_vector(v));
    std::vector<std::string> out;
    for (std::size_t i = 0; i < pmt::length(v); ++i)
        out.push_back(pmt::symbol_to_string(pmt::vector_ref(v, i)));
    return out;
}

//! The scenario's Klobuchar coefficients as gnss_pvt's klobuchar parameter takes them.
inline std::vector<double> broadcast_klobuchar_values()
{
    const gnss_klobuchar_coefficients& k = broadcast_klobuchar();
    return { k.alpha[0], k.alpha[1], k.alpha[2], k.alpha[3],
             k.beta[0],  k.beta[1],  k.beta[2],  k.beta[3] };
}

//! The PVT chain after a record stream: decoder -> observables -> PVT -> collector.
struct navigation_chain {
    gps_telemetry_decoder::sptr decoder;
    gnss_observables::sptr observables;
    gnss_pvt::sptr pvt;
    qa::message_collector::sptr fixes;

    navigation_chain(gr::top_block_sptr tb,
                     double fs,
                     const std::string& folder,
                     const std::vector<double>& klobuchar)
        : decoder(gps_telemetry_decoder::make(3, 1)),
          observables(gnss_observables::make(fs, 1.0)),
          // Troposphere off, as in the signal; a 5 deg mask below the scenario's 10.
          pvt(gnss_pvt::make(folder, 5.0, true, false, klobuchar, 2348)),
          fixes(qa::message_collector::make())
    {
        tb->msg_connect(decoder, "navigation", observables, "navigation");
        tb->msg_connect(observables, "observables", pvt, "observables");
        tb->msg_connect(pvt, "fix", fixes, "in");
    }

    //! The valid fixes, after the epochs without one (which must say why).
    std::vector<pmt::pmt_t> valid_fixes() const
    {
        std::vector<pmt::pmt_t> valid;
        for (const pmt::pmt_t& f : fixes->messages()) {
            if (pmt::to_bool(pmt::dict_ref(f, pmt::mp("valid"), pmt::PMT_F))) {
                valid.push_back(f);
            } else {
                CPPUNIT_ASSERT(valid.empty());
                const std::string reason = pmt::symbol_to_string(
                    pmt::dict_ref(f, pmt::mp("reason"), pmt::PMT_NIL));
                CPPUNIT_ASSERT_MESSAGE(
                    reason, reason.find("no ephemeris yet") != std::string::npos);
            }
        }
        return valid;
    }
};

//! A perfect tracker of one scenario satellite on a correlator channel of \p system.
struct perfect_channel {
    perfect_tracker tracker;
    int prn;
    gnss_signal_system system;
};

//! The correlator's two output streams: taps (3 a record) and the state fields.
struct record_streams {
    std::vector<gr_complex> taps;
    std::vector<double> states;

    //! Appends one record of a channel on \p system's code and its three taps.
    void add(const core::gnss_epoch_record& record,
             int prn,
             gnss_signal_system system,
             const gr_complex* record_taps)
    {
        taps.insert(taps.end(), record_taps, record_taps + 3);
        const std::vector<double> s = state_fields(record, prn, system);
        states.insert(states.end(), s.begin(), s.end());
    }

    //! Feeds the streams to \p decoder's two inputs.
    void connect(gr::top_block_sptr tb, const gps_telemetry_decoder::sptr& decoder) const
    {
        auto taps_in = gr::blocks::vector_source_c::make(taps, false, 3);
        // gr-blocks has no float64 vector source: the fields as bytes, one item a record.
        const auto* bytes = reinterpret_cast<const std::uint8_t*>(states.data());
        auto states_in = gr::blocks::vector_source_b::make(
            std::vector<std::uint8_t>(bytes, bytes + states.size() * sizeof(double)),
            false,
            gnss_state_field_count * sizeof(double));
        tb->connect(taps_in, 0, decoder, 0);
        tb->connect(states_in, 0, decoder, 1);
    }
};

/*!
 * The records of \p channels up to \p duration_s, 10 ms a call, by channel, as the
 * correlator writes them.
 */
inline record_streams
perfect_records(std::vector<perfect_channel>& channels, double fs, double duration_s)
{
    record_streams streams;
    const std::uint64_t step = static_cast<std::uint64_t>(0.01 * fs);
    for (std::uint64_t through = step; through <= duration_s * fs; through += step) {
        for (perfect_channel& c : channels) {
            core::gnss_correlator_results results;
            results.taps = 3;
            c.tracker.run_to(through, results);
            for (std::size_t k = 0; k < results.records.size(); ++k)
                streams.add(results.records[k], c.prn, c.system, results.taps_of(k));
        }
    }
    return streams;
}

//! perfect_records() fed to the decoder of \p chain as its two input streams.
inline void feed_records(gr::top_block_sptr tb,
                         const navigation_chain& chain,
                         std::vector<perfect_channel>& channels,
                         double fs,
                         double duration_s)
{
    perfect_records(channels, fs, duration_s).connect(tb, chain.decoder);
}

inline std::string read_text(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

/*!
 * Reads the RINEX 3.04 observation file back: per epoch (its "> " line's seconds) the
 * C1C pseudorange of each satellite line ("G05", "E11" and F14.3 fields, C1C first),
 * by the satellite's id.
 */
inline std::vector<std::map<std::string, double>>
rinex_pseudoranges(const std::string& text, std::vector<double>& seconds)
{
    std::istringstream in(text);
    std::string line;
    bool header = true;
    std::vector<std::map<std::string, double>> epochs;
    while (std::getline(in, line)) {
        if (header) {
            header = line.find("END OF HEADER") == std::string::npos;
            continue;
        }
        if (line.rfind("> ", 0) == 0) {
            seconds.push_back(std::stod(line.substr(19, 11)));
            epochs.emplace_back();
        } else if (line.size() > 17 && (line[0] == 'G' || line[0] == 'E')) {
            epochs.back()[line.substr(0, 3)] = std::stod(line.substr(3, 14));
        }
    }
    return epochs;
}

//! How often \p pattern occurs in \p text.
inline std::size_t occurrences(const std::string& text, const std::string& pattern)
{
    std::size_t n = 0;
    for (std::size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + 1))
        ++n;
    return n;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GNSS_NAVIGATION_CHAIN_H */
