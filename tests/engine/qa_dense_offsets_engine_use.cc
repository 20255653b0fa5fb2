/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_dense_offsets: how the engine is used. Both sample types, one engine reused
// across images and sizes, progress reports.

#include "qa_dense_offsets.h"
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! int16 and float32 images of the same values give the same bits; one engine
//! serves different images and sizes as fresh engines do.
void qa_dense_offsets::sample_types_and_engine_reuse(const std::string& device)
{
    const dense_offsets_config c = small_config(device);
    const image_pair a = speckle_pair(128, 0.5, 0.7, 1.9, 0.0, 0.0, 2000.0, true, 71);
    const image_pair b = speckle_pair(64, 0.6, -1.2, 0.4, 0.0, 0.0, 1500.0, true, 72);
    const auto wa = grid_windows(8, 11, 8, 7);
    const auto wb = grid_windows(7, 9, 3, 2);
    auto shared = dense_offsets_estimator::make(c);
    const auto a16 = run(*shared, a, wa, slc_sample_type::complex_int16);
    const auto b32 = run(*shared, b, wb, slc_sample_type::complex_float32);
    const auto a32 = run(*shared, a, wa, slc_sample_type::complex_float32);
    auto fresh = dense_offsets_estimator::make(c);
    const auto b_fresh = run(*fresh, b, wb, slc_sample_type::complex_int16);
    auto same = [](const std::vector<offset_result>& x,
                   const std::vector<offset_result>& y) {
        return x.size() == y.size() &&
               std::memcmp(x.data(), y.data(), x.size() * sizeof(offset_result)) == 0;
    };
    CPPUNIT_ASSERT_MESSAGE("int16 and float32 differ", same(a16, a32));
    CPPUNIT_ASSERT_MESSAGE("a reused engine differs from a fresh one",
                           same(b32, b_fresh));
    compare_with_reference(c, b, wb, b32, "reuse");
}

void qa_dense_offsets::progress_reports(const std::string& device)
{
    const image_pair p = speckle_pair(128, 0.5, 0.3, 0.3, 0.0, 0.0, 1000.0, false, 81);
    const auto windows = grid_windows(8, 11, 8, 7);
    auto e = dense_offsets_estimator::make(small_config(device));
    std::vector<std::size_t> seen;
    e->set_progress([&](std::size_t done, std::size_t n) {
        CPPUNIT_ASSERT_EQUAL(windows.size(), n);
        seen.push_back(done);
    });
    run(*e, p, windows);
    CPPUNIT_ASSERT(!seen.empty());
    CPPUNIT_ASSERT_EQUAL(windows.size(), seen.back());
    CPPUNIT_ASSERT(std::is_sorted(seen.begin(), seen.end()));
    CPPUNIT_ASSERT(e->last_timing().compute_ms > 0.0);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
