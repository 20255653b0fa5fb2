/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The telemetry decoder's channel bookkeeping, records in as the correlator's two
// streams, no correlator, no backend:
//  - A channel the correlator stopped (silent while newer records come) is released once
//    it has been silent for 1 s of signal, whatever the systems of the silent channel
//    and of the newest record (GPS 1-ms epochs, Galileo 4-ms ones): with GPS channels
//    and Galileo channels silent for 1.2 s and for 0.8 s, those of 1.2 s are gone from
//    channel_stages() and those of 0.8 s kept, with the newest record a GPS one and then
//    a Galileo one.
//  - A record that gives a channel a PRN its system refuses stops the block (logged);
//    the counters stay whole and counted once: subframes() is the number of subframe
//    messages the channel sent (the scenario of qa_gps_receiver_truth.h, one satellite
//    of perfect records).

#include "qa_gnss_navigation_chain.h"
#include "qa_gps_receiver_truth.h"
#include "qa_message_collector.h"
#include "qa_run_flowgraph.h"
#include <cppunit/extensions/HelperMacros.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

using namespace qa;

//! A channel of silent_channels(): its code, PRN and the time of its last record end.
struct scripted_channel {
    gnss_signal_system system;
    int prn;
    double last_end_s;
};

/*!
 * Records of \p channels at \p fs from sample 0, each until its last_end_s, in order of
 * their end as the decoder takes them: GPS records of 1 ms, Galileo ones of 4 ms, the
 * prompt alternating its sign every record (no navigation data in it).
 */
record_streams scripted_records(const std::vector<scripted_channel>& channels, double fs)
{
    struct next_record {
        core::gnss_epoch_record record{};
        std::uint64_t last_end;
    };
    std::vector<next_record> next;
    for (std::size_t c = 0; c < channels.size(); ++c) {
        const double epoch_s = channels[c].system == gnss_system_gps_l1ca ? 1e-3 : 4e-3;
        next_record n;
        n.record.channel_id = static_cast<std::uint32_t>(c);
        n.record.sample_count = static_cast<std::uint32_t>(epoch_s * fs);
        n.record.flags = gnss_flag_code_lock;
        n.record.cn0_dbhz = 45.0f;
        n.last_end = static_cast<std::uint64_t>(channels[c].last_end_s * fs);
        next.push_back(n);
    }
    record_streams streams;
    for (;;) {
        next_record* earliest = nullptr;
        for (next_record& n : next) {
            const std::uint64_t end = n.record.start_sample + n.record.sample_count;
            if (end <= n.last_end &&
                (!earliest ||
                 end < earliest->record.start_sample + earliest->record.sample_count))
                earliest = &n;
        }
        if (!earliest)
            return streams;
        core::gnss_epoch_record& r = earliest->record;
        const float level = r.epoch % 2 ? 100.0f : -100.0f;
        const gr_complex taps[3] = { 0.0f, level, 0.0f };
        r.prompt_sign = level > 0 ? 1 : -1;
        const scripted_channel& c = channels[r.channel_id];
        streams.add(r, c.prn, c.system, taps);
        r.start_sample += r.sample_count;
        ++r.epoch;
    }
}

} // namespace

class qa_gps_telemetry_decoder_flowgraph : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gps_telemetry_decoder_flowgraph);
    CPPUNIT_TEST(silent_channels_released_after_one_second_of_either_system);
    CPPUNIT_TEST(refused_prn_leaves_the_counters_counted_once);
    CPPUNIT_TEST_SUITE_END();

public:
    void silent_channels_released_after_one_second_of_either_system()
    {
        const double fs = 1e6, end_s = 3.0;
        for (gnss_signal_system newest :
             { gnss_system_gps_l1ca, gnss_system_galileo_e1b }) {
            const std::vector<scripted_channel> channels = {
                { newest, 20, end_s },
                { gnss_system_gps_l1ca, 1, end_s - 1.2 },
                { gnss_system_gps_l1ca, 2, end_s - 0.8 },
                { gnss_system_galileo_e1b, 1, end_s - 1.2 },
                { gnss_system_galileo_e1b, 2, end_s - 0.8 },
            };
            auto tb = gr::make_top_block("silent_channels");
            auto decoder = gps_telemetry_decoder::make(3, 1);
            scripted_records(channels, fs).connect(tb, decoder);
            qa::run_or_die(tb, "silent channels", 60.0);
            const std::string stages = decoder->channel_stages();
            const std::string clock = newest == gnss_system_gps_l1ca ? "G20" : "E20";
            CPPUNIT_ASSERT_MESSAGE(stages,
                                   stages.find(clock + ": ") != std::string::npos);
            for (const char* kept : { "G02: ", "E02: " })
                CPPUNIT_ASSERT_MESSAGE(clock + " newest, " + kept + " kept: " + stages,
                                       stages.find(kept) != std::string::npos);
            for (const char* released : { "G01: ", "E01: " })
                CPPUNIT_ASSERT_MESSAGE(clock + " newest, " + released +
                                           " released: " + stages,
                                       stages.find(released) == std::string::npos);
        }
    }

    void refused_prn_leaves_the_counters_counted_once()
    {
        const double fs = 2.048e6, duration_s = 19.0;
        const gps_constellation_scenario scenario(scenario_config(duration_s, fs));
        const int prn = scenario.satellite(0).ephemeris.prn;
        std::vector<perfect_channel> channels = {
            { perfect_tracker(scenario, 0, 0), prn, gnss_system_gps_l1ca }
        };
        record_streams streams = perfect_records(channels, fs, duration_s);
        // The channel's next epoch, given PRN 40: GPS PRNs are 1 to 32.
        const double* last =
            &streams.states[streams.states.size() - gnss_state_field_count];
        core::gnss_epoch_record refused{};
        refused.epoch = static_cast<std::uint64_t>(last[gnss_state_epoch]) + 1;
        refused.sample_count = static_cast<std::uint32_t>(last[gnss_state_sample_count]);
        refused.start_sample = static_cast<std::uint64_t>(last[gnss_state_start_sample]) +
                               refused.sample_count;
        const gr_complex taps[3] = { 0.0f, 100.0f, 0.0f };
        streams.add(refused, 40, gnss_system_gps_l1ca, taps);

        auto tb = gr::make_top_block("refused_prn");
        auto decoder = gps_telemetry_decoder::make(3, 1);
        auto navigation = qa::message_collector::make();
        streams.connect(tb, decoder);
        tb->msg_connect(decoder, "navigation", navigation, "in");
        qa::run_or_die(tb, "refused PRN", 120.0);

        std::uint64_t subframe_messages = 0;
        for (const pmt::pmt_t& m : navigation->messages())
            subframe_messages +=
                pmt::symbol_to_string(pmt::dict_ref(m, pmt::mp("type"), pmt::mp(""))) ==
                        "subframe"
                    ? 1
                    : 0;
        CPPUNIT_ASSERT(subframe_messages >= 2);
        CPPUNIT_ASSERT_EQUAL(subframe_messages, decoder->subframes());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), decoder->parity_failures());
        // The refused PRN left the channel as it was.
        const std::string id = gnss_satellite_id(core::gnss_system::gps, prn) + ": ";
        CPPUNIT_ASSERT_MESSAGE(decoder->channel_stages(),
                               decoder->channel_stages().rfind(id, 0) == 0);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gps_telemetry_decoder_flowgraph);

} // namespace cudadsp
} // namespace gr
