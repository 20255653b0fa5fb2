/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// mcf_unwrap_cpu shares its per-pixel and per-difference passes by rows among the
// runtime's workers: the outputs must not depend on how many, and must stay as good
// against the known truth as measured.

#include "qa_mcf_unwrap.h"
#include "runtime/parallel_ranges.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

class qa_mcf_row_workers : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_mcf_row_workers);
    CPPUNIT_TEST(whole_frame_is_the_same_on_any_number_of_workers);
    CPPUNIT_TEST_SUITE_END();

public:
    /*!
     * A 512 x 512 single-look scene (coherence 0.7, the water masked), solved whole
     * with the coherence as weight and without it (the window's spread of unit steps
     * then stands for the noise): on one worker, the right-cycle fraction at least
     * what was measured (0.9771 and 0.9756), and on 2, 3 and 4 workers (at most the
     * host's threads; 3 gives uneven shares) the same K, components, unwrapped bits,
     * residues, flow and flow cost.
     */
    void whole_frame_is_the_same_on_any_number_of_workers()
    {
        interferogram_scene_config scene_config;
        scene_config.width = scene_config.height = 512;
        scene_config.coherence = 0.7;
        scene_config.steep = false;
        const interferogram_scene scene = simulate_interferogram(scene_config);
        std::vector<std::uint8_t> judged;
        const frame weighted = scene_frame(scene, judged);
        frame unweighted = weighted;
        unweighted.weight.clear();
        struct field {
            const char* name;
            const frame& f;
            double least_right;
        };
        const field fields[] = { { "weighted", weighted, 0.97 },
                                 { "unweighted", unweighted, 0.97 } };
        for (const field& test : fields) {
            const solved_frame one =
                solve_frame(test.f, unwrap_2d_mcf_solver::shortest_paths, 1, 1);
            check_outputs_consistent(one.o, test.f, test.name);
            const double right = right_cycle_fraction(one.o, scene.true_phase, judged);
            std::ostringstream what;
            what << test.name << ": right-cycle fraction " << right;
            CPPUNIT_ASSERT_MESSAGE(what.str(), right >= test.least_right);
            CPPUNIT_ASSERT(one.o.report.residues > 0 && one.o.report.flow > 0);
            for (std::size_t workers : { 2, 3, 4 }) {
                const solved_frame many =
                    solve_frame(test.f, unwrap_2d_mcf_solver::shortest_paths, 1, workers);
                std::ostringstream on;
                on << test.name << ", " << workers << " workers (of "
                   << parallel_workers(512, workers) << " run)";
                CPPUNIT_ASSERT_MESSAGE(on.str(), many.o.cycles == one.o.cycles);
                CPPUNIT_ASSERT_MESSAGE(on.str(), many.o.components == one.o.components);
                // Bits, so that NaNs compare too.
                CPPUNIT_ASSERT_MESSAGE(
                    on.str(),
                    std::memcmp(many.o.unwrapped.data(),
                                one.o.unwrapped.data(),
                                one.o.unwrapped.size() * sizeof(float)) == 0);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    on.str(), one.o.report.valid_pixels, many.o.report.valid_pixels);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    on.str(), one.o.report.residues, many.o.report.residues);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    on.str(), one.o.report.flow, many.o.report.flow);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(on.str(), one.cost, many.cost);
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_mcf_row_workers);

} // namespace core
} // namespace cudadsp
} // namespace gr
