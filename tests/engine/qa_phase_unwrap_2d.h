/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_PHASE_UNWRAP_2D_H
#define INCLUDED_CUDADSP_QA_PHASE_UNWRAP_2D_H

// The fixture of qa_phase_unwrap_2d, its cases in one file per concern, and what
// they share (defined in qa_phase_unwrap_2d_support.cc).
//
// Two-dimensional phase-unwrap engine, CPU and CUDA backends: against known truth
// (noise-free analytic fields, whose whole periods are known), against the float64
// references of qa_unwrap_2d_reference.h (written from the documentation, not from the
// engine's rules) on noisy fields, and the CUDA backend against the CPU backend.

#include "qa_support.h"
#include "qa_unwrap_2d_reference.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cstdint>
#include <limits>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

const double two_pi = 6.283185307179586476925286766559;
const float nan_f = std::numeric_limits<float>::quiet_NaN();
//! A K no test field can have, to catch cycles never written.
constexpr std::int32_t poison_cycles = 0x7fffffff;

using frame = qa::unwrap_2d_frame;
using outputs = qa::unwrap_2d_outputs;

phase_unwrap_2d_config make_config(const std::string& device,
                                   std::size_t width,
                                   std::size_t height,
                                   unwrap_2d_method method,
                                   double period = two_pi);

//! Runs one frame with every output poisoned first; \p in_place unwraps in the
//! wrapped buffer's copy itself.
outputs run(phase_unwrapper_2d& engine, const frame& f, bool in_place = false);

//! x reduced to [-P/2, P/2) in float64, rounded once.
float wrap_phase(double x, double P);

/*! A noise-free field, in periods: a plane, a Gaussian hill of 12 periods and a
 *  saddle. Its steepest step between 4-neighbours is below 0.35 periods. */
std::vector<double> hill_plane_saddle(std::size_t width, std::size_t height);

//! A frame from a truth in periods: wrapped float32(truth * P) plus Gaussian noise of
//! \p noise_periods (no noise: 0).
frame frame_of(const std::vector<double>& truth_periods,
               std::size_t width,
               std::size_t height,
               double P,
               double noise_periods = 0.0,
               std::uint64_t seed = 1);

//! The true K of each pixel: truth = wrapped + P K (exactly, up to float rounding).
std::vector<std::int64_t>
true_cycles(const std::vector<double>& truth_periods, const frame& f, double P);

/*! Connected components of the valid pixels (4-neighbours, through the wrap-around
 *  edges where asked), numbered 1.. in row-major order of their first pixel. */
std::vector<std::int32_t> label_regions(const std::vector<std::uint8_t>& valid,
                                        std::size_t width,
                                        std::size_t height,
                                        bool wrap_x = false,
                                        bool wrap_y = false);

//! The label of the region with most pixels.
std::int32_t largest_region(const std::vector<std::int32_t>& label);

void fail_at(const std::string& what, std::size_t i, const std::string& detail);

/*!
 * Invalid pixels give NaN, K 0 and component 0; valid ones unwrapped = wrapped + P K
 * (the documented rounding) for the K the engine reports.
 */
void check_outputs_consistent(const outputs& o,
                              const frame& f,
                              const std::vector<std::uint8_t>& valid,
                              double P,
                              const std::string& what);

/*!
 * Within each region of \p regions (or only \p only_region when > 0), K - true K is
 * one constant; with \p first_is_zero, the constant that gives the region's first
 * pixel K = 0, and the components output is the region numbering.
 */
void check_against_truth(const outputs& o,
                         const std::vector<std::int64_t>& truth,
                         const std::vector<std::int32_t>& regions,
                         bool first_is_zero,
                         const std::string& what,
                         std::int32_t only_region = 0);

//! How closely the reliability method must follow the reference.
enum class agreement {
    //! Every K. Asserted only where the reference measured no join near half a period.
    exact,
    /*! Where a window > 1 decides a join within 1e-6 periods of half a period, float64
     *  trigonometry (the reference) and the engine's float32 phasors may choose
     *  differently, and the subtree below that join follows: identical K on at least
     *  99.9 % of the valid pixels, components identical. */
    most,
};

//! The reliability method's outputs against the reference's.
void check_reliability_reference(const outputs& o,
                                 const frame& f,
                                 double P,
                                 bool wrap_x,
                                 bool wrap_y,
                                 std::size_t gradient_window,
                                 agreement level,
                                 const std::string& what);

/*!
 * A noisy frame with everything that invalidates a pixel: a masked disc (water),
 * weights uniform in [0.2, 1] with a few zero, negative, NaN or infinite, and a few
 * NaN or infinite wrapped values. \p sparse_fraction of the pixels each.
 */
frame noisy_frame(std::size_t width,
                  std::size_t height,
                  double P,
                  double noise_periods,
                  std::uint64_t seed,
                  bool with_weight,
                  bool with_mask,
                  double sparse_fraction = 0.01);

class qa_phase_unwrap_2d : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_phase_unwrap_2d);
    CPPUNIT_TEST(references_match_known_values);
    CPPUNIT_TEST(bad_configuration_and_buffers);
    QA_BACKEND_TEST(analytic_fields_are_exact);
    QA_BACKEND_TEST(invalid_pixels);
    QA_BACKEND_TEST(disconnected_regions);
    QA_BACKEND_TEST(wrap_around);
    QA_BACKEND_TEST(reliability_matches_reference);
    QA_BACKEND_TEST(guided_window_accuracy);
    QA_BACKEND_TEST(least_squares_matches_reference);
    QA_BACKEND_TEST(report_fields);
    QA_BACKEND_TEST(in_place);
    QA_BACKEND_TEST(thin_frames);
    CPPUNIT_TEST(memory_checked_before_allocation);
    QA_BACKEND_TEST(least_squares_weights_are_relative);
    CPPUNIT_TEST(relative_weight_is_the_float64_quotient_rounded);
    QA_CUDA_TEST(cuda_reliability_bit_identical_to_cpu);
    QA_CUDA_TEST(cuda_least_squares_agrees_with_cpu);
    QA_CUDA_TEST(cuda_device_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_phase_unwrap_2d.cc: the reliability method, known truth and references
    void references_match_known_values();
    void analytic_fields_are_exact(const std::string& device);
    void invalid_pixels(const std::string& device);
    void disconnected_regions(const std::string& device);
    void wrap_around(const std::string& device);
    void reliability_matches_reference(const std::string& device);
    void guided_window_accuracy(const std::string& device);

    // qa_phase_unwrap_2d_least_squares.cc: the least-squares method
    void least_squares_matches_reference(const std::string& device);
    void relative_weight_is_the_float64_quotient_rounded();
    void least_squares_weights_are_relative(const std::string& device);

    // qa_phase_unwrap_2d_engine_use.cc: the report, in place, thin frames
    void report_fields(const std::string& device);
    void in_place(const std::string& device);
    void thin_frames(const std::string& device);

    // qa_phase_unwrap_2d_validation.cc: bad configurations, buffers, memory
    void bad_configuration_and_buffers();
    void memory_checked_before_allocation();

    // qa_phase_unwrap_2d_cuda.cc: the CUDA backend against the CPU one
    void cuda_reliability_bit_identical_to_cpu(const std::string&);
    void cuda_least_squares_agrees_with_cpu(const std::string&);
    void cuda_device_buffers(const std::string&);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_PHASE_UNWRAP_2D_H */
