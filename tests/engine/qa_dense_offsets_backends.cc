/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_dense_offsets: the CUDA backend against the CPU backend on the same inputs.

#include "qa_dense_offsets.h"
#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The CUDA backend against the CPU backend on the same inputs: offsets within one
 * fine step 1/(q r) on >= 99 % of the windows, SNR, covariance and peak within a
 * relative 1e-3 where the offsets agree.
 */
void qa_dense_offsets::cpu_and_cuda_agree(const std::string& device)
{
    const image_pair p =
        speckle_pair(256, 0.5, 0.8, -1.6, 0.004, 0.003, 1000.0, true, 91);
    dense_offsets_config c = small_config(device);
    c.corr_oversampling = 32;
    const auto windows = grid_windows(8, 10, 22, 22);
    auto cuda = dense_offsets_estimator::make(c);
    c.device = "cpu";
    auto cpu = dense_offsets_estimator::make(c);
    const auto gc = run(*cuda, p, windows, slc_sample_type::complex_int16);
    const auto gh = run(*cpu, p, windows, slc_sample_type::complex_int16);
    const double step = 1.0 / (c.corr_oversampling * c.raw_oversampling);
    std::size_t beyond = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        if (std::fabs(gc[i].offset_down - gh[i].offset_down) > 1.01 * step ||
            std::fabs(gc[i].offset_across - gh[i].offset_across) > 1.01 * step) {
            ++beyond;
            continue;
        }
        CPPUNIT_ASSERT(close_rel(gc[i].snr, gh[i].snr, stats_rel));
        CPPUNIT_ASSERT(close_rel(gc[i].peak, gh[i].peak, stats_rel));
        CPPUNIT_ASSERT((gc[i].cov_down == 99.0f) == (gh[i].cov_down == 99.0f));
        if (gh[i].cov_down != 99.0f) {
            const double scale =
                std::max(std::fabs(gh[i].cov_down), std::fabs(gh[i].cov_across));
            CPPUNIT_ASSERT(std::fabs(gc[i].cov_down - gh[i].cov_down) <=
                           stats_rel * scale);
            CPPUNIT_ASSERT(std::fabs(gc[i].cov_across - gh[i].cov_across) <=
                           stats_rel * scale);
            CPPUNIT_ASSERT(std::fabs(gc[i].cov_cross - gh[i].cov_cross) <=
                           stats_rel * scale);
        }
    }
    std::cerr << "CPU and CUDA: " << beyond << " of " << windows.size()
              << " windows beyond one fine step\n";
    CPPUNIT_ASSERT(beyond * 100 <= windows.size());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
