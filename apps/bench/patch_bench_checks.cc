/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The inputs of cudadsp_bench's section patch, speckle with planted offsets, and the
// checks of its rows: against the CPU engine's results and against the planted offsets.

#include "patch_bench_checks.h"
#include "speckle_field.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace bench {
namespace patch_bench {

// ---------------------------------------------------------------------------------
// Synthetic speckle
// ---------------------------------------------------------------------------------

namespace {

//! Planted offset of patch \p k (pixels of the original grid): non-zero, sub-pixel.
void planted_shift(std::size_t k, double& dy, double& dx)
{
    std::mt19937_64 rng(input_seed ^ (0x9e3779b97f4a7c15ull * (k + 1)));
    std::uniform_real_distribution<double> u(-max_shift, max_shift);
    dy = u(rng);
    dx = u(rng);
}

} // namespace

/*!
 * Patch pair \p k (npy x npx each): the master is the field at (0, 0) of its own noise
 * tile, the aligned the same field moved by the planted shift: a feature at master
 * (r, c) lies in the aligned patch at (r + dy, c + dx), so GMTSAR's dx and dy are the
 * planted values.
 */
void make_patch_pair(std::size_t k, int npy, int npx, cfloat* master, cfloat* aligned)
{
    const int pad = int(std::ceil(max_shift)) + speckle_kernel_half + 2;
    const noise_field W(npy + 2 * pad, npx + 2 * pad, input_seed + 7919 * (k + 1));
    double dy, dx;
    planted_shift(k, dy, dx);
    const double scale = field_scale(component_std);
    render(W, pad, pad, 0, 0, npy, npx, scale, 1.0, 0.0, 0, master, npx);
    render(W,
           pad,
           pad,
           dy,
           dx,
           npy,
           npx,
           scale,
           coherence,
           decorrelation_std(coherence),
           input_seed + 104729 * (k + 1),
           aligned,
           npx);
}

/*!
 * An int16 SLC pair (interleaved I, Q) of image_width x image_height tiling a periodic
 * speckle field (period image_tile): the master is the field, the aligned the field
 * moved by (image_dy, image_dx) at coherence 0.9; a feature at master (y, x) lies in
 * the aligned image at (y + image_dy, x + image_dx).
 */
void make_image_pair(std::int16_t* master, std::int16_t* aligned)
{
    const int P = image_tile;
    const auto tiles = speckle_tile_pair(P,
                                         input_seed + 31,
                                         input_seed + 1000,
                                         component_std,
                                         image_dy,
                                         image_dx,
                                         coherence);
    std::int16_t* images[2] = { master, aligned };
    parallel_for(std::size_t(image_height), [&](std::size_t y) {
        for (int img = 0; img < 2; ++img) {
            const cfloat* src = tiles[img].data() + (y % P) * P;
            std::int16_t* dst = images[img] + 2 * y * std::size_t(image_width);
            for (std::int64_t x = 0; x < image_width; ++x) {
                const cfloat v = src[x % P];
                dst[2 * x] = std::int16_t(v.real());
                dst[2 * x + 1] = std::int16_t(v.imag());
            }
        }
    });
}

// ---------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------

namespace {

float result_dx(const patch_result& r)
{
    return core::patch_offset_dx(r, range_interp, 0);
}
float result_dy(const patch_result& r) { return core::patch_offset_dy(r, 0, 0); }

bool unwritten(const patch_result& r)
{
    return std::isnan(r.xfrac) || std::isnan(r.yfrac) || std::isnan(r.corr);
}

//! dx and dy as GMTSAR prints them (before its pre-shifts) equal, corr within 1e-3 %.
bool result_matches(const patch_result& p, const patch_result& ref, std::string& why)
{
    const float dx = result_dx(p), dy = result_dy(p);
    const float rdx = result_dx(ref), rdy = result_dy(ref);
    if (unwritten(p)) {
        why = "not written";
        return false;
    }
    if (dx == rdx && dy == rdy &&
        std::fabs(double(p.corr) - double(ref.corr)) <= corr_tolerance)
        return true;
    std::ostringstream os;
    os.precision(9);
    os << "dx " << dx << " dy " << dy << " corr " << p.corr << ", cpu " << rdx << " "
       << rdy << " " << ref.corr;
    why = os.str();
    return false;
}

} // namespace

/*!
 * Compares results[sample[i]] with reference[i] for every i, counts results never
 * written over all \p n, and sets the row's status and note.
 */
void check_results(row& r,
                   const patch_result* results,
                   std::size_t n,
                   const std::vector<std::size_t>& sample,
                   const std::vector<patch_result>& reference)
{
    std::size_t mismatches = 0;
    std::string first;
    for (std::size_t i = 0; i < sample.size(); ++i) {
        std::string why;
        if (!result_matches(results[sample[i]], reference[i], why)) {
            if (!mismatches)
                first = "patch " + std::to_string(sample[i]) + ": " + why;
            ++mismatches;
        }
    }
    std::size_t missing = 0;
    for (std::size_t k = 0; k < n; ++k)
        missing += unwritten(results[k]);
    if (sample.empty()) {
        r.status = row_status::failed;
        r.note = "no checked patch";
    } else if (missing) {
        r.status = row_status::failed;
        r.note = std::to_string(missing) + " of " + std::to_string(n) +
                 " patches were not written";
    } else if (mismatches) {
        r.status = row_status::failed;
        r.note = std::to_string(mismatches) + " of " + std::to_string(sample.size()) +
                 " checked patches differ from the cpu engine, first " + first;
    } else {
        r.status = row_status::ok;
    }
}

std::vector<std::size_t> spread(std::size_t n, std::size_t count)
{
    std::vector<std::size_t> out;
    count = std::min(count, n);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = count > 1 ? k * (n - 1) / (count - 1) : 0;
        if (out.empty() || out.back() != i)
            out.push_back(i);
    }
    return out;
}

