/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CHECKS_H
#define INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CHECKS_H

#include "bench_harness.h"
#include "patch_bench_case.h"
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace patch_bench {

// Text of the rows' notes.
std::string per_patch(const row& r, std::size_t patches);
std::string mebibytes(std::size_t bytes);
std::string format(double v, int precision = 3);

// Inputs: band-limited speckle with planted offsets (see the case constants).
//! Patch pair \p k (npy x npx each), the aligned patch moved by its planted offset.
void make_patch_pair(std::size_t k, int npy, int npx, cfloat* master, cfloat* aligned);
//! The int16 SLC pair (interleaved I, Q) of image_width x image_height.
void make_image_pair(std::int16_t* master, std::int16_t* aligned);

// Checks against the CPU engine.
//! Sets the row's status and note from results[sample[i]] against reference[i].
void check_results(row& r,
                   const patch_result* results,
                   std::size_t n,
                   const std::vector<std::size_t>& sample,
                   const std::vector<patch_result>& reference);
//! At most \p count indices spread over [0, n), first and last included.
std::vector<std::size_t> spread(std::size_t n, std::size_t count);
//! The CPU engine on \p n patch pairs in host memory, one call.
std::vector<patch_result>
cpu_reference(int s, std::size_t n, const cfloat* master, const cfloat* aligned);

// Checks against the planted offsets.
//! Errors of dx and dy against the planted offsets.
struct truth_error {
    double mean_x = 0, mean_y = 0, worst_x = 0, worst_y = 0;
    std::size_t missing = 0;

    void add(double ex, double ey, std::size_t n)
    {
        mean_x += ex / double(n);
        mean_y += ey / double(n);
        worst_x = std::max(worst_x, std::fabs(ex));
        worst_y = std::max(worst_y, std::fabs(ey));
    }
    std::string text() const
    {
        return "mean error dx " + format(mean_x) + " dy " + format(mean_y) +
               " px, worst |error| dx " + format(worst_x) + " dy " + format(worst_y) +
               " px" + (missing ? ", " + std::to_string(missing) + " not written" : "");
    }
};

truth_error compare_with_planted(const std::vector<patch_result>& results,
                                 const std::vector<std::size_t>& sample);
truth_error compare_image_with_planted(const std::vector<patch_result>& results);
//! A CPU row's status and note from its errors against the planted offsets.
void set_truth_status(row& r, const truth_error& e, std::size_t patches);

} // namespace patch_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BENCH_PATCH_BENCH_CHECKS_H */
