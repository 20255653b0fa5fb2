/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_dense_offsets: known truth. Band-limited speckle moved by known constant and
// linear (in the column) offsets, and beyond the search range through gross
// offsets, recovered within stated bias and spread.

#include "qa_dense_offsets.h"
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Mean and standard deviation of est - truth.
struct error_stats {
    double bias = 0, spread = 0;
};

error_stats stats_of(const std::vector<double>& e)
{
    error_stats s;
    for (double v : e)
        s.bias += v;
    s.bias /= double(e.size());
    for (double v : e)
        s.spread += (v - s.bias) * (v - s.bias);
    s.spread = std::sqrt(s.spread / double(e.size()));
    return s;
}

} // namespace

//! Known truth: a constant sub-pixel offset of band-limited speckle.
void qa_dense_offsets::recovers_constant_offset(const std::string& device)
{
    const double truth_d = 1.37, truth_a = -2.81;
    const image_pair p =
        speckle_pair(128, 0.5, truth_d, truth_a, 0.0, 0.0, 1000.0, false, 21);
    const auto windows = grid_windows(8, 11, 8, 7);
    for (deramp_method d : { deramp_method::average, deramp_method::none }) {
        dense_offsets_config c = small_config(device);
        c.deramp = d;
        auto e = dense_offsets_estimator::make(c);
        const auto got = run(*e, p, windows);
        std::vector<double> ed, ea;
        for (const auto& r : got) {
            ed.push_back(r.offset_down - truth_d);
            ea.push_back(r.offset_across - truth_a);
        }
        const error_stats sd = stats_of(ed), sa = stats_of(ea);
        std::cerr << "constant offset, deramp " << int(d) << ": bias (" << sd.bias << ", "
                  << sa.bias << "), spread (" << sd.spread << ", " << sa.spread << ")\n";
        // Coherent, band-limited speckle: bias and spread within 0.02 pixel.
        CPPUNIT_ASSERT(std::fabs(sd.bias) < 0.02 && std::fabs(sa.bias) < 0.02);
        CPPUNIT_ASSERT(sd.spread < 0.02 && sa.spread < 0.02);
    }
}

//! Known truth: offsets varying linearly across the image (with the column).
void qa_dense_offsets::recovers_linear_offset(const std::string& device)
{
    const int n = 128;
    const double d0 = 0.6, a0 = -1.4, gd = 0.01, ga = -0.015;
    const image_pair p = speckle_pair(n, 0.5, d0, a0, gd, ga, 1000.0, false, 31);
    dense_offsets_config c = small_config(device);
    const auto windows = grid_windows(8, 11, 8, 7);
    auto e = dense_offsets_estimator::make(c);
    const auto got = run(*e, p, windows);
    std::vector<double> ed, ea;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        // The truth at the reference window's centre column.
        const double centre = windows[i].reference_across + (c.window_width - 1) / 2.0;
        ed.push_back(got[i].offset_down - (d0 + gd * (centre - n / 2)));
        ea.push_back(got[i].offset_across - (a0 + ga * (centre - n / 2)));
    }
    const error_stats sd = stats_of(ed), sa = stats_of(ea);
    std::cerr << "linear offset: bias (" << sd.bias << ", " << sa.bias << "), spread ("
              << sd.spread << ", " << sa.spread << ")\n";
    CPPUNIT_ASSERT(std::fabs(sd.bias) < 0.03 && std::fabs(sa.bias) < 0.03);
    CPPUNIT_ASSERT(sd.spread < 0.03 && sa.spread < 0.03);
}

//! A shift beyond the search range found through gross offsets, merged or not.
void qa_dense_offsets::gross_offset_and_merge(const std::string& device)
{
    const double truth_d = 9.3, truth_a = -11.6;
    const image_pair p =
        speckle_pair(128, 0.5, truth_d, truth_a, 0.0, 0.0, 1000.0, false, 41);
    const auto windows = grid_windows(20, 16, 4, 4, 9, -12);
    for (bool merge : { false, true }) {
        dense_offsets_config c = small_config(device);
        c.merge_gross_offset = merge;
        auto e = dense_offsets_estimator::make(c);
        const auto got = run(*e, p, windows);
        for (const auto& r : got) {
            CPPUNIT_ASSERT_DOUBLES_EQUAL(truth_d - (merge ? 0 : 9), r.offset_down, 0.05);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                truth_a - (merge ? 0 : -12), r.offset_across, 0.05);
        }
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
