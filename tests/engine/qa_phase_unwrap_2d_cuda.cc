/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: the CUDA backend against the CPU backend (the reliability
// method to the bit, least squares within its tolerance) and on device buffers.

#include "qa_phase_unwrap_2d.h"
#include "qa_unwrap_2d_device.h"
#include "runtime/cuda_resources.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

std::size_t count_differing_cycles(const outputs& a,
                                   const outputs& b,
                                   const std::vector<std::uint8_t>& valid)
{
    std::size_t differing = 0;
    for (std::size_t i = 0; i < valid.size(); ++i)
        differing += valid[i] && a.cycles[i] != b.cycles[i];
    return differing;
}

//! Same outputs to the bit (NaN where NaN: its payload is not part of the
//! contract), same report.
void assert_bit_identical(const outputs& expected,
                          const outputs& actual,
                          const std::string& what)
{
    const std::size_t n = expected.unwrapped.size();
    CPPUNIT_ASSERT_MESSAGE(what + ": cycles",
                           std::memcmp(expected.cycles.data(),
                                       actual.cycles.data(),
                                       n * sizeof(std::int32_t)) == 0);
    CPPUNIT_ASSERT_MESSAGE(what + ": components",
                           expected.components == actual.components);
    for (std::size_t i = 0; i < n; ++i) {
        const bool both_nan =
            std::isnan(expected.unwrapped[i]) && std::isnan(actual.unwrapped[i]);
        if (!both_nan &&
            std::memcmp(&expected.unwrapped[i], &actual.unwrapped[i], sizeof(float)) != 0)
            fail_at(what,
                    i,
                    "unwrapped " + std::to_string(actual.unwrapped[i]) + ", expected " +
                        std::to_string(expected.unwrapped[i]));
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what, expected.report.valid_pixels, actual.report.valid_pixels);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what, expected.report.components, actual.report.components);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what, expected.report.iterations, actual.report.iterations);
}

} // namespace

void qa_phase_unwrap_2d::cuda_reliability_bit_identical_to_cpu(const std::string&)
{
    // The pair rule and guided windows, whose phasor sums reach across the
    // wrap-around edges; a window wider than the 7-row frame.
    struct cuda_case {
        std::size_t width, height;
        double noise;
        bool wrap_x, wrap_y, inputs;
    };
    // Under a sanitizer the large frames shrink but still span many thread blocks.
    const std::size_t W = qa::scaled<std::size_t>(1024, 320);
    const std::size_t H = qa::scaled<std::size_t>(768, 240);
    const cuda_case cases[] = {
        { W, H, 0.2, false, false, true },    { W, H, 0.35, true, true, true },
        { 257, 131, 0.1, true, false, true }, { 257, 131, 0.1, false, true, false },
        { 300, 200, 0.5, true, true, false }, { 1, 999, 0.2, false, true, true },
        { 500, 7, 0.3, true, false, true },   { 20, 3, 0.2, false, true, true },
        { 3, 20, 0.2, true, false, true }
    };
    std::uint64_t seed = 500;
    for (const cuda_case& cc : cases) {
        const frame f = noisy_frame(
            cc.width, cc.height, two_pi, cc.noise, ++seed, cc.inputs, cc.inputs);
        for (std::size_t window : { 1, 5, 15 }) {
            auto config =
                make_config("cpu", cc.width, cc.height, unwrap_2d_method::reliability);
            config.wrap_around_x = cc.wrap_x;
            config.wrap_around_y = cc.wrap_y;
            config.gradient_window = window;
            const auto cpu = run(*phase_unwrapper_2d::make(config), f);
            config.device = "cuda";
            const auto cuda = run(*phase_unwrapper_2d::make(config), f);
            std::ostringstream what;
            what << cc.width << "x" << cc.height << " wrap " << cc.wrap_x << cc.wrap_y
                 << " inputs " << cc.inputs << " window " << window;
            assert_bit_identical(cpu, cuda, what.str());
        }
    }
}