std::string per_patch(const row& r, std::size_t patches)
{
    char text[64];
    std::snprintf(
        text, sizeof text, "%.1f us/pair", r.time.median_ms * 1e3 / double(patches));
    return text;
}

std::string mebibytes(std::size_t bytes)
{
    std::ostringstream os;
    os.precision(4);
    os << double(bytes) / 1048576.0 << " MiB";
    return os.str();
}

std::string format(double v, int precision)
{
    std::ostringstream os;
    os.precision(precision);
    os << v;
    return os.str();
}

// ---------------------------------------------------------------------------------
// Reference and truth
// ---------------------------------------------------------------------------------

std::vector<patch_result>
cpu_reference(int s, std::size_t n, const cfloat* master, const cfloat* aligned)
{
    auto engine = core::patch_correlator::make(make_config(s, "cpu"));
    std::vector<patch_result> out(n);
    std::memset(out.data(), poison_byte, n * sizeof(patch_result));
    engine->correlate_patches(master, aligned, n, out.data());
    return out;
}


truth_error compare_with_planted(const std::vector<patch_result>& results,
                                 const std::vector<std::size_t>& sample)
{
    truth_error e;
    for (std::size_t i = 0; i < sample.size(); ++i) {
        double dy, dx;
        planted_shift(sample[i], dy, dx);
        e.missing += unwritten(results[i]);
        e.add(double(result_dx(results[i])) - dx,
              double(result_dy(results[i])) - dy,
              sample.size());
    }
    return e;
}

truth_error compare_image_with_planted(const std::vector<patch_result>& results)
{
    truth_error e;
    for (const auto& res : results) {
        e.missing += unwritten(res);
        e.add(double(core::patch_offset_dx(res, range_interp, image_rshift)) - image_dx,
              double(core::patch_offset_dy(res, image_ashift, 0)) - image_dy,
              results.size());
    }
    return e;
}

namespace {

/*!
 * A CPU row's check: its offsets within truth_tolerance of the planted ones (coherence
 * 0.9 speckle over a whole patch gives far less; range with interpolation 2 is the
 * noisier axis, as expected).
 */
constexpr double truth_tolerance = 0.5;

} // namespace

void set_truth_status(row& r, const truth_error& e, std::size_t patches)
{
    if (e.missing || !(e.worst_x < truth_tolerance && e.worst_y < truth_tolerance)) {
        r.status = row_status::failed;
        r.note = "against the planted offsets: " + e.text();
    } else {
        r.status = row_status::ok;
        r.note = per_patch(r, patches) + "; checked against the planted offsets";
    }
}

} // namespace patch_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr
