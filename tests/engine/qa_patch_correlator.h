/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_PATCH_CORRELATOR_H
#define INCLUDED_CUDADSP_QA_PATCH_CORRELATOR_H

// The fixture of qa_patch_correlator (the patch correlator, CPU and CUDA
// backends), its cases in one file per concern, and what they share: synthetic
// speckle patches and images of known offsets, the configurations, the engine
// run with its outputs poisoned.

#include "qa_fft_reference.h"
#include "qa_float_bits.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

const double pi = 3.14159265358979323846;
//! Relative difference below which two candidate peaks are a float32 tie.
const double tie_rel = 2e-5;

using qa::poison_nan;
using qa::poisoned;

const std::int32_t poison_int = -2109876543;

patch_result poison_result();

inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool identical(const patch_result& a, const patch_result& b);

std::string str(const patch_result& r);

using qa::fft;
using qa::fft2;
using qa::gaussian_source;
using qa::pow2_at_least;

//! Patches for one engine call: npatches * npy * npx complex samples per image.
struct patch_set {
    int npx = 0, npy = 0;
    std::vector<cfloat> master, aligned;
    std::vector<double> truth_dx, truth_dy; //!< content offset (aligned - master), pixels
    std::size_t count() const { return master.size() / (std::size_t(npx) * npy); }
    const cfloat* m(std::size_t k) const { return master.data() + k * npx * npy; }
    const cfloat* a(std::size_t k) const { return aligned.data() + k * npx * npy; }
    std::size_t add()
    {
        master.resize(master.size() + std::size_t(npx) * npy);
        aligned.resize(aligned.size() + std::size_t(npx) * npy);
        truth_dx.push_back(0.0);
        truth_dy.push_back(0.0);
        return count() - 1;
    }
};

/*!
 * A pair of band-limited complex speckle fields (bandwidth 0.8 of each axis) of
 * rows x cols (powers of two): the aligned one has its content moved by (dy, dx)
 * (aligned[n] = master[n - d], exact Fourier shift) and decorrelated to coherence
 * \p coh. Both quantised to integers (std about \p scale per component).
 */
void speckle_pair(long rows,
                  long cols,
                  double dy,
                  double dx,
                  double coh,
                  double scale,
                  gaussian_source& g,
                  std::vector<cdouble>& master,
                  std::vector<cdouble>& aligned);

/*! Adds a patch pair whose aligned content is moved by (dy, dx) pixels, cut from the
 *  middle of speckle fields twice the patch size. */
void add_shifted_patch(patch_set& s,
                       double dy,
                       double dx,
                       double coh,
                       gaussian_source& g,
                       double scale = 1000);

patch_correlator_config make_config(const std::string& device,
                                    int xs,
                                    int ys,
                                    int ri,
                                    int ifc = 16,
                                    bool highres = true,
                                    std::size_t batch = 0);

std::string describe(const patch_correlator_config& c, const std::string& what = "");

void check_written(const std::vector<patch_result>& r, const std::string& what);

std::vector<patch_result>
run_engine(patch_correlator& e, const patch_set& s, const std::string& what);

std::vector<patch_result> run_engine(const patch_correlator_config& c,
                                     const patch_set& s);

/*! Random patch pairs for geometry \p c: offsets within half the search range,
 *  coherence 0.6 .. 0.95 (a few at 1). */
patch_set
random_patches(const patch_correlator_config& c, std::size_t count, std::uint64_t seed);

//! Window rows of \p image (width W) at (col, row): npy x npx complex floats.
template <typename T>
void cut(const std::vector<T>& image,
         long W,
         long col,
         long row,
         int npx,
         int npy,
         cfloat* out)
{
    for (int r = 0; r < npy; ++r)
        for (int c = 0; c < npx; ++c) {
            const std::size_t i = 2 * ((row + r) * W + col + c);
            out[r * npx + c] = cfloat(float(image[i]), float(image[i + 1]));
        }
}

//! An image pair (int16 I/Q) with patch pairs on a GMTSAR-like grid.
struct image_pair {
    long W = 0, H = 0;
    std::vector<std::int16_t> master, aligned;
    std::vector<patch_pair> pairs;

    image_view view(bool is_aligned) const
    {
        return { is_aligned ? aligned.data() : master.data(),
                 slc_sample_type::complex_int16,
                 std::size_t(W),
                 std::size_t(H) };
    }
    //! The pairs' windows as a patch set (what correlate() must extract).
    patch_set patches(int npx, int npy) const
    {
        patch_set s;
        s.npx = npx;
        s.npy = npy;
        for (const auto& p : pairs) {
            const std::size_t k = s.add();
            cut(master,
                W,
                long(p.master_col),
                long(p.master_row),
                npx,
                npy,
                s.master.data() + k * npx * npy);
            cut(aligned,
                W,
                long(p.aligned_col),
                long(p.aligned_row),
                npx,
                npy,
                s.aligned.data() + k * npx * npy);
        }
        return s;
    }
};

/*!
 * A W x H pair with content offset (dy, dx) at coherence 0.9, built from tiles of
 * speckle fields; patches of \p c on nx x ny grid positions in strip order (GMTSAR's
 * get_locations), the aligned windows moved by (ashift, rshift).
 */
image_pair make_image_pair(const patch_correlator_config& c,
                           long W,
                           long H,
                           int nx,
                           int ny,
                           int rshift,
                           int ashift,
                           std::uint64_t seed);

class qa_patch_correlator : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_patch_correlator);
    CPPUNIT_TEST(reference_self_check);
    CPPUNIT_TEST(config_validation);
    CPPUNIT_TEST(cpu_engine_has_no_device_entry);
    QA_BACKEND_TEST(against_reference);
    QA_BACKEND_TEST(default_geometry);
    QA_BACKEND_TEST(integer_shifts);
    QA_BACKEND_TEST(degenerate_patches);
    QA_BACKEND_TEST(images);
    QA_BACKEND_TEST(windows_leaving_the_image);
    QA_BACKEND_TEST(progress_and_timing);
    QA_CUDA_TEST(pinned_and_pageable);
    QA_CUDA_TEST(batch_invariance);
    QA_CUDA_TEST(device_entry);
    QA_CUDA_TEST(matches_cpu);
    CPPUNIT_TEST_SUITE_END();

public:
    // qa_patch_correlator.cc: the reference itself, the engines against it
    void reference_self_check();
    void against_reference(const std::string& device);
    void default_geometry(const std::string& device);
    void integer_shifts(const std::string& device);
    void degenerate_patches(const std::string& device);
    void matches_cpu(const std::string&);

    // qa_patch_correlator_images.cc: correlate() on images
    void images(const std::string& device);
    void windows_leaving_the_image(const std::string& device);
    void progress_and_timing(const std::string& device);

    // qa_patch_correlator_validation.cc: bad configurations
    void config_validation();

    // qa_patch_correlator_device.cc: device entry points, the CUDA backend alone
    void cpu_engine_has_no_device_entry();
    void pinned_and_pageable(const std::string&);
    void batch_invariance(const std::string&);
    void device_entry(const std::string&);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_PATCH_CORRELATOR_H */
