/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_ST_TBD_H
#define INCLUDED_CUDADSP_QA_ST_TBD_H

// The fixture of qa_st_tbd, its cases in one file per concern, and what they
// share (defined in qa_st_tbd_support.cc).
//
// Track-before-detect engine: CPU backend and the four CUDA variants (generic and
// generated kernel, software and texture bilinear) against a float64 reference written
// here from the equations of include/gnuradio/cudadsp/core/st_tbd.h (it does not use
// lib/core/tbd/st_tbd_rule.h), on random non-zero inputs from fixed seeds.
//
// Tolerances.
// - Software bilinear (CPU, CUDA software): the float32 state differs from the float64
//   reference by rounding alone. One frame rounds each term of the motion update a few
//   times (the bilinear weights, three lerps, the product by w, the sum over K
//   transitions: at most 6 + K roundings of a term no larger than S * Pmax, S the
//   largest sum of |w| of a hypothesis) and the information update twice. Errors of
//   the previous frame are carried with a factor alpha * S <= 1, so they add up at most
//   linearly: after t frames |P - P_ref| <= t * (8 + K) * 2^-24 * (S Pmax + Xmax) with
//   Pmax the largest |P_ref| so far. The test allows four times that.
// - Texture bilinear: the texture unit keeps each fractional coordinate in 8
//   fractional bits (|error| < 1/256) after rounding the float coordinate (at most
//   half an ulp of a coordinate below 2^13 cells: 2^-11), so each interpolation weight
//   is off by at most q = 1/256 + 1/2048 per axis and a sample by at most
//   (2 q + q^2) (max - min of its four cells). The test carries that bound through the
//   recursion cell by cell with the reference:
//     E_t[m](x, y) = alpha * sum_k |w_k| ((2q + q^2) range_k + max of E_{t-1} over the
//                    four cells read) + the rounding allowance above.
// - Reordering the generated kernel's lines changes only the order of a float32 sum of
//   K terms per hypothesis: two orders differ by at most 2 (K - 1) 2^-24 sum|terms| per
//   frame, covered by the software tolerance.
// - argmax is compared where the reference's best hypothesis leads the second by more

#include "qa_support.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

const float nanf_ = std::numeric_limits<float>::quiet_NaN();
const float inff_ = std::numeric_limits<float>::infinity();
const double eps32 = std::ldexp(1.0, -24);
//! Weight error per axis of the texture unit (see the file comment).
const double texture_q = 1.0 / 256.0 + 1.0 / 2048.0;
const std::int32_t argmax_poison = -77;

struct reference {
    const st_tbd_config c;
    std::size_t w, h, m_count;
    std::vector<double> P; //!< M * h * w
    std::vector<double> E; //!< texture error bound, same shape
    double pmax = 0.0, xmax = 0.0, sabs = 0.0;
    std::size_t kmax = 0;
    std::size_t frames = 0;
    double alpha;

    explicit reference(const st_tbd_config& config)
        : c(config),
          w(config.width),
          h(config.height),
          m_count(config.hypotheses.size()),
          P(m_count * w * h, 0.0),
          E(m_count * w * h, 0.0),
          alpha(config.alpha)
    {
        for (const auto& hy : c.hypotheses) {
            double s = 0.0;
            for (const auto& t : hy.transitions)
                s += std::fabs(double(t.weight));
            sabs = std::max(sabs, s);
            kmax = std::max(kmax, hy.transitions.size());
        }
    }

    double cell(const std::vector<double>& a, std::size_t m, long x, long y) const
    {
        if (x < 0 || y < 0 || x >= long(w) || y >= long(h))
            return 0.0;
        return a[(m * h + std::size_t(y)) * w + std::size_t(x)];
    }

