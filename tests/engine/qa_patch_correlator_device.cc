/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_correlator: the device entry point and the CUDA backend alone. The CPU
// engine has no device entry; pinned and pageable host buffers, batch sizes, the
// device entry point on a caller's stream.

#include "qa_patch_correlator.h"
#include "runtime/cuda_resources.h"
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_patch_correlator::cpu_engine_has_no_device_entry()
{
    auto e = patch_correlator::make(make_config("cpu", 8, 8, 1));
    CPPUNIT_ASSERT_THROW(e->correlate_patches_device(nullptr, nullptr, 1, nullptr),
                         std::logic_error);
}

//! Pinned and pageable host images and patches give identical results.
void qa_patch_correlator::pinned_and_pageable(const std::string&)
{
    const auto c = make_config("cuda", 16, 16, 2, 16, true, 5);
    const auto p = make_image_pair(c, 500, 700, 5, 7, 2, -4, 99);
    auto e = patch_correlator::make(c);
    std::vector<patch_result> pageable(p.pairs.size(), poison_result());
    e->correlate(
        p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), pageable.data());
    check_written(pageable, "pageable images");
    const std::size_t bytes = p.master.size() * sizeof(std::int16_t);
    pinned_buffer<std::int16_t> pm(p.master.size()), pa(p.aligned.size());
    std::memcpy(pm.get(), p.master.data(), bytes);
    std::memcpy(pa.get(), p.aligned.data(), bytes);
    pinned_buffer<patch_result> pr(p.pairs.size());
    std::fill(pr.get(), pr.get() + p.pairs.size(), poison_result());
    const image_view vm{
        pm.get(), slc_sample_type::complex_int16, std::size_t(p.W), std::size_t(p.H)
    };
    const image_view va{
        pa.get(), slc_sample_type::complex_int16, std::size_t(p.W), std::size_t(p.H)
    };
    e->correlate(vm, va, p.pairs.data(), p.pairs.size(), pr.get());
    for (std::size_t k = 0; k < p.pairs.size(); ++k)
        CPPUNIT_ASSERT_MESSAGE("pinned images patch " + std::to_string(k),
                               identical(pr.get()[k], pageable[k]));
    // Patches: pinned and pageable buffers.
    const auto s = p.patches(c.npx(), c.npy());
    const auto r_pageable = run_engine(*e, s, "pageable patches");
    pinned_buffer<cfloat> sm(s.master.size()), sa(s.aligned.size());
    std::copy(s.master.begin(), s.master.end(), sm.get());
    std::copy(s.aligned.begin(), s.aligned.end(), sa.get());
    std::fill(pr.get(), pr.get() + s.count(), poison_result());
    e->correlate_patches(sm.get(), sa.get(), s.count(), pr.get());
    for (std::size_t k = 0; k < s.count(); ++k) {
        CPPUNIT_ASSERT_MESSAGE("pinned patches patch " + std::to_string(k),
                               identical(pr.get()[k], r_pageable[k]));
        CPPUNIT_ASSERT_MESSAGE("images vs patches patch " + std::to_string(k),
                               identical(r_pageable[k], pageable[k]));
    }
}

//! Batch sizes 1, 3, 7, 64 and the default give identical results.
void qa_patch_correlator::batch_invariance(const std::string&)
{
    for (int ri : { 1, 2 }) {
        const auto c0 = make_config("cuda", 16, 16, ri);
        const auto s = random_patches(c0, 50, 4242 + ri);
        const auto whole = run_engine(c0, s);
        for (std::size_t batch : { 1, 3, 7, 64 }) {
            const auto c = make_config("cuda", 16, 16, ri, 16, true, batch);
            const auto r = run_engine(c, s);
            for (std::size_t k = 0; k < r.size(); ++k)
                CPPUNIT_ASSERT_MESSAGE(describe(c, " patch " + std::to_string(k)) + ": " +
                                           str(r[k]) + " vs " + str(whole[k]),
                                       identical(r[k], whole[k]));
        }
    }
}

//! correlate_patches_device on a caller's stream equals correlate_patches.
void qa_patch_correlator::device_entry(const std::string&)
{
    const auto c = make_config("cuda", 16, 32, 2, 16, true, 6);
    const auto s = random_patches(c, 20, 555);
    auto e = patch_correlator::make(c);
    const auto expected = run_engine(*e, s, "host patches");
    device_buffer<cfloat> dm(s.master.size()), da(s.aligned.size());
    device_buffer<patch_result> dr(s.count());
    cuda_stream stream;
    CUDADSP_CUDA(
        cudaMemcpy(dm.get(), s.master.data(), dm.bytes(), cudaMemcpyHostToDevice));
    CUDADSP_CUDA(
        cudaMemcpy(da.get(), s.aligned.data(), da.bytes(), cudaMemcpyHostToDevice));
    std::vector<patch_result> r(s.count(), poison_result());
    CUDADSP_CUDA(cudaMemcpy(dr.get(), r.data(), dr.bytes(), cudaMemcpyHostToDevice));
    e->correlate_patches_device(dm.get(), da.get(), s.count(), dr.get(), stream.get());
    stream.synchronize();
    CUDADSP_CUDA(cudaMemcpy(r.data(), dr.get(), dr.bytes(), cudaMemcpyDeviceToHost));
    check_written(r, "device entry");
    for (std::size_t k = 0; k < r.size(); ++k)
        CPPUNIT_ASSERT_MESSAGE("device entry patch " + std::to_string(k),
                               identical(r[k], expected[k]));
    // The caller's patches are left intact.
    std::vector<cfloat> back(s.master.size());
    for (int img = 0; img < 2; ++img) {
        CUDADSP_CUDA(cudaMemcpy(
            back.data(), img ? da.get() : dm.get(), dm.bytes(), cudaMemcpyDeviceToHost));
        CPPUNIT_ASSERT_MESSAGE("device entry: input overwritten",
                               std::memcmp(back.data(),
                                           img ? s.aligned.data() : s.master.data(),
                                           dm.bytes()) == 0);
    }
    // The engine's own stream, then the host entry again: ordered.
    e->correlate_patches_device(dm.get(), da.get(), s.count(), dr.get());
    const auto again = run_engine(*e, s, "host patches again");
    for (std::size_t k = 0; k < r.size(); ++k)
        CPPUNIT_ASSERT(identical(again[k], expected[k]));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
