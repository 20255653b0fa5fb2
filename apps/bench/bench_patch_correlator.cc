/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section patch: the image-patch correlator (GMTSAR xcorr's frequency method) on the
// speed case: 1000 patch pairs (GMTSAR's -nx 20 -ny 50 grid), xsearch = ysearch = 64
// (patches of 256 x 256 complex samples), range interpolation 2, high-resolution
// interpolation 16, the patches already extracted and in device memory; next to floors
// measured in the same run: the bare cuFFT transforms the CUDA backend runs on them
// (range rows forward and back, the 2D real transforms of both images and the inverse
// of their product, with the engine's layouts and batches) and a d2d copy of the patch
// bytes. For information: the engine from pinned host patches, and correlate() from a
// whole pinned int16 image pair of the paper's largest ALOS-1 size (11304 x 9216) on
// the grid of cudadsp_xcorr's speed target (-nx 20 -ny 50 -xsearch 128 -ysearch 128),
// next to the upload of that pair and the cuFFT transforms of its patches. The CPU
// engine runs a spread sample of the patches; its results are the check column's
// reference (dx and dy equal, corr within 1e-3 percent).

#include "bench_harness.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "speckle_field.h"
#include "xcorr/xcorr_grid.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "patch";


using cfloat = std::complex<float>;
using core::patch_result;

// The speed case: 1000 patches (nx 20, ny 50), xsearch = ysearch = 64, ri 2,
// interp 16, patches in device memory.
constexpr int grid_nx = 20;
constexpr int grid_ny = 50;
constexpr std::size_t default_patches = std::size_t(grid_nx) * grid_ny;
constexpr int search = 64;
constexpr int range_interp = 2;
constexpr int interp = 16;

// cudadsp_xcorr's speed case: the paper's largest ALOS-1 pair, -xsearch 128 -ysearch
// 128 on the same -nx 20 -ny 50 grid, windows placed as GMTSAR's get_locations.
constexpr std::int64_t image_width = 11304;
constexpr std::int64_t image_height = 9216;
constexpr int image_search = 128;
// PRM pre-shifts of the aligned image and the image's true offset (the example of
// tests/support/make_synthetic_slc.py): the engine sees the residual (0.25, -0.5).
constexpr int image_rshift = 2;
constexpr int image_ashift = -1;
constexpr double image_dx = 2.25;
constexpr double image_dy = -1.5;
// The image pair tiles a periodic speckle field of this period (rows and columns):
// far longer than a patch and its search, so no patch sees the repetition.
constexpr int image_tile = 2048;

// The CPU engine: a sample of patches spread over the run (first and last included),
// whose results are the check column's reference.
constexpr std::size_t cpu_patches_max = 64;
constexpr std::size_t cpu_image_patches_max = 32;
constexpr int slow_repeats_max = 3;
constexpr int image_repeats_max = 10;

// Input: band-limited complex speckle (a Blackman-windowed sinc low-pass of bandwidth
// 0.8 of the sample rate in both directions, applied to white complex Gaussian noise,
// evaluated at any real position), scaled to int16-like amplitudes and rounded to
// integers. The aligned patch is the same field moved by (dy, dx), uniform in
// +-max_shift pixels per patch, plus white decorrelation noise at coherence 0.9.
constexpr double component_std = 800.0;
constexpr double coherence = 0.9;
constexpr double max_shift = 6.0;
constexpr std::uint64_t input_seed = 20260606;

// Target: the device-resident engine at most 2x the bare cuFFT transforms.
constexpr double target_cufft_ratio = 2.0;
// The check: dx and dy equal, corr (percent) within this.
constexpr double corr_tolerance = 1e-3;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string row_cufft = "floor: cuFFT transforms";
const std::string row_device = "cuda engine, device patches";
const std::string row_pinned = "cuda engine, pinned host patches";
const std::string row_cpu = "cpu engine";
const std::string row_image_h2d = "floor: pinned H2D, int16 image pair";
const std::string row_image_cufft = "floor: cuFFT transforms, xs=ys=128";
const std::string row_image_make = "cuda engine make(), xs=ys=128";
const std::string row_image = "cuda correlate(), int16 image, xs=ys=128";
const std::string row_image_cpu = "cpu correlate(), int16 image, xs=ys=128";

// Outputs are poisoned with all-ones bytes before a checked run: a result the engine
// did not write keeps NaN fractions and correlation.
constexpr int poison_byte = 0xff;

core::patch_correlator_config make_config(int s, const std::string& device)
{
    core::patch_correlator_config config;
    config.xsearch = s;
    config.ysearch = s;
    config.range_interp = range_interp;
    config.highres = true;
    config.interp = interp;
    config.device = device;
    return config;
}

//! The transform sizes of a configuration.
struct geometry {
    int npx, npy, ri;
    int range_len() const { return ri * npx; }
};

geometry geometry_of(const core::patch_correlator_config& c)
{
    return { c.npx(), c.npy(), c.range_interp };
}

//! The CUDA engine's batch (patches per launch of each transform).
std::size_t engine_batch(const core::patch_correlator& engine)
{
    return static_cast<const core::patch_correlator_cuda&>(engine).batch_patches();
}

// ---------------------------------------------------------------------------------
// Synthetic speckle
// ---------------------------------------------------------------------------------

//! Planted offset of patch \p k (pixels of the original grid): non-zero, sub-pixel.
void planted_shift(std::size_t k, double& dy, double& dx)
{
    std::mt19937_64 rng(input_seed ^ (0x9e3779b97f4a7c15ull * (k + 1)));
    std::uniform_real_distribution<double> u(-max_shift, max_shift);
    dy = u(rng);
    dx = u(rng);
}

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

std::string format(double v, int precision = 3)
{
    std::ostringstream os;
    os.precision(precision);
    os << v;
    return os.str();
}

// ---------------------------------------------------------------------------------
// Reference and truth
// ---------------------------------------------------------------------------------

//! The CPU engine on \p n patch pairs in host memory, one call.
std::vector<patch_result>
cpu_reference(int s, std::size_t n, const cfloat* master, const cfloat* aligned)
{
    auto engine = core::patch_correlator::make(make_config(s, "cpu"));
    std::vector<patch_result> out(n);
    std::memset(out.data(), poison_byte, n * sizeof(patch_result));
    engine->correlate_patches(master, aligned, n, out.data());
    return out;
}

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

/*!
 * A CPU row's check: its offsets within truth_tolerance of the planted ones (coherence
 * 0.9 speckle over a whole patch gives far less; range with interpolation 2 is the
 * noisier axis, as expected).
 */
constexpr double truth_tolerance = 0.5;

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

// ---------------------------------------------------------------------------------
// The cuFFT floor
// ---------------------------------------------------------------------------------

//! The four transform kinds of one batch size, with the engine's layouts.
struct floor_plans {
    core::cufft_plan range_forward, range_inverse, forward_2d, inverse_2d;

    std::array<const core::cufft_plan*, 4> all() const
    {
        return { &range_forward, &range_inverse, &forward_2d, &inverse_2d };
    }
};

//! The sizes of one patch's buffers in the floor (elements).
struct floor_layout {
    int N, M, npy;
    std::size_t patch_elements, row_elements, real_elements, bins;
};

floor_layout floor_layout_of(const geometry& g)
{
    floor_layout l;
    l.N = g.npx;
    l.M = g.range_len();
    l.npy = g.npy;
    l.patch_elements = std::size_t(l.npy) * l.N;
    l.row_elements = std::size_t(l.npy) * l.M;
    l.real_elements = std::size_t(l.npy) * (l.N + 2);
    l.bins = std::size_t(l.npy) * (l.N / 2 + 1);
    return l;
}

//! Plans for \p count patches a launch, their work areas left to the caller.
floor_plans make_floor_plans(const geometry& g, const floor_layout& l, int count)
{
    const int N = l.N, M = l.M, npy = l.npy;
    const core::cufft_plan::external_work_area external{};
    floor_plans p;
    if (g.ri > 1) {
        const int n[1] = { N }, in_embed[1] = { N }, out_embed[1] = { M };
        p.range_forward = core::cufft_plan(
            1, n, in_embed, 1, N, out_embed, 1, M, CUFFT_C2C, count * npy, external);
        const int m[1] = { M };
        p.range_inverse = core::cufft_plan(
            1, m, m, 1, M, m, 1, M, CUFFT_C2C, 2 * count * npy, external);
    }
    const int n2[2] = { npy, N };
    const int real_embed[2] = { npy, N + 2 };
    const int complex_embed[2] = { npy, N / 2 + 1 };
    p.forward_2d = core::cufft_plan(2,
                                    n2,
                                    real_embed,
                                    1,
                                    int(l.real_elements),
                                    complex_embed,
                                    1,
                                    int(l.bins),
                                    CUFFT_R2C,
                                    2 * count,
                                    external);
    p.inverse_2d = core::cufft_plan(2,
                                    n2,
                                    complex_embed,
                                    1,
                                    int(l.bins),
                                    real_embed,
                                    1,
                                    int(l.real_elements),
                                    CUFFT_C2R,
                                    count,
                                    external);
    return p;
}

//! One work area, as large as the largest plan needs, shared by all of \p sets (they
//! run one after the other on \p stream), and the plans bound to \p stream.
core::device_buffer<unsigned char> share_work_area(const std::vector<floor_plans>& sets,
                                                   cudaStream_t stream)
{
    std::size_t work = 0;
    for (const auto& s : sets)
        for (const auto* p : s.all())
            work = std::max(work, p->work_size());
    core::device_buffer<unsigned char> work_area(std::max<std::size_t>(work, 1));
    for (const auto& s : sets)
        for (const auto* p : s.all())
            if (p->get()) {
                p->set_stream(stream);
                if (p->work_size())
                    p->set_work_area(work_area.get());
            }
    return work_area;
}

//! Bytes the floor's transforms read and write at least, each its input and its
//! output once.
double floor_bytes(const geometry& g, const floor_layout& l, std::size_t npatches)
{
    const double n = double(npatches);
    double bytes = 0;
    if (g.ri > 1)
        bytes += 2 * n * l.patch_elements * 8 * 2 + 2 * n * l.row_elements * 8 * 2;
    bytes += 2 * n * (l.patch_elements * 4 + l.bins * 8) +
             n * (l.bins * 8 + l.patch_elements * 4);
    return bytes;
}

/*!
 * The transforms the CUDA backend runs on \p npatches patches of geometry \p g, in
 * batches of \p batch patches (the engine's), each transform kind a plan with the
 * engine's layout (lib/core/cross_correlation/patch_correlator_cuda.cu, workspace), a
 * full batch in one launch: per batch, for each image the npy rows of each patch forward
 * (npx-point C2C, rows of npx into rows of ri npx), all 2n npy rows back (ri npx-point
 * C2C), the 2D R2C transforms of the 2n patches (rows of npx + 2 floats) and the 2D C2R
 * transforms of n products. Out of place (the engine works in place), so that every
 * repeat transforms the same data: the range rows' upper part stays zero as the
 * engine's spread leaves it, and no value grows from one repeat to the next.
 * \p master and \p aligned: the patches (npy x npx complex each, patch-major); null:
 * one batch of patches copied from \p fill (at least that many bytes), reused for
 * every batch.
 */
row cufft_floor(const geometry& g,
                std::size_t npatches,
                std::size_t batch,
                const cfloat* master,
                const cfloat* aligned,
                const void* fill,
                int repeats)
{
    const floor_layout l = floor_layout_of(g);
    const int N = l.N, M = l.M, npy = l.npy;
    batch = std::min(batch, npatches);

    core::cuda_stream stream;
    core::device_buffer<cfloat> own_input;
    if (!master) {
        own_input = core::device_buffer<cfloat>(2 * batch * l.patch_elements);
        CUDADSP_CUDA(cudaMemcpyAsync(own_input.get(),
                                     fill,
                                     own_input.size() * sizeof(cfloat),
                                     cudaMemcpyDeviceToDevice,
                                     stream.get()));
    }
    core::device_buffer<cfloat> rows_in, rows_out;
    if (g.ri > 1) {
        rows_in = core::device_buffer<cfloat>(2 * batch * l.row_elements);
        rows_out = core::device_buffer<cfloat>(2 * batch * l.row_elements);
        CUDADSP_CUDA(cudaMemsetAsync(
            rows_in.get(), 0, rows_in.size() * sizeof(cfloat), stream.get()));
    }
    core::device_buffer<float> real_in(2 * batch * l.real_elements);
    core::device_buffer<cfloat> spectra(2 * batch * l.bins);
    core::device_buffer<float> real_out(batch * l.real_elements);
    // The real input: npx floats of patch data a row, the two padding floats zero.
    CUDADSP_CUDA(
        cudaMemsetAsync(real_in.get(), 0, real_in.size() * sizeof(float), stream.get()));
    CUDADSP_CUDA(cudaMemcpy2DAsync(real_in.get(),
                                   (N + 2) * sizeof(float),
                                   master ? static_cast<const void*>(master)
                                          : static_cast<const void*>(own_input.get()),
                                   N * sizeof(float),
                                   N * sizeof(float),
                                   2 * batch * npy,
                                   cudaMemcpyDeviceToDevice,
                                   stream.get()));

    const std::size_t tail = npatches % batch;
    std::vector<floor_plans> sets;
    sets.push_back(make_floor_plans(g, l, int(batch)));
    if (tail)
        sets.push_back(make_floor_plans(g, l, int(tail)));
    const auto work_area = share_work_area(sets, stream.get());

    auto c = [](const void* p) {
        return const_cast<cufftComplex*>(static_cast<const cufftComplex*>(p));
    };
    auto run_batch = [&](const floor_plans& p, std::size_t first, std::size_t count) {
        if (g.ri > 1) {
            const cfloat* in[2];
            if (master) {
                in[0] = master + first * l.patch_elements;
                in[1] = aligned + first * l.patch_elements;
            } else {
                in[0] = own_input.get();
                in[1] = own_input.get() + batch * l.patch_elements;
            }
            for (int img = 0; img < 2; ++img)
                CUDADSP_CUFFT(
                    cufftExecC2C(p.range_forward.get(),
                                 c(in[img]),
                                 c(rows_in.get() + img * count * l.row_elements),
                                 CUFFT_FORWARD));
            CUDADSP_CUFFT(cufftExecC2C(p.range_inverse.get(),
                                       c(rows_in.get()),
                                       c(rows_out.get()),
                                       CUFFT_INVERSE));
        }
        CUDADSP_CUFFT(cufftExecR2C(p.forward_2d.get(), real_in.get(), c(spectra.get())));
        CUDADSP_CUFFT(cufftExecC2R(p.inverse_2d.get(), c(spectra.get()), real_out.get()));
    };

    row r;
    r.clock = "events";
    r.samples = double(npatches) * 2 * double(l.patch_elements);
    r.bytes = floor_bytes(g, l, npatches);
    r.time = time_cuda(stream.get(), 2, repeats, [&] {
        for (std::size_t f = 0; f < npatches; f += batch) {
            const std::size_t count = std::min(batch, npatches - f);
            run_batch(count == batch ? sets[0] : sets[1], f, count);
        }
    });
    std::ostringstream note;
    note << "per patch pair: ";
    if (g.ri > 1)
        note << 2 * npy << " C2C of " << N << " + " << 2 * npy << " C2C of " << M << ", ";
    note << "2 R2C + 1 C2R of " << npy << " x " << N << "; batches of " << batch;
    r.note = note.str();
    return r;
}

// ---------------------------------------------------------------------------------
// The section
// ---------------------------------------------------------------------------------

//! The patch rows' sizes (xs = ys = 64), from the options.
struct patch_case {
    std::size_t npatches;
    int repeats;
    int slow_repeats;
    int image_repeats;
    core::patch_correlator_config config;
    geometry g;
    std::size_t patch_elements;
    std::size_t patch_bytes;
    // A bench sample is one complex sample of a patch window, either image: a pair is
    // 2 npy npx samples.
    double pair_samples;
    std::vector<std::size_t> sample; //!< the patches the CPU engine runs
};

patch_case make_patch_case(const bench_options& options, const bench_device& device)
{
    patch_case p;
    p.npatches = options.samples_or(default_patches);
    p.repeats = options.repeats;
    p.slow_repeats = std::min(p.repeats, slow_repeats_max);
    p.image_repeats = std::min(p.repeats, image_repeats_max);
    p.config = make_config(search, device.device_string);
    p.g = geometry_of(p.config);
    p.patch_elements = std::size_t(p.g.npy) * p.g.npx;
    p.patch_bytes = 2 * p.npatches * p.patch_elements * sizeof(cfloat);
    p.pair_samples = 2.0 * double(p.patch_elements);
    p.sample = spread(p.npatches, cpu_patches_max);
    return p;
}

//! The image case: GMTSAR's grid and windows on the int16 image pair.
struct image_case {
    std::vector<core::patch_pair> pairs;
    std::size_t image_patches;
    std::size_t image_samples;
    std::size_t image_bytes;
    double image_pair_samples;
    std::vector<std::size_t> image_sample; //!< the pairs the CPU engine runs
    core::patch_correlator_config image_config;
};

image_case make_image_case(const bench_device& device)
{
    xcorr::grid_config gc;
    gc.width = image_width;
    gc.height = image_height;
    gc.nx = grid_nx;
    gc.ny = grid_ny;
    gc.xsearch = image_search;
    gc.ysearch = image_search;
    const xcorr::xcorr_grid grid = xcorr::make_grid(gc);
    image_case c;
    c.pairs = xcorr::make_pairs(
        grid, image_search, image_search, image_rshift, image_ashift, 0.0);
    xcorr::check_pairs_inside(grid,
                              c.pairs,
                              image_search,
                              image_search,
                              image_width,
                              image_height,
                              image_width,
                              image_height);
    c.image_patches = c.pairs.size();
    c.image_samples = std::size_t(image_width) * image_height;
    c.image_bytes = 2 * c.image_samples * 2 * sizeof(std::int16_t);
    c.image_pair_samples = 2.0 * 16.0 * image_search * image_search;
    c.image_sample = spread(c.image_patches, cpu_image_patches_max);
    c.image_config = make_config(image_search, device.device_string);
    return c;
}

void add_parameters(section_report& report, const patch_case& p, const image_case& c)
{
    report.add_parameter("patches", std::to_string(p.npatches));
    report.add_parameter("patch",
                         std::to_string(p.g.npy) + "x" + std::to_string(p.g.npx));
    report.add_parameter("xsearch", std::to_string(search));
    report.add_parameter("ysearch", std::to_string(search));
    report.add_parameter("range_interp", std::to_string(range_interp));
    report.add_parameter("interp", std::to_string(interp));
    report.add_parameter("patch_bytes", std::to_string(p.patch_bytes));
    report.add_parameter("repeats", std::to_string(p.repeats));
    report.add_parameter("cpu_patches", std::to_string(p.sample.size()));
    report.add_parameter("cpu_repeats", std::to_string(p.slow_repeats));
    report.add_parameter(
        "image",
        std::to_string(image_width) + "x" + std::to_string(image_height) +
            " int16, grid -nx " + std::to_string(grid_nx) + " -ny " +
            std::to_string(grid_ny) + " -xsearch " + std::to_string(image_search) +
            " -ysearch " + std::to_string(image_search) + ", " +
            std::to_string(c.image_patches) + " patches, rshift " +
            std::to_string(image_rshift) + " ashift " + std::to_string(image_ashift));
    report.add_parameter("image_repeats", std::to_string(p.image_repeats));
    report.add_parameter("cpu_image_patches", std::to_string(c.image_sample.size()));
    std::ostringstream os;
    os << "band-limited complex speckle (bandwidth " << speckle_bandwidth << "), std "
       << component_std << " per component rounded to integers, "
       << "aligned moved by uniform +-" << max_shift << " px per patch, coherence "
       << coherence << ", seed " << input_seed << "; image: offset (" << image_dx << ", "
       << image_dy << ") px, tile " << image_tile;
    report.add_parameter("input", os.str());
}

/*!
 * The patches: all of them in pinned memory with a device (the pinned row uses them as
 * they are, the device rows upload them), and the CPU sample's copies; the CPU sample
 * alone without a device.
 */
struct patch_input {
    core::pinned_buffer<cfloat> pinned_master, pinned_aligned;
    std::vector<cfloat> cpu_master, cpu_aligned;
};

patch_input make_patch_input(const patch_case& p, const bench_device& device)
{
    const std::size_t patch_elements = p.patch_elements;
    const std::vector<std::size_t>& sample = p.sample;
    progress(section_name,
             "input: " + std::to_string(device.cuda ? p.npatches : sample.size()) +
                 " patch pairs of " + std::to_string(p.g.npy) + " x " +
                 std::to_string(p.g.npx));
    patch_input in;
    in.cpu_master.resize(sample.size() * patch_elements);
    in.cpu_aligned.resize(sample.size() * patch_elements);
    if (device.cuda) {
        in.pinned_master = core::pinned_buffer<cfloat>(p.npatches * patch_elements);
        in.pinned_aligned = core::pinned_buffer<cfloat>(p.npatches * patch_elements);
        parallel_for(p.npatches, [&](std::size_t k) {
            make_patch_pair(k,
                            p.g.npy,
                            p.g.npx,
                            in.pinned_master.get() + k * patch_elements,
                            in.pinned_aligned.get() + k * patch_elements);
        });
        for (std::size_t i = 0; i < sample.size(); ++i) {
            std::memcpy(in.cpu_master.data() + i * patch_elements,
                        in.pinned_master.get() + sample[i] * patch_elements,
                        patch_elements * sizeof(cfloat));
            std::memcpy(in.cpu_aligned.data() + i * patch_elements,
                        in.pinned_aligned.get() + sample[i] * patch_elements,
                        patch_elements * sizeof(cfloat));
        }
    } else {
        parallel_for(sample.size(), [&](std::size_t i) {
            make_patch_pair(sample[i],
                            p.g.npy,
                            p.g.npx,
                            in.cpu_master.data() + i * patch_elements,
                            in.cpu_aligned.data() + i * patch_elements);
        });
    }
    return in;
}

//! The patches and the results in device memory, uploaded on their own stream.
struct device_patches {
    core::device_buffer<cfloat> master, aligned;
    core::device_buffer<patch_result> results;
    core::cuda_stream stream;

    device_patches(const patch_case& p, const patch_input& in)
        : master(p.npatches * p.patch_elements),
          aligned(p.npatches * p.patch_elements),
          results(p.npatches)
    {
        CUDADSP_CUDA(cudaMemcpyAsync(master.get(),
                                     in.pinned_master.get(),
                                     master.size() * sizeof(cfloat),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        CUDADSP_CUDA(cudaMemcpyAsync(aligned.get(),
                                     in.pinned_aligned.get(),
                                     aligned.size() * sizeof(cfloat),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        stream.synchronize();
    }
};

void measure_engine_device_patches(row& r,
                                   core::patch_correlator& engine,
                                   device_patches& d,
                                   const patch_case& p,
                                   const std::vector<patch_result>& reference)
{
    const std::size_t npatches = p.npatches;
    std::vector<patch_result> results(npatches);
    CUDADSP_CUDA(cudaMemsetAsync(
        d.results.get(), poison_byte, npatches * sizeof(patch_result), d.stream.get()));
    engine.correlate_patches_device(
        d.master.get(), d.aligned.get(), npatches, d.results.get(), d.stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(results.data(),
                                 d.results.get(),
                                 npatches * sizeof(patch_result),
                                 cudaMemcpyDeviceToHost,
                                 d.stream.get()));
    d.stream.synchronize();
    check_results(r, results.data(), npatches, p.sample, reference);
    r.clock = "events";
    r.samples = double(npatches) * p.pair_samples;
    r.bytes = double(p.patch_bytes + npatches * sizeof(patch_result));
    r.time = time_cuda(d.stream.get(), 2, p.repeats, [&] {
        engine.correlate_patches_device(
            d.master.get(), d.aligned.get(), npatches, d.results.get(), d.stream.get());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, npatches);
}

void measure_engine_pinned_patches(row& r,
                                   core::patch_correlator& engine,
                                   const patch_input& in,
                                   const patch_case& p,
                                   const std::vector<patch_result>& reference)
{
    const std::size_t npatches = p.npatches;
    core::pinned_buffer<patch_result> out(npatches);
    std::memset(out.get(), poison_byte, npatches * sizeof(patch_result));
    engine.correlate_patches(
        in.pinned_master.get(), in.pinned_aligned.get(), npatches, out.get());
    check_results(r, out.get(), npatches, p.sample, reference);
    r.clock = "wall";
    r.samples = double(npatches) * p.pair_samples;
    r.bytes = double(p.patch_bytes + npatches * sizeof(patch_result));
    r.time = time_host(1, p.repeats, [&] {
        engine.correlate_patches(
            in.pinned_master.get(), in.pinned_aligned.get(), npatches, out.get());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, npatches);
}

void measure_patch_cuda_rows(section_report& report,
                             const patch_case& p,
                             const patch_input& in,
                             const std::vector<patch_result>& reference)
{
    device_patches d(p, in);
    auto engine = core::patch_correlator::make(p.config);
    const std::size_t batch = engine_batch(*engine);
    report.add_parameter("engine_batch", std::to_string(batch));

    progress(section_name, "floors");
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(p.patch_bytes, double(p.npatches) * p.pair_samples, p.repeats);
        r.note = "both images' patches, " + mebibytes(p.patch_bytes) +
                 "; read + write counted";
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(
            p.patch_bytes, double(p.npatches) * p.pair_samples, p.repeats);
        r.note = "both images' patches, " + mebibytes(p.patch_bytes);
    });
    report.measure(row_cufft, [&](row& r) {
        r = cufft_floor(
            p.g, p.npatches, batch, d.master.get(), d.aligned.get(), nullptr, p.repeats);
        r.name = row_cufft;
    });

    progress(section_name, row_device);
    report.measure(row_device, [&](row& r) {
        measure_engine_device_patches(r, *engine, d, p, reference);
    });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        measure_engine_pinned_patches(r, *engine, in, p, reference);
    });
}

void measure_cpu_patches(row& r, const patch_case& p, const patch_input& in)
{
    const std::vector<std::size_t>& sample = p.sample;
    auto engine = core::patch_correlator::make(make_config(search, "cpu"));
    std::vector<patch_result> out(sample.size());
    r.clock = "wall";
    r.samples = double(sample.size()) * p.pair_samples;
    r.bytes = double(2 * sample.size() * p.patch_elements * sizeof(cfloat));
    r.time = time_host(1, p.slow_repeats, [&] {
        engine->correlate_patches(
            in.cpu_master.data(), in.cpu_aligned.data(), sample.size(), out.data());
    });
    set_truth_status(r, compare_with_planted(out, sample), sample.size());
}

/*!
 * The image pair: in pinned memory with a device (as cudadsp_xcorr's pinned-or-mapped
 * input would be at best), pageable without; the views on it and the CPU's sample of
 * its pairs.
 */
struct image_input {
    core::pinned_buffer<std::int16_t> pinned_images[2];
    std::vector<std::int16_t> pageable_images[2];
    core::image_view master_view, aligned_view;
    std::vector<core::patch_pair> sample_pairs;
};

void fill_image_input(image_input& in, const image_case& c, const bench_device& device)
{
    progress(section_name,
             "image pair: " + std::to_string(image_width) + " x " +
                 std::to_string(image_height) + " int16");
    std::int16_t* images[2];
    for (int img = 0; img < 2; ++img) {
        if (device.cuda) {
            in.pinned_images[img] =
                core::pinned_buffer<std::int16_t>(2 * c.image_samples);
            images[img] = in.pinned_images[img].get();
        } else {
            in.pageable_images[img].resize(2 * c.image_samples);
            images[img] = in.pageable_images[img].data();
        }
    }
    make_image_pair(images[0], images[1]);
    in.master_view = { images[0],
                       core::slc_sample_type::complex_int16,
                       std::size_t(image_width),
                       std::size_t(image_height) };
    in.aligned_view = { images[1],
                        core::slc_sample_type::complex_int16,
                        std::size_t(image_width),
                        std::size_t(image_height) };
    for (const std::size_t k : c.image_sample)
        in.sample_pairs.push_back(c.pairs[k]);
}

//! The reference of the image rows: the CPU engine's correlate() on the sample pairs.
std::vector<patch_result> cpu_image_reference(const image_input& in)
{
    progress(section_name,
             "reference: cpu correlate() on " + std::to_string(in.sample_pairs.size()) +
                 " pairs");
    std::vector<patch_result> image_reference(in.sample_pairs.size());
    auto cpu = core::patch_correlator::make(make_config(image_search, "cpu"));
    std::memset(image_reference.data(),
                poison_byte,
                image_reference.size() * sizeof(patch_result));
    cpu->correlate(in.master_view,
                   in.aligned_view,
                   in.sample_pairs.data(),
                   in.sample_pairs.size(),
                   image_reference.data());
    return image_reference;
}

//! make() of the image case's CUDA engine; \p image_batch: the engine's batch.
void measure_image_make(row& r,
                        const image_case& c,
                        int slow_repeats,
                        std::size_t& image_batch)
{
    std::vector<double> ms;
    for (int i = 0; i < slow_repeats; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto e = core::patch_correlator::make(c.image_config);
        const auto t1 = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        image_batch = engine_batch(*e);
    }
    r.clock = "wall";
    r.time = summarize(ms);
    r.note = "buffers and cuFFT plans, batch " + std::to_string(image_batch) +
             " patches (the device context exists already)";
}

//! The image case's transforms on one batch of input, reused: filled from the xs=64
//! patches' bytes.
void measure_image_cufft_floor(row& r,
                               const image_case& c,
                               std::size_t image_batch,
                               const patch_case& p,
                               const patch_input& patches)
{
    if (image_batch == 0)
        throw std::runtime_error("needs the engine's batch (row '" + row_image_make +
                                 "')");
    core::device_buffer<cfloat> fill(2 * image_batch * std::size_t(4 * image_search) *
                                     std::size_t(4 * image_search));
    CUDADSP_CUDA(cudaMemset(fill.get(), 0, fill.size() * sizeof(cfloat)));
    CUDADSP_CUDA(
        cudaMemcpy(fill.get(),
                   patches.pinned_master.get(),
                   std::min(fill.size(), p.npatches * p.patch_elements) * sizeof(cfloat),
                   cudaMemcpyHostToDevice));
    r = cufft_floor(geometry_of(c.image_config),
                    c.image_patches,
                    image_batch,
                    nullptr,
                    nullptr,
                    fill.get(),
                    p.repeats);
    r.name = row_image_cufft;
}

void measure_image_correlate(row& r,
                             const image_case& c,
                             const image_input& in,
                             const std::vector<patch_result>& image_reference,
                             int image_repeats)
{
    auto e = core::patch_correlator::make(c.image_config);
    std::vector<patch_result> out(c.image_patches);
    std::memset(out.data(), poison_byte, out.size() * sizeof(patch_result));
    e->correlate(
        in.master_view, in.aligned_view, c.pairs.data(), c.image_patches, out.data());
    check_results(r, out.data(), c.image_patches, c.image_sample, image_reference);
    r.clock = "wall";
    r.samples = double(c.image_patches) * c.image_pair_samples;
    r.bytes = double(c.image_bytes);
    r.time = time_host(1, image_repeats, [&] {
        e->correlate(
            in.master_view, in.aligned_view, c.pairs.data(), c.image_patches, out.data());
    });
    if (r.status == row_status::ok)
        r.note = per_patch(r, c.image_patches) + "; pairs in strip order";
}

void measure_image_cuda_rows(section_report& report,
                             const patch_case& p,
                             const patch_input& patches,
                             const image_case& c,
                             const image_input& in,
                             const std::vector<patch_result>& image_reference)
{
    report.measure(row_image_h2d, [&](row& r) {
        r = floor_h2d_pinned(
            c.image_bytes, double(c.image_patches) * c.image_pair_samples, p.repeats);
        r.name = row_image_h2d;
        r.note = "both images, " + mebibytes(c.image_bytes);
    });

    std::size_t image_batch = 0;
    progress(section_name, row_image_make);
    report.measure(row_image_make, [&](row& r) {
        measure_image_make(r, c, p.slow_repeats, image_batch);
    });

    report.measure(row_image_cufft, [&](row& r) {
        measure_image_cufft_floor(r, c, image_batch, p, patches);
    });

    progress(section_name, row_image);
    report.measure(row_image, [&](row& r) {
        measure_image_correlate(r, c, in, image_reference, p.image_repeats);
    });
}

void measure_image_cpu(row& r,
                       const image_case& c,
                       const image_input& in,
                       int slow_repeats)
{
    auto cpu = core::patch_correlator::make(make_config(image_search, "cpu"));
    std::vector<patch_result> out(in.sample_pairs.size());
    r.clock = "wall";
    r.samples = double(in.sample_pairs.size()) * c.image_pair_samples;
    r.time = time_host(1, slow_repeats, [&] {
        cpu->correlate(in.master_view,
                       in.aligned_view,
                       in.sample_pairs.data(),
                       in.sample_pairs.size(),
                       out.data());
    });
    set_truth_status(r, compare_image_with_planted(out), in.sample_pairs.size());
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_device, row_cufft, "cuFFT floor");
    report.ratio_to(row_device, row_d2d, "d2d copy");
    report.target_max_ratio(row_device, "x cuFFT floor", target_cufft_ratio);
    report.ratio_to(row_pinned, row_h2d, "pinned H2D");
    report.speedup_over(row_device, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_pinned, row_cpu, "speed-up vs cpu");
    report.ratio_to(row_image, row_image_cufft, "cuFFT floor");
    report.ratio_to(row_image, row_image_h2d, "pinned H2D");
    report.speedup_over(row_image, row_image_cpu, "speed-up vs cpu");
}

void add_notes(section_report& report, std::size_t cpu_patches, std::size_t cpu_pairs)
{
    report.add_note("a sample is one complex sample of a patch window of either image "
                    "(a pair of 256 x 256 windows is 131072 samples, of 512 x 512 "
                    "524288): ratios compare time per pair; the xs=ys=64 rows are "
                    "compared with each other, the image rows (xs=ys=128) with each "
                    "other");
    report.add_note(
        "'floor: cuFFT transforms': the engine's transforms alone, with its "
        "plans' layouts and its batch, out of place on device buffers; the "
        "engine adds the range spectra's spread, the amplitudes, means, mask, "
        "cross spectrum and the peak and high-resolution kernel");
    report.add_note(
        "check: dx and dy (GMTSAR's formulas, float32) equal and corr within " +
        format(corr_tolerance) + " percent against the cpu engine on " +
        std::to_string(cpu_patches) +
        " patches spread over the run (image rows: " + std::to_string(cpu_pairs) +
        " pairs); every result checked for being written; the cpu rows against the "
        "planted offsets");
}

void run_patch(const bench_options& options,
               const bench_device& device,
               section_report& report)
{
    const patch_case p = make_patch_case(options, device);
    const image_case c = make_image_case(device);
    add_parameters(report, p, c);

    const patch_input patches = make_patch_input(p, device);
    // The reference: the CPU engine on the sample, one call (its rows' times later).
    progress(section_name,
             "reference: cpu engine on " + std::to_string(p.sample.size()) + " patches");
    const std::vector<patch_result> reference = cpu_reference(
        search, p.sample.size(), patches.cpu_master.data(), patches.cpu_aligned.data());
    report.add_parameter("reference_vs_planted",
                         compare_with_planted(reference, p.sample).text());

    if (device.cuda) {
        measure_patch_cuda_rows(report, p, patches, reference);
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        for (const auto& name : { row_d2d, row_h2d, row_cufft, row_device, row_pinned })
            report.skip(name, device.skip_reason);
    }

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_patches(r, p, patches); });

    image_input images;
    fill_image_input(images, c, device);
    const std::vector<patch_result> image_reference = cpu_image_reference(images);
    report.add_parameter("image_reference_vs_planted",
                         compare_image_with_planted(image_reference).text());

    if (device.cuda) {
        measure_image_cuda_rows(report, p, patches, c, images, image_reference);
    } else {
        for (const auto& name :
             { row_image_h2d, row_image_make, row_image_cufft, row_image })
            report.skip(name, device.skip_reason);
    }

    progress(section_name, row_image_cpu);
    report.measure(row_image_cpu,
                   [&](row& r) { measure_image_cpu(r, c, images, p.slow_repeats); });

    add_ratios_and_targets(report);
    add_notes(report, p.sample.size(), c.image_sample.size());
}

} // namespace

CUDADSP_BENCH_SECTION(
    patch,
    "patch",
    "image-patch correlator (GMTSAR xcorr), 1000 patches of 256 x 256, xsearch = "
    "ysearch = 64, range_interp 2, interp 16: CUDA engine on device patches (target <= "
    "2x the bare cuFFT transforms) and on pinned host patches, CPU engine on a sample; "
    "correlate() on a pinned 11304 x 9216 int16 pair with -xsearch 128 -ysearch 128 "
    "next to its upload and its cuFFT transforms",
    run_patch);

} // namespace bench
} // namespace cudadsp
} // namespace gr
