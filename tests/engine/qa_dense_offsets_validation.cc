/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_dense_offsets: bad input. Configurations, grids and gross offsets rejected
// with the field named; windows with invalid data or leaving the images
// reported as such, with the window and the image named.

#include "qa_dense_offsets.h"
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_dense_offsets::config_errors_name_the_field()
{
    struct bad {
        const char* field;
        void (*set)(dense_offsets_config&);
    };
    const bad cases[] = {
        { "window_width", [](dense_offsets_config& c) { c.window_width = 1; } },
        { "window_height", [](dense_offsets_config& c) { c.window_height = 5000; } },
        { "half_search_across",
          [](dense_offsets_config& c) { c.half_search_across = 0; } },
        { "half_search_down", [](dense_offsets_config& c) { c.half_search_down = -3; } },
        { "raw_oversampling", [](dense_offsets_config& c) { c.raw_oversampling = 0; } },
        { "corr_oversampling", [](dense_offsets_config& c) { c.corr_oversampling = 0; } },
        { "zoom_window", [](dense_offsets_config& c) { c.zoom_window = 3; } },
        { "zoom_window, corr_oversampling",
          [](dense_offsets_config& c) {
              c.corr_oversampling = 1024;
              c.zoom_window = 16;
          } },
        { "corr_stat_window", [](dense_offsets_config& c) { c.corr_stat_window = 2; } },
        { "deramp",
          [](dense_offsets_config& c) { c.deramp = static_cast<deramp_method>(7); } },
        { "deramp_axis",
          [](dense_offsets_config& c) {
              c.deramp_axis = static_cast<deramp_direction>(3);
          } },
    };
    for (const bad& b : cases) {
        dense_offsets_config c;
        b.set(c);
        try {
            c.validate();
            CPPUNIT_FAIL(std::string(b.field) + ": accepted");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(e.what(),
                                   std::string(e.what()).rfind(b.field, 0) == 0);
        }
    }
    dense_offsets_config ok;
    ok.validate();
    // The zoom window is clipped, not rejected: 2 r min(H) = 8.
    ok.half_search_down = 2;
    ok.zoom_window = 64;
    ok.validate();
    CPPUNIT_ASSERT_EQUAL(8, ok.effective_zoom_window());
    dense_offsets_config bad_device;
    bad_device.device = "gpu7";
    CPPUNIT_ASSERT_THROW(dense_offsets_estimator::make(bad_device),
                         std::invalid_argument);
}

void qa_dense_offsets::grid_and_gross_offsets()
{
    offset_grid g;
    g.start_down = 3;
    g.start_across = 5;
    g.skip_down = 7;
    g.skip_across = 11;
    g.number_down = 2;
    g.number_across = 3;
    const auto w = make_offset_windows(g, { 1, 2, 3, 4, 5, 6 }, { -1 });
    CPPUNIT_ASSERT_EQUAL(std::size_t(6), w.size());
    CPPUNIT_ASSERT_EQUAL(std::int64_t(3 + 7), w[4].reference_down);
    CPPUNIT_ASSERT_EQUAL(std::int64_t(5 + 11), w[4].reference_across);
    CPPUNIT_ASSERT_EQUAL(5, int(w[4].gross_down));
    CPPUNIT_ASSERT_EQUAL(-1, int(w[4].gross_across));
    try {
        make_offset_windows(g, { 1, 2 }, { 0 });
        CPPUNIT_FAIL("a gross offset of the wrong size was accepted");
    } catch (const std::invalid_argument& e) {
        CPPUNIT_ASSERT(std::string(e.what()).rfind("gross_offset", 0) == 0);
    }
    const struct {
        const char* field;
        void (*set)(offset_grid&);
    } cases[] = { { "start_down", [](offset_grid& x) { x.start_down = -1; } },
                  { "skip_across", [](offset_grid& x) { x.skip_across = 0; } },
                  { "number_down", [](offset_grid& x) { x.number_down = 0; } },
                  { "number_across", [](offset_grid& x) { x.number_across = -2; } } };
    for (const auto& c : cases) {
        offset_grid x = g;
        c.set(x);
        try {
            x.validate();
            CPPUNIT_FAIL(std::string(c.field) + ": accepted");
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(e.what(),
                                   std::string(e.what()).rfind(c.field, 0) == 0);
        }
    }
}

