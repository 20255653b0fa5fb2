/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_DENSE_OFFSETS_H
#define INCLUDED_CUDADSP_QA_DENSE_OFFSETS_H

// The fixture of qa_dense_offsets (the dense-offset estimator, CPU and CUDA
// backends), its cases in one file per concern, and what they share: the
// speckle image pairs of known offsets, the engine run with its outputs
// poisoned, the configurations, the comparison with the float64 reference.

#include "qa_float_bits.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

const double pi = 3.14159265358979323846;

//! Relative tolerance of SNR, covariance and peak against the float64 reference.
const double stats_rel = 1e-3;

using qa::gaussian_source;
using qa::poison_nan;
using qa::poisoned;

//! A rows x cols row-major float64 array.
template <typename T>
struct grid2 {
    int rows = 0, cols = 0;
    std::vector<T> v;
    grid2() = default;
    grid2(int r, int c) : rows(r), cols(c), v(std::size_t(r) * c) {}
    T& operator()(int i, int j) { return v[std::size_t(i) * cols + j]; }
    const T& operator()(int i, int j) const { return v[std::size_t(i) * cols + j]; }
};

struct image_pair {
    int rows = 0, cols = 0;
    grid2<cdouble> ref, sec; // float64 values (for the reference)
    std::vector<cfloat> ref32, sec32;
    std::vector<std::int16_t> ref16, sec16;

    image_view view(bool secondary, slc_sample_type type) const
    {
        image_view v;
        v.type = type;
        v.width = std::size_t(cols);
        v.height = std::size_t(rows);
        if (type == slc_sample_type::complex_float32)
            v.data = secondary ? static_cast<const void*>(sec32.data()) : ref32.data();
        else
            v.data = secondary ? static_cast<const void*>(sec16.data()) : ref16.data();
        return v;
    }
    //! The float64 images take the float32 values (what the engines read).
    void finish(bool quantise)
    {
        ref32.resize(ref.v.size());
        sec32.resize(sec.v.size());
        ref16.resize(2 * ref.v.size());
        sec16.resize(2 * sec.v.size());
        auto fill = [&](grid2<cdouble>& g,
                        std::vector<cfloat>& f,
                        std::vector<std::int16_t>& s) {
            for (std::size_t i = 0; i < g.v.size(); ++i) {
                if (quantise)
                    g.v[i] = { std::round(g.v[i].real()), std::round(g.v[i].imag()) };
                f[i] = cfloat(float(g.v[i].real()), float(g.v[i].imag()));
                g.v[i] = cdouble(f[i].real(), f[i].imag());
                s[2 * i] = std::int16_t(std::clamp(g.v[i].real(), -32768.0, 32767.0));
                s[2 * i + 1] = std::int16_t(std::clamp(g.v[i].imag(), -32768.0, 32767.0));
            }
        };
        fill(ref, ref32, ref16);
        fill(sec, sec32, sec16);
    }
};

/*!
 * Band-limited complex speckle (\p band of each axis' frequencies) on an n x n grid
 * (n a power of two), and the secondary with its content moved by d(col) =
 * (d_down + g_down (col - n/2), d_across + g_across (col - n/2)) pixels:
 * secondary(row, col) = reference(row - d_down(col), col - d_across(col)), evaluated
 * exactly from the spectrum. Values scaled to a standard deviation of \p scale per
 * component, quantised to integers when \p quantise.
 */
image_pair speckle_pair(int n,
                        double band,
                        double d_down,
                        double d_across,
                        double g_down,
                        double g_across,
                        double scale,
                        bool quantise,
                        std::uint64_t seed,
                        double ramp_down = 0.0,
                        double ramp_across = 0.0);

offset_result poison_result();

std::vector<offset_result> run(dense_offsets_estimator& e,
                               const image_pair& p,
                               const std::vector<offset_window>& windows,
                               slc_sample_type type = slc_sample_type::complex_float32);

std::vector<offset_window>
grid_windows(int start, int skip, int nd, int na, int gross_d = 0, int gross_a = 0);

bool close_rel(double a, double b, double rel);

//! A configuration with equal half searches and deramp average.
dense_offsets_config make_config(const std::string& device,
                                 int h,
                                 int w,
                                 int half_search,
                                 int r,
                                 int q,
                                 int zoom,
                                 int stat);

dense_offsets_config small_config(const std::string& device);

/*!
 * Compares engine results with the float64 reference of qa_dense_offsets.cc,
 * window by window (the agreement stated at the top of that file).
 */
void compare_with_reference(const dense_offsets_config& cfg,
                            const image_pair& p,
                            const std::vector<offset_window>& windows,
                            const std::vector<offset_result>& got,
                            const std::string& what);

class qa_dense_offsets : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_dense_offsets);
    CPPUNIT_TEST(config_errors_name_the_field);
    CPPUNIT_TEST(grid_and_gross_offsets);
    QA_BACKEND_TEST(matches_reference);
    QA_BACKEND_TEST(recovers_constant_offset);
    QA_BACKEND_TEST(recovers_linear_offset);
    QA_BACKEND_TEST(gross_offset_and_merge);
    QA_BACKEND_TEST(invalid_windows);
    QA_BACKEND_TEST(window_errors_name_window_and_image);
    QA_BACKEND_TEST(sample_types_and_engine_reuse);
    QA_BACKEND_TEST(progress_reports);
    QA_BACKEND_TEST(isce3_pair);
    QA_CUDA_TEST(cpu_and_cuda_agree);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_dense_offsets.cc: against the float64 reference
    void matches_reference(const std::string& device);
    void isce3_pair(const std::string& device);

    // qa_dense_offsets_truth.cc: known offsets recovered
    void recovers_constant_offset(const std::string& device);
    void recovers_linear_offset(const std::string& device);
    void gross_offset_and_merge(const std::string& device);

    // qa_dense_offsets_validation.cc: bad configurations, grids and windows
    void config_errors_name_the_field();
    void grid_and_gross_offsets();
    void invalid_windows(const std::string& device);
    void window_errors_name_window_and_image(const std::string& device);

    // qa_dense_offsets_engine_use.cc: sample types, reuse, progress
    void sample_types_and_engine_reuse(const std::string& device);
    void progress_reports(const std::string& device);

    // qa_dense_offsets_backends.cc: CUDA against CPU
    void cpu_and_cuda_agree(const std::string& device);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_DENSE_OFFSETS_H */
