/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The telemetry decoder's channel bookkeeping, records in as the correlator's two
// streams, no correlator, no backend:
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

using namespace qa;

class qa_gps_telemetry_decoder_flowgraph : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gps_telemetry_decoder_flowgraph);
    CPPUNIT_TEST(refused_prn_leaves_the_counters_counted_once);
    CPPUNIT_TEST_SUITE_END();

public:
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
