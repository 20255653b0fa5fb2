/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_correlator: correlate() on whole images. int16 and float32 rasters,
// windows leaving an image, the progress callback and the timings.

#include "qa_patch_correlator.h"
#include <cmath>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * correlate() on images: int16 and float32 rasters of the same samples give the
 * same results as correlate_patches() on the extracted windows (bitwise), over a
 * grid of strips (GMTSAR's order) taller than the CUDA backend's row ring, with PRM
 * shifts, then the same pairs in reverse order.
 */
void qa_patch_correlator::images(const std::string& device)
{
    for (int ri : { 1, 2 }) {
        const auto c = make_config(device, 16, 16, ri, 16, true, 7);
        const auto p = make_image_pair(c, 700, 900, 6, 9, -3, 5, 31 + ri);
        const auto s = p.patches(c.npx(), c.npy());
        auto e = patch_correlator::make(c);
        const auto expected = run_engine(*e, s, describe(c, " extracted windows"));
        std::vector<float> mf(p.master.begin(), p.master.end());
        std::vector<float> af(p.aligned.begin(), p.aligned.end());
        const image_view fm{ mf.data(),
                             slc_sample_type::complex_float32,
                             std::size_t(p.W),
                             std::size_t(p.H) };
        const image_view fa{ af.data(),
                             slc_sample_type::complex_float32,
                             std::size_t(p.W),
                             std::size_t(p.H) };
        struct variant {
            const char* name;
            image_view m, a;
        };
        for (const variant& v :
             { variant{ "int16", p.view(false), p.view(true) },
               variant{ "float32", fm, fa },
               variant{ "int16 master, float32 aligned", p.view(false), fa } }) {
            std::vector<patch_result> r(p.pairs.size(), poison_result());
            e->correlate(v.m, v.a, p.pairs.data(), p.pairs.size(), r.data());
            const std::string what = describe(c, std::string(" images ") + v.name);
            check_written(r, what);
            for (std::size_t k = 0; k < r.size(); ++k)
                CPPUNIT_ASSERT_MESSAGE(what + " patch " + std::to_string(k) + ": " +
                                           str(r[k]) + " vs " + str(expected[k]),
                                       identical(r[k], expected[k]));
        }
        // Reverse order: the rows go backwards.
        std::vector<patch_pair> rev(p.pairs.rbegin(), p.pairs.rend());
        std::vector<patch_result> r(rev.size(), poison_result());
        e->correlate(p.view(false), p.view(true), rev.data(), rev.size(), r.data());
        check_written(r, describe(c, " reversed pairs"));
        for (std::size_t k = 0; k < r.size(); ++k)
            CPPUNIT_ASSERT_MESSAGE(describe(c, " reversed pairs patch ") +
                                       std::to_string(k),
                                   identical(r[k], expected[rev.size() - 1 - k]));
        // The physical truth: content offset (2.3 + ashift, -1.4 + rshift).
        double mean_dx = 0.0, mean_dy = 0.0;
        for (const auto& x : expected) {
            mean_dx += patch_offset_dx(x, ri, -3);
            mean_dy += patch_offset_dy(x, 5, 0);
        }
        mean_dx /= double(expected.size());
        mean_dy /= double(expected.size());
        std::cout << "qa_patch_correlator: " << describe(c, " images") << ": mean dx "
                  << mean_dx << " (truth -4.4), mean dy " << mean_dy << " (truth 7.3)"
                  << std::endl;
        // ri 2: half-width range patches, biased towards half pixels (design note
        // section 10).
        CPPUNIT_ASSERT(std::fabs(mean_dx + 4.4) < (ri == 1 ? 0.1 : 0.25));
        CPPUNIT_ASSERT(std::fabs(mean_dy - 7.3) < 0.1);
    }
}

//! Windows leaving an image: invalid_argument naming the patch, before any work.
void qa_patch_correlator::windows_leaving_the_image(const std::string& device)
{
    const auto c = make_config(device, 8, 8, 2);
    const long W = 200, H = 150;
    std::vector<std::int16_t> img(2 * W * H, 7);
    const image_view v{
        img.data(), slc_sample_type::complex_int16, std::size_t(W), std::size_t(H)
    };
    auto e = patch_correlator::make(c);
    const patch_pair good{ 10, 10, 12, 9 };
    struct bad_case {
        patch_pair p;
        const char* image;
    };
    const bad_case bad[] = {
        { { -1, 10, 10, 10 }, "master" },      { { 10, -1, 10, 10 }, "master" },
        { { W - 31, 10, 10, 10 }, "master" },  { { 10, H - 31, 10, 10 }, "master" },
        { { 10, 10, -5, 10 }, "aligned" },     { { 10, 10, 10, -40 }, "aligned" },
        { { 10, 10, W - 31, 10 }, "aligned" }, { { 10, 10, 10, H - 31 }, "aligned" },
    };
    for (const auto& b : bad) {
        std::vector<patch_pair> pairs{ good, good, b.p, good };
        std::vector<patch_result> r(pairs.size(), poison_result());
        bool thrown = false;
        try {
            e->correlate(v, v, pairs.data(), pairs.size(), r.data());
        } catch (const std::invalid_argument& ex) {
            thrown = true;
            const std::string m = ex.what();
            CPPUNIT_ASSERT_MESSAGE(m, m.find("patch 2") != std::string::npos);
            CPPUNIT_ASSERT_MESSAGE(m, m.find(b.image) != std::string::npos);
        }
        CPPUNIT_ASSERT_MESSAGE(describe(c, " window leaving the image"), thrown);
        for (const auto& x : r)
            CPPUNIT_ASSERT(poisoned(x.corr));
    }
    // The last rows and columns are inside.
    std::vector<patch_pair> edge{ { W - 32, H - 32, 0, 0 } };
    std::vector<patch_result> r(1, poison_result());
    e->correlate(v, v, edge.data(), 1, r.data());
    check_written(r, describe(c, " window at the image corner"));
    const image_view empty{ nullptr, slc_sample_type::complex_int16, 0, 0 };
    CPPUNIT_ASSERT_THROW(e->correlate(empty, v, edge.data(), 1, r.data()),
                         std::invalid_argument);
}

/*!
 * correlate()'s progress callback: on the calling thread, increasing counts, the
 * last npatches; the results identical to a call without it; last_timing()'s fields
 * finite and >= 0 (the transfers 0 on the CPU).
 */
void qa_patch_correlator::progress_and_timing(const std::string& device)
{
    const auto c = make_config(device, 16, 16, 2, 16, true, 3);
    const auto p = make_image_pair(c, 500, 700, 5, 7, 2, -4, 77);
    auto e = patch_correlator::make(c);
    const std::string what = describe(c, " progress");
    std::vector<patch_result> plain(p.pairs.size(), poison_result());
    e->correlate(
        p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), plain.data());
    std::vector<std::size_t> counts;
    const std::thread::id caller = std::this_thread::get_id();
    bool same_thread = true;
    e->set_progress([&](std::size_t done, std::size_t total) {
        same_thread = same_thread && std::this_thread::get_id() == caller;
        CPPUNIT_ASSERT_EQUAL(p.pairs.size(), total);
        counts.push_back(done);
    });
    std::vector<patch_result> r(p.pairs.size(), poison_result());
    e->correlate(p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), r.data());
    CPPUNIT_ASSERT_MESSAGE(what + ": on the calling thread", same_thread);
    CPPUNIT_ASSERT_MESSAGE(what + ": called", !counts.empty());
    for (std::size_t i = 0; i < counts.size(); ++i)
        CPPUNIT_ASSERT_MESSAGE(what + ": increasing",
                               counts[i] > (i ? counts[i - 1] : 0));
    CPPUNIT_ASSERT_EQUAL(p.pairs.size(), counts.back());
    for (std::size_t k = 0; k < r.size(); ++k)
        CPPUNIT_ASSERT_MESSAGE(what + " patch " + std::to_string(k),
                               identical(r[k], plain[k]));
    const patch_correlator_timing t = e->last_timing();
    for (double ms : { t.upload_ms, t.compute_ms, t.download_ms })
        CPPUNIT_ASSERT_MESSAGE(what + ": timing", std::isfinite(ms) && ms >= 0.0);
    if (device == "cpu")
        CPPUNIT_ASSERT(t.upload_ms == 0.0 && t.download_ms == 0.0);
    std::cout << "qa_patch_correlator: " << what << ": " << counts.size()
              << " callbacks; upload " << t.upload_ms << " ms, compute " << t.compute_ms
              << " ms, download " << t.download_ms << " ms" << std::endl;
    // Cleared: no more calls.
    e->set_progress(nullptr);
    counts.clear();
    e->correlate(p.view(false), p.view(true), p.pairs.data(), p.pairs.size(), r.data());
    CPPUNIT_ASSERT(counts.empty());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