void qa_phase_unwrap_2d::cuda_least_squares_agrees_with_cpu(const std::string&)
{
    // Smooth outputs within 1e-3 periods (two float32 solvers, different transforms
    // and summation orders, PCG stopped at 1e-6); congruent K identical on at least
    // 99.9% of the valid pixels of a noisy field, everywhere on a noise-free one.
    struct ls_case {
        std::size_t width, height;
        double noise;
        bool weight, mask;
    };
    // Under a sanitizer the large frames shrink (still several transform blocks).
    const std::size_t W = qa::scaled<std::size_t>(1024, 320);
    const std::size_t H = qa::scaled<std::size_t>(768, 240);
    const ls_case cases[] = { { W, H, 0.0, false, false },
                              { W, H, 0.0, true, true },
                              { W / 2, H / 2, 0.15, false, false },
                              { 400, 300, 0.15, true, true },
                              { 333, 1, 0.1, false, false } };
    std::uint64_t seed = 900;
    for (const ls_case& lc : cases) {
        const frame f = noisy_frame(lc.width,
                                    lc.height,
                                    two_pi,
                                    lc.noise,
                                    ++seed,
                                    lc.weight,
                                    lc.mask,
                                    lc.noise > 0.0 ? 0.01 : 0.0);
        std::ostringstream what;
        what << lc.width << "x" << lc.height << " noise " << lc.noise << " weight "
             << lc.weight << " mask " << lc.mask;
        const auto valid = qa::reference_valid_pixels(f);
        for (bool congruent : { true, false }) {
            auto config =
                make_config("cpu", lc.width, lc.height, unwrap_2d_method::least_squares);
            config.tolerance = 1e-6;
            config.max_iterations = 500;
            config.congruent = congruent;
            const auto cpu = run(*phase_unwrapper_2d::make(config), f);
            config.device = "cuda";
            const auto cuda = run(*phase_unwrapper_2d::make(config), f);
            if (congruent)
                check_outputs_consistent(cuda, f, valid, two_pi, what.str());
            CPPUNIT_ASSERT_EQUAL(cpu.report.valid_pixels, cuda.report.valid_pixels);
            CPPUNIT_ASSERT_EQUAL(cpu.report.iterations == 0, cuda.report.iterations == 0);
            CPPUNIT_ASSERT(cuda.report.relative_residual <= 1e-6);
            const std::size_t valid_count = cuda.report.valid_pixels;
            const std::size_t differing = count_differing_cycles(cpu, cuda, valid);
            for (std::size_t i = 0; i < valid.size(); ++i) {
                if (valid[i] && !congruent &&
                    !(std::fabs(cpu.unwrapped[i] - cuda.unwrapped[i]) <= 1e-3 * two_pi))
                    fail_at(what.str() + " smooth",
                            i,
                            std::to_string(cuda.unwrapped[i]) + " vs CPU " +
                                std::to_string(cpu.unwrapped[i]));
            }
            if (lc.noise == 0.0)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(what.str(), std::size_t(0), differing);
            else
                CPPUNIT_ASSERT_MESSAGE(what.str() + ": " + std::to_string(differing) +
                                           " K differ",
                                       differing * 1000 <= valid_count);
        }
    }
}

void qa_phase_unwrap_2d::cuda_device_buffers(const std::string&)
{
    const std::size_t W = 301, H = 203;
    const frame f = noisy_frame(W, H, two_pi, 0.2, 1234, true, true);
    for (auto method :
         { unwrap_2d_method::reliability, unwrap_2d_method::least_squares }) {
        const bool reliability = method == unwrap_2d_method::reliability;
        const auto valid = qa::reference_valid_pixels(f);
        auto engine = phase_unwrapper_2d::make(make_config("cuda", W, H, method));
        const auto host = run(*engine, f);

        cuda_stream stream;
        for (cuda_stream_t s : { static_cast<cuda_stream_t>(nullptr), stream.get() }) {
            const outputs o = qa::run_unwrap_2d_on_device(*engine, f, s, poison_cycles);
            const std::string what = std::string("device buffers, ") + to_string(method) +
                                     (s ? ", caller's stream" : ", own stream");
            // The same engine and frame through host and device buffers: the
            // reliability method to the bit; least squares (whose float32 sums
            // the backend may order differently) to the congruent K.
            check_outputs_consistent(o, f, valid, two_pi, what);
            if (reliability)
                assert_bit_identical(host, o, what);
            else
                CPPUNIT_ASSERT_MESSAGE(what,
                                       1000 * count_differing_cycles(host, o, valid) <=
                                           o.report.valid_pixels);
        }
        if (reliability)
            check_reliability_reference(host,
                                        f,
                                        two_pi,
                                        false,
                                        false,
                                        engine->config().gradient_window,
                                        agreement::exact,
                                        "cuda host path");
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