//! Section 6 and the header's degenerate cases.
void qa_dense_offsets::invalid_windows(const std::string& device)
{
    image_pair p = speckle_pair(64, 0.5, 0.5, 0.5, 0.0, 0.0, 1000.0, false, 51);
    // Window 0's reference window: constant amplitude 300 (exact in float32 and in
    // its square root), varying phase.
    const cfloat exact[4] = { { 300, 0 }, { 0, 300 }, { -180, 240 }, { 240, -180 } };
    for (int a = 8; a < 8 + 24; ++a)
        for (int b = 8; b < 8 + 32; ++b)
            p.ref32[std::size_t(a) * 64 + b] = exact[(a * 3 + b) % 4];
    // Window 1's secondary window (rows 20 .. 55, columns 18 .. 61) holds a NaN
    // that window 0's (rows 2 .. 37) does not.
    p.sec32[std::size_t(50) * 64 + 55] = cfloat(NAN, 0.0f);
    const std::vector<offset_window> windows = { { 8, 8, 0, 0 }, { 26, 24, 0, 0 } };
    dense_offsets_config c = small_config(device);
    for (deramp_method d : { deramp_method::average, deramp_method::amplitude }) {
        c.deramp = d;
        c.peak = peak_surface::raw;
        auto e = dense_offsets_estimator::make(c);
        const auto got = run(*e, p, windows);
        const offset_result& k = got[0];
        CPPUNIT_ASSERT_EQUAL(0.0f, k.peak);
        // The zoom pass correlates oversampled amplitudes, no longer constant: its
        // fine maximum is some finite coefficient.
        c.peak = peak_surface::oversampled;
        const float fine_peak =
            run(*dense_offsets_estimator::make(c), p, windows)[0].peak;
        CPPUNIT_ASSERT(std::isfinite(fine_peak) && std::fabs(fine_peak) <= 1.001f);
        CPPUNIT_ASSERT(std::isnan(k.snr));
        CPPUNIT_ASSERT(k.cov_down == 99.0f && k.cov_across == 99.0f &&
                       k.cov_cross == 99.0f);
        // The zoom pass still runs; its offsets carry no meaning but stay inside
        // the search range.
        CPPUNIT_ASSERT(std::fabs(k.offset_down) <= c.half_search_down);
        CPPUNIT_ASSERT(std::fabs(k.offset_across) <= c.half_search_across);
        const float* f = &got[1].offset_down;
        for (int i = 0; i < 7; ++i)
            CPPUNIT_ASSERT_MESSAGE("field " + std::to_string(i),
                                   std::isnan(f[i]) && !poisoned(f[i]));
    }
}

void qa_dense_offsets::window_errors_name_window_and_image(const std::string& device)
{
    const image_pair p = speckle_pair(64, 0.5, 0.0, 0.0, 0.0, 0.0, 1000.0, true, 61);
    auto e = dense_offsets_estimator::make(small_config(device));
    auto expect =
        [&](std::vector<offset_window> w, const std::string& a, const std::string& b) {
            std::vector<offset_result> out(w.size(), poison_result());
            try {
                e->estimate(p.view(false, slc_sample_type::complex_int16),
                            p.view(true, slc_sample_type::complex_int16),
                            w.data(),
                            w.size(),
                            out.data());
                CPPUNIT_FAIL("accepted: " + a + " " + b);
            } catch (const std::invalid_argument& ex) {
                const std::string m = ex.what();
                CPPUNIT_ASSERT_MESSAGE(
                    m, m.find(a) != std::string::npos && m.find(b) != std::string::npos);
            }
            for (const auto& r : out) // no work before the check
                CPPUNIT_ASSERT(poisoned(r.offset_down));
        };
    // Window 2's search window leaves the secondary down (6 - 6 + gross -1 < 0).
    expect({ { 8, 8, 0, 0 }, { 8, 20, 0, 0 }, { 6, 8, -1, 0 } },
           "window 2",
           "secondary image");
    // Window 1's reference window leaves the reference across (40 + 32 > 64).
    expect({ { 8, 8, 0, 0 }, { 8, 40, 0, 0 } }, "window 1", "reference image");
    // A window ending exactly on the border is accepted (section 2.5).
    std::vector<offset_window> edge = { { 64 - 24 - 6, 64 - 32 - 6, 0, 0 } };
    run(*e, p, edge, slc_sample_type::complex_int16);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