    //! Bilinear value at (u, v) of plane m; range and the largest carried error too.
    double sample(std::size_t m, double u, double v, double& range, double& carried) const
    {
        const double fu = std::floor(u), fv = std::floor(v);
        const double a = u - fu, b = v - fv;
        const long x0 = long(fu), y0 = long(fv);
        const double p00 = cell(P, m, x0, y0), p01 = cell(P, m, x0 + 1, y0);
        const double p10 = cell(P, m, x0, y0 + 1), p11 = cell(P, m, x0 + 1, y0 + 1);
        range = std::max({ p00, p01, p10, p11 }) - std::min({ p00, p01, p10, p11 });
        carried = std::max({ cell(E, m, x0, y0),
                             cell(E, m, x0 + 1, y0),
                             cell(E, m, x0, y0 + 1),
                             cell(E, m, x0 + 1, y0 + 1) });
        return (1 - a) * (1 - b) * p00 + a * (1 - b) * p01 + (1 - a) * b * p10 +
               a * b * p11;
    }

    //! One frame; returns the tolerance of the software path for this frame's P.
    void step(const float* x)
    {
        std::vector<double> next(P.size()), enext(P.size());
        for (std::size_t i = 0; i < w * h; ++i)
            if (std::isfinite(x[i]))
                xmax = std::max(xmax, std::fabs(double(x[i])));
        for (std::size_t m = 0; m < m_count; ++m)
            for (std::size_t y = 0; y < h; ++y)
                for (std::size_t xx = 0; xx < w; ++xx) {
                    double v = 0.0, e = 0.0;
                    for (const auto& t : c.hypotheses[m].transitions) {
                        double range, carried;
                        v += double(t.weight) * sample(std::size_t(t.source),
                                                       double(xx) - double(t.dx),
                                                       double(y) - double(t.dy),
                                                       range,
                                                       carried);
                        e += std::fabs(double(t.weight)) *
                             ((2 * texture_q + texture_q * texture_q) * range + carried);
                    }
                    const float in = x[y * w + xx];
                    const double xin = std::isfinite(in) ? double(in) : 0.0;
                    const std::size_t i = (m * h + y) * w + xx;
                    next[i] = alpha * v + (1.0 - alpha) * xin;
                    enext[i] = alpha * e;
                }
        P.swap(next);
        E.swap(enext);
        for (double p : P)
            pmax = std::max(pmax, std::fabs(p));
        ++frames;
    }

    double software_tolerance() const
    {
        return 4.0 * double(frames) * double(8 + kmax) * eps32 * (sabs * pmax + xmax) +
               1e-30;
    }

    double D(std::size_t x,
             std::size_t y,
             std::size_t* arg = nullptr,
             double* lead = nullptr) const
    {
        double best = -std::numeric_limits<double>::infinity(), second = best;
        std::size_t a = 0;
        for (std::size_t m = 0; m < m_count; ++m) {
            const double p = P[(m * h + y) * w + x];
            if (p > best) {
                second = best;
                best = p;
                a = m;
            } else if (p > second) {
                second = p;
            }
        }
        if (arg)
            *arg = a;
        if (lead)
            *lead = best - second;
        return best;
    }
};

//! The detection rule written from the header, applied to a map (float32 values).
std::vector<tbd_detection> reference_detections(const std::vector<float>& map,
                                                const std::vector<std::int32_t>& argmax,
                                                const st_tbd_config& c,
                                                std::uint64_t frame);

std::vector<float>
gaussian_frames(std::size_t n, double mean, double sigma, std::uint64_t seed);

//! Random hypotheses: fractional shifts of both signs, several sources each.
std::vector<tbd_hypothesis> random_hypotheses(std::size_t m_count,
                                              std::size_t max_transitions,
                                              double max_shift,
                                              std::uint64_t seed);

st_tbd_config random_config(std::size_t w, std::size_t h, std::uint64_t seed);

struct run_output {
    std::vector<float> map;
    std::vector<std::int32_t> argmax;
    std::vector<float> state;
    std::vector<tbd_detection> detections;
};

//! Runs \p frames through \p engine in calls of \p per_call frames, outputs poisoned.
run_output run(st_tbd& engine, const std::vector<float>& frames, std::size_t per_call);

std::string describe(const st_tbd_config& c);

/*!
 * Runs \p config on \p frames (split into calls) and checks every frame's D and
 * argmax and the final state against the reference. texture: the texture bound.
 */
