/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The CUDA backend's MCF network inputs (mcf_network_inputs_cuda: validity, the cost
// model of every difference, every loop's residue and supply) against the host passes
// that define them (mcf_unwrap_cpu::compute_network_inputs()), element by element, on
// single-look scenes with masked water, with and without the coherence, at the
// smallest, default and largest gradient windows. The end-to-end checks against the
// truth are qa_mcf_unwrap's, which run the CUDA backend through these inputs.

#include "qa_mcf_unwrap.h"
#include "unwrap/mcf_network_inputs_cuda.h"
#include "unwrap/mcf_unwrap_cpu.h"
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! One frame's network inputs, copied out of (or written into) host vectors.
struct input_arrays {
    std::vector<std::uint8_t> valid;
    std::vector<std::int32_t> base_cycles;
    std::vector<float> offset, curvature;
    std::vector<double> loop_supply;

    //! Every element set to a value no pass writes.
    input_arrays(std::size_t pixels, std::size_t loops)
        : valid(pixels, 0xab),
          base_cycles(2 * pixels, poison_integer),
          offset(2 * pixels, std::numeric_limits<float>::quiet_NaN()),
          curvature(2 * pixels, std::numeric_limits<float>::quiet_NaN()),
          loop_supply(loops, std::numeric_limits<double>::quiet_NaN())
    {
    }

    mcf_network_inputs view()
    {
        return { valid.data(),
                 base_cycles.data(),
                 offset.data(),
                 curvature.data(),
                 loop_supply.data() };
    }

    void copy_from(const mcf_network_inputs& in)
    {
        valid.assign(in.valid, in.valid + valid.size());
        base_cycles.assign(in.base_cycles, in.base_cycles + base_cycles.size());
        offset.assign(in.offset, in.offset + offset.size());
        curvature.assign(in.curvature, in.curvature + curvature.size());
        loop_supply.assign(in.loop_supply, in.loop_supply + loop_supply.size());
    }
};

unwrap_2d_buffers input_buffers(const frame& f)
{
    unwrap_2d_buffers b;
    b.wrapped = f.wrapped.data();
    b.weight = f.weight.empty() ? nullptr : f.weight.data();
    b.mask = f.mask.empty() ? nullptr : f.mask.data();
    return b;
}

} // namespace

class qa_mcf_network_inputs : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_mcf_network_inputs);
    QA_CUDA_TEST(cuda_inputs_match_the_host_passes);
    CPPUNIT_TEST_SUITE_END();

public:
    /*!
     * A 301 x 203 single-look scene (coherence 0.6, water masked, the steep peak on,
     * some phases NaN), every output of the device stage poisoned first. Validity,
     * counts and loop supplies follow the same float64 arithmetic on both sides and
     * must be equal; the costs go through atan2, logarithms and the filter's sums,
     * whose last bits differ between the device's and the host's libraries: the base
     * periods may differ only where the expected gradient lies within 1e-5 period of
     * a half period (counted), offsets by 2e-5 period and curvatures by 1e-4
     * relative elsewhere.
     */
    void cuda_inputs_match_the_host_passes(const std::string&)
    {
        interferogram_scene_config scene_config;
        scene_config.width = 301;
        scene_config.height = 203;
        scene_config.coherence = 0.6;
        const interferogram_scene scene = simulate_interferogram(scene_config);
        std::vector<std::uint8_t> judged;
        frame weighted = scene_frame(scene, judged);
        for (std::size_t i = 17; i < weighted.wrapped.size(); i += 997)
            weighted.wrapped[i] = std::numeric_limits<float>::quiet_NaN();
        frame unweighted = weighted;
        unweighted.weight.clear();
        for (const frame* f : { &weighted, &unweighted })
            for (std::size_t window : { 1, 7, 15 }) {
                std::ostringstream what;
                what << (f->weight.empty() ? "no coherence" : "coherence")
                     << ", gradient window " << window;
                compare(*f, window, what.str());
            }
    }

private:
    static void
    compare(const frame& f, std::size_t gradient_window, const std::string& what)
    {
        phase_unwrap_2d_config config;
        config.width = f.width;
        config.height = f.height;
        config.method = unwrap_2d_method::mcf;
        config.gradient_window = gradient_window;
        config.validate();
        const std::size_t pixels = config.pixels();
        const std::size_t loops = (f.width - 1) * (f.height - 1);

        mcf_unwrap_cpu host_passes(config);
        const mcf_input_counts host_counts =
            host_passes.compute_network_inputs(input_buffers(f));
        input_arrays host(pixels, loops);
        host.copy_from(host_passes.network_inputs());

        mcf_network_inputs_cuda stage(config, 0);
        input_arrays device(pixels, loops);
        const mcf_input_counts device_counts =
            stage.compute(input_buffers(f), device.view());

        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            what, host_counts.valid_pixels, device_counts.valid_pixels);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what, host_counts.residues, device_counts.residues);
        CPPUNIT_ASSERT_MESSAGE(what, host_counts.residues > 100);
        CPPUNIT_ASSERT_MESSAGE(what, host.valid == device.valid);
        for (std::size_t loop = 0; loop < loops; ++loop)
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                what, host.loop_supply[loop], device.loop_supply[loop], 1e-12);

        std::size_t costed = 0, different_base = 0;
        for (std::size_t edge = 0; edge < 2 * pixels; ++edge) {
            const float h = host.curvature[edge], d = device.curvature[edge];
            CPPUNIT_ASSERT_MESSAGE(what, std::isfinite(d));
            CPPUNIT_ASSERT_EQUAL_MESSAGE(what, h == 0.0f, d == 0.0f);
            if (h == 0.0f) {
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 0, device.base_cycles[edge]);
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 0.0f, device.offset[edge]);
                continue;
            }
            ++costed;
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(what, h, d, 1e-4 * h);
            if (host.base_cycles[edge] != device.base_cycles[edge]) {
                // Only a gradient on the rounding boundary: the offsets then sit at
                // +1/2 on one side and -1/2 on the other.
                ++different_base;
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    what, 1, std::abs(host.base_cycles[edge] - device.base_cycles[edge]));
                CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                    what, 0.5, std::fabs(host.offset[edge]), 1e-5);
                continue;
            }
            CPPUNIT_ASSERT_DOUBLES_EQUAL_MESSAGE(
                what, host.offset[edge], device.offset[edge], 2e-5);
        }
        CPPUNIT_ASSERT_MESSAGE(what, costed > pixels);
        CPPUNIT_ASSERT_MESSAGE(what, different_base * 10000 <= costed);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_mcf_network_inputs);

} // namespace core
} // namespace cudadsp
} // namespace gr