void check_against_reference(const st_tbd_config& config,
                             const std::vector<float>& frames,
                             std::size_t per_call,
                             bool texture,
                             const std::string& what);

template <typename F>
void expect_invalid(F&& f, const std::string& field)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        if (msg.find(field) == std::string::npos)
            CPPUNIT_FAIL("error \"" + msg + "\" does not name " + field);
        return;
    }
    CPPUNIT_FAIL("no std::invalid_argument for " + field);
}

//! A scene with clear targets: two movers on Gaussian noise.
std::vector<float>
target_scene(std::size_t w, std::size_t h, std::size_t n, std::uint64_t seed);

class qa_st_tbd : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_st_tbd);
    CPPUNIT_TEST(bad_configuration);
    CPPUNIT_TEST(velocity_grid_structure);
    CPPUNIT_TEST(lines_are_hypothesis_major);
    CPPUNIT_TEST(cpu_random_transitions);
    CPPUNIT_TEST(cpu_large_shifts_and_border);
    CPPUNIT_TEST(cpu_whole_cell_shift_known_truth);
    CPPUNIT_TEST(cpu_velocity_grid_scene);
    CPPUNIT_TEST(cpu_argmax_ties);
    CPPUNIT_TEST(cpu_detection_rule);
    CPPUNIT_TEST(cpu_max_detections_keeps_largest);
    CPPUNIT_TEST(cpu_non_finite_input);
    CPPUNIT_TEST(cpu_reset_and_setters);
    CPPUNIT_TEST(cpu_frame_time_keeps_state);
    CPPUNIT_TEST(cpu_outputs_optional);
    CPPUNIT_TEST(generated_source_compiles_with_nvrtc);
    QA_BACKEND_TEST(float_argmax);
    QA_CUDA_TEST(generic_kernel_software_bilinear);
    QA_CUDA_TEST(generic_kernel_texture_bilinear);
    QA_CUDA_TEST(generated_kernel_software_bilinear);
    QA_CUDA_TEST(generated_kernel_texture_bilinear);
    QA_CUDA_TEST(auto_choice);
    QA_CUDA_TEST(detections_match_cpu);
    QA_CUDA_TEST(line_order_permutation);
    QA_CUDA_TEST(device_entry_point);
    QA_CUDA_TEST(caller_stream_destroyed_before_engine);
    QA_CUDA_TEST(reset_and_frame_time);
    QA_CUDA_TEST(autotune_and_cache);
    QA_CUDA_TEST(pinned_host_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_st_tbd.cc: against the reference and known truth
    void cpu_random_transitions();
    void cpu_large_shifts_and_border();
    void cpu_whole_cell_shift_known_truth();
    void cpu_velocity_grid_scene();
    void cpu_argmax_ties();
    void cpu_detection_rule();
    void cpu_max_detections_keeps_largest();
    void float_argmax(const std::string& device);

    // qa_st_tbd_config.cc: the configuration and the hypotheses
    void bad_configuration();
    void velocity_grid_structure();
    void lines_are_hypothesis_major();

    // qa_st_tbd_engine_use.cc: state over frames, inputs and outputs
    void cpu_non_finite_input();
    void cpu_reset_and_setters();
    void cpu_frame_time_keeps_state();
    void cpu_outputs_optional();

    // qa_st_tbd_cuda_kernels.cc: the CUDA kernels
    void generated_source_compiles_with_nvrtc();
    void generic_kernel_software_bilinear(const std::string&);
    void generic_kernel_texture_bilinear(const std::string&);
    void generated_kernel_software_bilinear(const std::string&);
    void generated_kernel_texture_bilinear(const std::string&);
    void auto_choice(const std::string&);
    void detections_match_cpu(const std::string&);
    void line_order_permutation(const std::string&);
    void autotune_and_cache(const std::string&);

    // qa_st_tbd_device.cc: the device entry point, device state, host buffers
    void device_entry_point(const std::string&);
    void caller_stream_destroyed_before_engine(const std::string&);
    void reset_and_frame_time(const std::string&);
    void pinned_host_buffers(const std::string&);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_ST_TBD_H */
