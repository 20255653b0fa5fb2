/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/patch_correlation_rule.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include "runtime/batch_progress.h"
#include "runtime/cuda_check.h"
#include "runtime/cufft_plan.h"
#include "runtime/cufft_plan_family.h"
#include "runtime/staged_upload.h"
#include <cub/block/block_reduce.cuh>
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr unsigned int all_lanes = 0xffffffffu;

//! Batch buffers when the configuration leaves the batch size to the engine: at most
//! this, and at most a quarter of the device memory free at construction.
constexpr std::size_t default_batch_bytes = std::size_t(1) << 30;
//! Bound on an automatic batch.
constexpr std::size_t max_default_batch = 4096;

//! Row kernels: one warp per patch row, row_warps rows per block.
constexpr int row_warps = 8;
constexpr int row_threads = row_warps * 32;

constexpr int spectrum_threads = 256;

constexpr int peak_threads = 256;

//! Rows of the image ring per patch height: the largest row span of a batch.
constexpr long long ring_rows_per_npy = 4;

//! Bytes of batch buffers per patch.
std::size_t bytes_per_patch(const patch_geometry& g)
{
    const std::size_t samples = std::size_t(g.npy) * g.npx;
    std::size_t bytes = 2 * samples * sizeof(float);               // amplitudes
    bytes += 2 * std::size_t(g.npy) * (g.npx + 2) * sizeof(float); // 2D transforms
    bytes += 2 * std::size_t(g.npy) * sizeof(double);              // row sums
    if (g.ri > 1)
        bytes += 2 * std::size_t(g.npy) * g.range_len() * sizeof(float2); // range rows
    return bytes;
}

std::size_t batch_patches_for(const patch_correlator_config& config, int ordinal)
{
    if (config.batch_patches > 0)
        return config.batch_patches;
    const patch_geometry g = make_patch_geometry(config);
    std::size_t free_bytes = 0, total_bytes = 0;
    {
        device_guard guard(ordinal);
        CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
    }
    const std::size_t budget = std::min(default_batch_bytes, free_bytes / 4);
    // validate()'s bound on explicit choices.
    const std::size_t largest = static_cast<std::size_t>(
        ((1LL << 31) - 1) / (2LL * g.npy * static_cast<long long>(g.npx) * g.ri));
    return std::clamp<std::size_t>(
        budget / bytes_per_patch(g), 1, std::min(max_default_batch, largest));
}

// ---------------------------------------------------------------------------------
// Patch sample sources
// ---------------------------------------------------------------------------------

//! The caller's complex patches (npy x npx each, patch-major).
struct patch_source {
    const float2* image[2]; //!< master, aligned
    int npx, npy;

    __device__ float2 sample(int img, unsigned int patch, int r, int c) const
    {
        // A select, not an index: a runtime index into a kernel parameter's array
        // would copy the array to local memory.
        const float2* base = img ? image[1] : image[0];
        return __ldg(base + (std::size_t(patch) * npy + r) * npx + c);
    }
};

//! One image's rows on the device: row y at ring row y mod capacity.
struct ring_view {
    const void* data;
    long long width;
    long long capacity;
    bool int16;
};

//! Patches extracted from the image rings at the batch's pairs.
struct ring_source {
    ring_view ring[2];
    const patch_pair* pairs; //!< the batch's pairs (device)

    __device__ float2 sample(int img, unsigned int patch, int r, int c) const
    {
        const patch_pair& p = pairs[patch];
        const long long row = (img ? p.aligned_row : p.master_row) + r;
        const long long col = (img ? p.aligned_col : p.master_col) + c;
        // Selects, not an index (see patch_source).
        const void* data = img ? ring[1].data : ring[0].data;
        const long long width = img ? ring[1].width : ring[0].width;
        const long long capacity = img ? ring[1].capacity : ring[0].capacity;
        const bool int16 = img ? ring[1].int16 : ring[0].int16;
        const std::size_t i = std::size_t(row % capacity) * width + col;
        if (int16) {
            const short2 s = __ldg(static_cast<const short2*>(data) + i);
            return make_float2(static_cast<float>(s.x), static_cast<float>(s.y));
        }
        return __ldg(static_cast<const float2*>(data) + i);
    }
};

//! The middle npx of the range-interpolated rows, scaled as GMTSAR.
struct interpolated_source {
    const float2* rows; //!< 2n npy rows of M
    unsigned int npatches;
    int npx, npy, M, ri;

    __device__ float2 sample(int img, unsigned int patch, int r, int c) const
    {
        const std::size_t row = (std::size_t(img) * npatches + patch) * npy + r;
        const float2 w = rows[row * M + c + npx / 2];
        return make_float2(interpolation_scale(w.x, M, ri),
                           interpolation_scale(w.y, M, ri));
    }
};

//! The warp's patch row: (image, patch, row) of global warp \p w, false past the end.
struct row_of_warp {
    unsigned long long w;
    int img;
    unsigned int patch;
    int r;
};

__device__ bool locate_row(unsigned int npatches, int npy, row_of_warp& out)
{
    out.w = (unsigned long long)blockIdx.x * row_warps + threadIdx.x / 32;
    const unsigned long long rows = 2ull * npatches * npy;
    if (out.w >= rows)
        return false;
    const unsigned long long ip = out.w / npy;
    out.r = static_cast<int>(out.w % npy);
    out.img = ip >= npatches ? 1 : 0;
    out.patch = static_cast<unsigned int>(ip - (out.img ? npatches : 0));
    return true;
}

// ---------------------------------------------------------------------------------
// Range interpolation
// ---------------------------------------------------------------------------------

/*!
 * Copies each patch row into the first npx samples of its M-sample row (M =
 * range_len()): one warp per row of the 2n npy rows (master patches, then aligned),
 * rows holding 2n npy rows of M float2; the rest of each row is left as it is.
 */
template <typename Source>
__global__ void __launch_bounds__(row_threads) load_rows_kernel(Source src,
                                                                float2* __restrict__ rows,
                                                                unsigned int npatches,
                                                                patch_geometry g)
{
    row_of_warp w;
    if (!locate_row(npatches, g.npy, w))
        return;
    float2* out = rows + w.w * g.range_len();
    for (int c = threadIdx.x % 32; c < g.npx; c += 32)
        out[c] = src.sample(w.img, w.patch, w.r, c);
}

/*!
 * fft_arrange_interpolate in place: each M-sample row holds an npx-point spectrum in
 * its first npx samples; bins npx/2 .. npx-1 move to M - npx/2 .. M - 1 (the Nyquist
 * bin to the negative side only) and the middle becomes zeros.
 */
__global__ void __launch_bounds__(row_threads)
    spread_kernel(float2* __restrict__ rows, unsigned int npatches, patch_geometry g)
{
    row_of_warp w;
    if (!locate_row(npatches, g.npy, w))
        return;
    const int N = g.npx, M = g.range_len(), h = N / 2;
    float2* row = rows + w.w * M;
    const int lane = threadIdx.x % 32;
    // Source [h, N) and destination [M - h, M) do not overlap (M >= 2N).
    for (int k = h + lane; k < N; k += 32)
        row[padded_bin(k, N, M)] = row[k];
    __syncwarp();
    for (int k = h + lane; k < M - h; k += 32)
        row[k] = make_float2(0.0f, 0.0f);
}

// ---------------------------------------------------------------------------------
// Amplitudes, mean, mask
// ---------------------------------------------------------------------------------

/*!
 * Amplitudes of each patch row into amp (2n npy rows of npx), and the row's float64
 * sum in the shared order (sum_in_lane_order: lane l sums columns l, l + 32, ...,
 * then the lanes pairwise) into row_sums.
 */
template <typename Source>
__global__ void __launch_bounds__(row_threads)
    amplitude_kernel(Source src,
                     float* __restrict__ amp,
                     double* __restrict__ row_sums,
                     unsigned int npatches,
                     patch_geometry g)
{
    row_of_warp w;
    if (!locate_row(npatches, g.npy, w))
        return;
    float* out = amp + w.w * g.npx;
    double sum = 0.0;
    // Not unrolled: each double square root has a called slow path, and unrolled
    // copies keep more values live across those calls than the registers hold.
#pragma unroll 1
    for (int c = threadIdx.x % 32; c < g.npx; c += 32) {
        const float2 z = src.sample(w.img, w.patch, w.r, c);
        const float a = patch_amplitude(z.x, z.y);
        out[c] = a;
        sum = __dadd_rn(sum, static_cast<double>(a));
    }
    for (int offset = mean_lanes / 2; offset > 0; offset /= 2)
        sum = __dadd_rn(sum, __shfl_down_sync(all_lanes, sum, offset));
    if (threadIdx.x % 32 == 0)
        row_sums[w.w] = sum;
}

//! The mean of each of the 2n patch images: a warp sums its row sums in the lane order.
__global__ void __launch_bounds__(row_threads)
    mean_kernel(const double* __restrict__ row_sums,
                float* __restrict__ means,
                unsigned int images,
                patch_geometry g)
{
    const unsigned int image = blockIdx.x * row_warps + threadIdx.x / 32;
    if (image >= images)
        return;
    const double* sums = row_sums + std::size_t(image) * g.npy;
    double sum = 0.0;
    for (int r = threadIdx.x % 32; r < g.npy; r += 32)
        sum = __dadd_rn(sum, sums[r]);
    for (int offset = mean_lanes / 2; offset > 0; offset /= 2)
        sum = __dadd_rn(sum, __shfl_down_sync(all_lanes, sum, offset));
    if (threadIdx.x % 32 == 0)
        means[image] = patch_mean(sum, g.npy, g.npx);
}

/*!
 * Mean removal and the aligned patches' mask into the real 2D transform input (rows of
 * npx + 2 floats, the in-place real-to-complex layout). amp keeps the raw amplitudes:
 * the peak kernel forms the integer copies from them with the same rule.
 */
__global__ void __launch_bounds__(row_threads)
    demean_kernel(const float* __restrict__ amp,
                  const float* __restrict__ means,
                  float* __restrict__ transform_in,
                  unsigned int npatches,
                  patch_geometry g)
{
    row_of_warp w;
    if (!locate_row(npatches, g.npy, w))
        return;
    const float mean = means[w.w / g.npy];
    const float* a = amp + w.w * g.npx;
    float* t = transform_in + w.w * (g.npx + 2);
    for (int c = threadIdx.x % 32; c < g.npx; c += 32)
        t[c] = demeaned_amplitude(a[c], mean, w.img == 1, w.r, c, g);
}

//! S = F1 conj(F2) over the n master spectra (first half), written over F1.
__global__ void __launch_bounds__(spectrum_threads)
    cross_spectrum_kernel(float2* __restrict__ spectra, std::size_t bins)
{
    const std::size_t i = std::size_t(blockIdx.x) * spectrum_threads + threadIdx.x;
    if (i >= bins)
        return;
    const float2 a = spectra[i];
    const float2 b = spectra[bins + i];
    spectra[i] = make_float2(a.x * b.x + a.y * b.y, a.y * b.x - a.x * b.y);
}

// ---------------------------------------------------------------------------------
// Peak, correlation value, high-resolution step
// ---------------------------------------------------------------------------------

/*!
 * merge() as a reduction operator: the larger value wins, on equal values the lower
 * index, and an empty first_max (index < 0) loses to any other. A total order on the
 * candidates, so CUB's tree finds the first maximum a scan in index order finds.
 */
struct first_max_merge {
    __device__ __forceinline__ first_max operator()(first_max a, const first_max& b) const
    {
        merge(a, b);
        return a;
    }
};

//! merge() of the exact integer sums (any order gives the same bits).
struct time_sums_add {
    __device__ __forceinline__ time_sums operator()(time_sums a, const time_sums& b) const
    {
        add_time_sums(a, b);
        return a;
    }
};

using first_max_reduce = cub::BlockReduce<first_max, peak_threads>;
using time_sums_reduce = cub::BlockReduce<time_sums, peak_threads>;

//! Shared memory of peak_kernel's block reductions.
union peak_reduce_storage {
    first_max_reduce::TempStorage first_max;
    time_sums_reduce::TempStorage time;
};

/*!
 * Block-wide first maximum, returned to every thread; called by the whole block.
 * \p value and \p index are shared scalars that carry thread 0's result to the block
 * (a __shared__ first_max would need a constructor). Ends with a barrier, so that
 * \p storage may be used again at once.
 */
__device__ first_max block_first_max(const first_max& best,
                                     peak_reduce_storage& storage,
                                     float& value,
                                     int& index)
{
    const first_max total =
        first_max_reduce(storage.first_max).Reduce(best, first_max_merge{});
    if (threadIdx.x == 0) {
        value = total.value;
        index = total.index;
    }
    __syncthreads();
    first_max result;
    result.value = value;
    result.index = index;
    __syncthreads();
    return result;
}

struct peak_args {
    const float* correlation; //!< n real correlations, rows of npx + 2
    const float* amp;         //!< 2n amplitude patches (raw)
    const float* means;       //!< their 2n means
    unsigned int npatches;
    patch_geometry g;
    patch_result* results;
};

/*!
 * |C[i + ys][j + xs]| of GMTSAR at a cell i nxc + j of the nyc x nxc search window:
 * |R[(i - ys) mod npy][(j - xs) mod npx]| of the patch's real correlation R (rows of
 * npx + 2 floats).
 */
struct correlation_surface {
    const float* R;
    int nxc;
    const patch_geometry& g;

    __device__ __forceinline__ float operator()(int cell) const
    {
        const int i = cell / nxc, j = cell % nxc;
        const int row = i < g.ysearch ? i - g.ysearch + g.npy : i - g.ysearch;
        const int col = j < g.xsearch ? j - g.xsearch + g.npx : j - g.xsearch;
        return surface_value_real(R[row * (g.npx + 2) + col], g);
    }
};

/*!
 * The time-domain correlation gamma (percent) of one patch on the integer copies at
 * its peak \p best (exact integer sums, calc_time_corr()), returned to every thread;
 * called by the whole block. \p gamma_shared carries thread 0's value to the block.
 */
__device__ __forceinline__ double time_correlation(const peak_args& args,
                                                   unsigned int patch,
                                                   const first_max& best,
                                                   int nxc,
                                                   int nyc,
                                                   peak_reduce_storage& storage,
                                                   double& gamma_shared)
{
    const patch_geometry& g = args.g;
    const int ipeak = best.index / nxc - g.ysearch;
    const int jpeak = best.index % nxc - g.xsearch;
    const std::size_t samples = std::size_t(g.npy) * g.npx;
    const float* a1 = args.amp + std::size_t(patch) * samples;
    const float* a2 = args.amp + (std::size_t(args.npatches) + patch) * samples;
    const float mean1 = args.means[patch];
    const float mean2 = args.means[args.npatches + patch];
    time_sums sums;
    for (int cell = threadIdx.x; cell < nyc * nxc; cell += peak_threads) {
        const int p = cell / nxc, q = cell % nxc;
        add_time_term(
            sums,
            integer_copy(demeaned_amplitude(
                a1[(g.ysearch + p + ipeak) * g.npx + q + jpeak + g.xsearch],
                mean1,
                false,
                g.ysearch + p + ipeak,
                q + jpeak + g.xsearch,
                g)),
            integer_copy(demeaned_amplitude(a2[(g.ysearch + p) * g.npx + q + g.xsearch],
                                            mean2,
                                            true,
                                            g.ysearch + p,
                                            q + g.xsearch,
                                            g)));
    }
    const time_sums total = time_sums_reduce(storage.time).Reduce(sums, time_sums_add{});
    if (threadIdx.x == 0)
        gamma_shared = time_correlation_percent(total);
    __syncthreads();
    return gamma_shared;
}

/*!
 * The high-resolution step of one patch: the 8 x 8 neighbourhood of the peak \p best,
 * interpolated by 8 interp points per cell with 2D DFTs, and the first maximum of the
 * interpolated surface (interpolated index m H + n), returned to every thread; called
 * by the whole block. \p dynamic_shared holds peak_shared_bytes(g): twiddles
 * e^{2 pi i m / H} (H = 8 interp), the neighbourhood's row spectra (8 x 8), its row
 * interpolation (8 x H) and the neighbourhood (8 x 8 floats).
 */
__device__ __forceinline__ first_max highres_peak(const correlation_surface& surface,
                                                  const first_max& best,
                                                  double gamma,
                                                  float2* dynamic_shared,
                                                  peak_reduce_storage& storage,
                                                  float& merge_value,
                                                  int& merge_index)
{
    const patch_geometry& g = surface.g;
    const int nxc = surface.nxc;
    first_max highres_best;
    const int H = g.highres_len();
    float2* twiddle = dynamic_shared;                   // H: e^{+2 pi i m / H}
    float2* spectrum = twiddle + H;                     // 8 x 8: row spectra of md
    float2* rows = spectrum + 64;                       // 8 x H: row interpolation
    float* md = reinterpret_cast<float*>(rows + 8 * H); // 8 x 8
    const int peak_row = best.index / nxc, peak_col = best.index % nxc;
    for (int m = threadIdx.x; m < H; m += peak_threads) {
        double s, c;
        sincospi(2.0 * static_cast<double>(m) / static_cast<double>(H), &s, &c);
        twiddle[m] = make_float2(static_cast<float>(c), static_cast<float>(s));
    }
    if (threadIdx.x < 64) {
        const int cell =
            neighbourhood_cell(threadIdx.x / 8, threadIdx.x % 8, peak_row, peak_col, g);
        md[threadIdx.x] =
            cell < 0 ? 0.0f : highres_cell(gamma, surface(cell), best.value);
    }
    __syncthreads();
    // e^{-2 pi i k v / 8} = conj(twiddle[k v interp mod H]).
    const int step8 = g.interp;
    if (threadIdx.x < 64) {
        const int u = threadIdx.x / 8, k = threadIdx.x % 8;
        float re = 0.0f, im = 0.0f;
        for (int v = 0; v < 8; ++v) {
            const float2 t = twiddle[(k * v * step8) % H];
            const float x = md[u * 8 + v];
            re += x * t.x;
            im -= x * t.y;
        }
        spectrum[threadIdx.x] = make_float2(re, im);
    }
    __syncthreads();
    // Row interpolation: rows[u][n] = sum_k X_u[k] e^{2 pi i k' n / H}, scaled.
    for (int e = threadIdx.x; e < 8 * H; e += peak_threads) {
        const int u = e / H, n = e % H;
        float re = 0.0f, im = 0.0f;
        for (int k = 0; k < 8; ++k) {
            const float2 x = spectrum[u * 8 + k];
            const float2 t = twiddle[(padded_bin(k, 8, H) * n) % H];
            re += x.x * t.x - x.y * t.y;
            im += x.x * t.y + x.y * t.x;
        }
        rows[e] = make_float2(interpolation_scale(re, H, g.interp),
                              interpolation_scale(im, H, g.interp));
    }
    __syncthreads();
    // Columns: each unit takes column n's 8-point spectrum and a range of output
    // rows m; only the real part of the result is needed.
    const int splits = max(1, peak_threads / H);
    const int per_split = H / splits;
    for (int unit = threadIdx.x; unit < H * splits; unit += peak_threads) {
        const int n = unit % H, part = unit / H;
        float2 y[8];
        for (int k = 0; k < 8; ++k) {
            float re = 0.0f, im = 0.0f;
            for (int u = 0; u < 8; ++u) {
                const float2 t = twiddle[(k * u * step8) % H];
                const float2 x = rows[u * H + n];
                // x e^{-i theta}
                re += x.x * t.x + x.y * t.y;
                im += x.y * t.x - x.x * t.y;
            }
            y[k] = make_float2(re, im);
        }
        for (int m = part * per_split; m < (part + 1) * per_split; ++m) {
            float re = 0.0f;
            for (int k = 0; k < 8; ++k) {
                const float2 t = twiddle[(padded_bin(k, 8, H) * m) % H];
                re += y[k].x * t.x - y[k].y * t.y;
            }
            offer(highres_best, interpolation_scale(re, H, g.interp), m * H + n);
        }
    }
    return block_first_max(highres_best, storage, merge_value, merge_index);
}

/*!
 * One block of peak_threads threads per patch (grid: npatches blocks): the integer
 * peak of the patch's correlation surface, its time-domain correlation and, with
 * g.highres, the high-resolution peak; thread 0 writes args.results[patch]. Reads the
 * patch's real correlation (rows of npx + 2), its two raw amplitude patches and their
 * means; dynamic shared memory: peak_shared_bytes(g).
 */
__global__ void __launch_bounds__(peak_threads) peak_kernel(peak_args args)
{
    extern __shared__ float2 dynamic_shared[];
    __shared__ peak_reduce_storage reduce_storage;
    __shared__ float merge_value;
    __shared__ int merge_index;
    __shared__ double gamma_shared;

    const patch_geometry& g = args.g;
    const unsigned int patch = blockIdx.x;
    const int nxc = g.surface_cols(), nyc = g.surface_rows();
    const correlation_surface surface{
        args.correlation + std::size_t(patch) * g.npy * (g.npx + 2), nxc, g
    };

    first_max best;
    for (int cell = threadIdx.x; cell < nyc * nxc; cell += peak_threads)
        offer(best, surface(cell), cell);
    best = block_first_max(best, reduce_storage, merge_value, merge_index);

    first_max highres_best;
    if (best.index < 0) { // uniform over the block
        if (threadIdx.x == 0)
            args.results[patch] = finish_patch(best, 0.0, highres_best, g);
        return;
    }
    const double gamma =
        time_correlation(args, patch, best, nxc, nyc, reduce_storage, gamma_shared);
    if (g.highres)
        highres_best = highres_peak(surface,
                                    best,
                                    gamma,
                                    dynamic_shared,
                                    reduce_storage,
                                    merge_value,
                                    merge_index);
    if (threadIdx.x == 0)
        args.results[patch] = finish_patch(best, gamma, highres_best, g);
}

std::size_t peak_shared_bytes(const patch_geometry& g)
{
    if (!g.highres)
        return 0;
    const std::size_t H = g.highres_len();
    return (H + 64 + 8 * H) * sizeof(float2) + 64 * sizeof(float);
}

unsigned int row_blocks(std::size_t npatches, const patch_geometry& g)
{
    const std::size_t rows = 2 * npatches * std::size_t(g.npy);
    return static_cast<unsigned int>((rows + row_warps - 1) / row_warps);
}

} // namespace

// ---------------------------------------------------------------------------------
// Workspace
// ---------------------------------------------------------------------------------

struct patch_correlator_cuda::workspace {
    workspace(const patch_geometry& geometry, std::size_t batch)
        : g(geometry),
          batch(batch),
          rows(g.ri > 1 ? 2 * batch * g.npy * std::size_t(g.range_len()) : 0),
          amp(2 * batch * std::size_t(g.npy) * g.npx),
          transform(2 * batch * std::size_t(g.npy) * (g.npx / 2 + 1)),
          row_sums(2 * batch * std::size_t(g.npy)),
          means(2 * batch)
    {
        const int N = g.npx, M = g.range_len(), npy = g.npy;
        if (g.ri > 1) {
            range_forward.make(cufft_plan_family::power_of_two_counts(2 * batch),
                               [&](int count) {
                                   const int n[1] = { N }, embed[1] = { M };
                                   return cufft_plan(1,
                                                     n,
                                                     embed,
                                                     1,
                                                     M,
                                                     embed,
                                                     1,
                                                     M,
                                                     CUFFT_C2C,
                                                     count * npy,
                                                     cufft_plan::external_work_area{});
                               });
            // The caller's patches, rows of npx, transformed out of place into the
            // first npx samples of rows of M.
            range_forward_patches.make(
                cufft_plan_family::power_of_two_counts(batch), [&](int count) {
                    const int n[1] = { N }, in_embed[1] = { N }, out_embed[1] = { M };
                    return cufft_plan(1,
                                      n,
                                      in_embed,
                                      1,
                                      N,
                                      out_embed,
                                      1,
                                      M,
                                      CUFFT_C2C,
                                      count * npy,
                                      cufft_plan::external_work_area{});
                });
            range_inverse.make(cufft_plan_family::power_of_two_counts(2 * batch),
                               [&](int count) {
                                   const int n[1] = { M };
                                   return cufft_plan(1,
                                                     n,
                                                     n,
                                                     1,
                                                     M,
                                                     n,
                                                     1,
                                                     M,
                                                     CUFFT_C2C,
                                                     count * npy,
                                                     cufft_plan::external_work_area{});
                               });
        }
        const int n2[2] = { npy, N };
        const int real_embed[2] = { npy, N + 2 };
        const int complex_embed[2] = { npy, N / 2 + 1 };
        const int real_dist = npy * (N + 2), complex_dist = npy * (N / 2 + 1);
        forward_2d.make(cufft_plan_family::power_of_two_counts(2 * batch),
                        [&](int count) {
                            return cufft_plan(2,
                                              n2,
                                              real_embed,
                                              1,
                                              real_dist,
                                              complex_embed,
                                              1,
                                              complex_dist,
                                              CUFFT_R2C,
                                              count,
                                              cufft_plan::external_work_area{});
                        });
        inverse_2d.make(cufft_plan_family::power_of_two_counts(batch), [&](int count) {
            return cufft_plan(2,
                              n2,
                              complex_embed,
                              1,
                              complex_dist,
                              real_embed,
                              1,
                              real_dist,
                              CUFFT_C2R,
                              count,
                              cufft_plan::external_work_area{});
        });
        const std::size_t work = std::max({ range_forward.work_size(),
                                            range_forward_patches.work_size(),
                                            range_inverse.work_size(),
                                            forward_2d.work_size(),
                                            inverse_2d.work_size() });
        fft_work = device_buffer<unsigned char>(work);
        for (const cufft_plan_family* f : { &range_forward,
                                            &range_forward_patches,
                                            &range_inverse,
                                            &forward_2d,
                                            &inverse_2d })
            f->set_work_area(fft_work.get());
        const std::size_t shared = peak_shared_bytes(g);
        if (shared > 48 * 1024)
            CUDADSP_CUDA(cudaFuncSetAttribute(peak_kernel,
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(shared)));
    }

    const patch_geometry g;
    const std::size_t batch;
    cuda_stream stream;
    device_buffer<float2> rows;            //!< 2 batch npy rows of ri npx (ri > 1)
    device_buffer<float> amp;              //!< 2 batch patches of npy x npx
    device_buffer<float2> transform;       //!< 2 batch patches of npy x (npx/2 + 1) bins
    device_buffer<double> row_sums;        //!< 2 batch npy
    device_buffer<float> means;            //!< 2 batch
    device_buffer<unsigned char> fft_work; //!< declared before the plans: outlives them
    cufft_plan_family range_forward, range_forward_patches, range_inverse, forward_2d,
        inverse_2d;
};

//! Where a batch's samples come from: the caller's patches or the image rings.
struct patch_correlator_cuda::source {
    bool from_rings = false;
    patch_source patches{};
    ring_source rings{};
};

// ---------------------------------------------------------------------------------
// Image rings (correlate())
// ---------------------------------------------------------------------------------

struct patch_correlator_cuda::image_rings {
    struct ring {
        device_buffer<unsigned char> data;
        long long capacity = 0; //!< rows
        std::size_t row_bytes = 0;
        long long lo = 0, hi = 0; //!< resident rows [lo, hi)
    };
    ring rings[2];
    cuda_stream upload_stream;
    cuda_event uploaded, extracted;
    staged_upload upload;
    device_buffer<patch_pair> pairs;
    pinned_buffer<patch_pair> pairs_staging;
    device_buffer<patch_result> results;
    pinned_buffer<patch_result> results_staging;
    //! Timed events of a batch: its upload (upload stream) and computation (engine
    //! stream); compute_end also tells progress that the batch's results are known.
    struct batch_events {
        cuda_event upload_begin{ true }, upload_end{ true };
        cuda_event compute_begin{ true }, compute_end{ true };
    };
    std::vector<batch_events> batches; //!< reused across calls, grown as needed
    cuda_event download_begin{ true }, download_end{ true };

    //! Rings for \p view with \p capacity rows (reallocated when too small).
    void prepare(int img, const image_view& view, long long capacity)
    {
        ring& r = rings[img];
        const std::size_t sample_bytes = view.type == slc_sample_type::complex_int16
                                             ? 2 * sizeof(std::int16_t)
                                             : 2 * sizeof(float);
        r.row_bytes = view.width * sample_bytes;
        r.capacity = capacity;
        const std::size_t bytes = r.row_bytes * std::size_t(capacity);
        if (r.data.bytes() < bytes)
            r.data = device_buffer<unsigned char>(bytes);
        r.lo = r.hi = 0;
    }

    //! Image rows [u0, u1) into their ring rows (at most two contiguous pieces).
    void
    upload_rows(int img, const image_view& view, long long u0, long long u1, bool pinned)
    {
        ring& r = rings[img];
        const auto* host = static_cast<const unsigned char*>(view.data);
        while (u0 < u1) {
            const long long slot = u0 % r.capacity;
            const long long count = std::min(u1 - u0, r.capacity - slot);
            upload.copy(r.data.get() + std::size_t(slot) * r.row_bytes,
                        host + std::size_t(u0) * r.row_bytes,
                        std::size_t(count) * r.row_bytes,
                        pinned,
                        upload_stream.get());
            u0 += count;
        }
    }

    //! Makes rows [a, b) resident (b - a <= capacity), uploading what is missing.
    void
    ensure_rows(int img, const image_view& view, long long a, long long b, bool pinned)
    {
        ring& r = rings[img];
        if (r.hi > r.lo && a >= r.lo && b <= r.hi)
            return;
        if (r.hi > r.lo && a >= r.lo && a <= r.hi) {
            // Moving forward: rows [hi, b) replace the oldest ones, none of [a, b).
            upload_rows(img, view, r.hi, b, pinned);
            r.hi = b;
            r.lo = std::max(r.lo, b - r.capacity);
            return;
        }
        upload_rows(img, view, a, b, pinned);
        r.lo = a;
        r.hi = b;
    }

    ring_view view_of(int img, const image_view& view) const
    {
        return { rings[img].data.get(),
                 static_cast<long long>(view.width),
                 rings[img].capacity,
                 view.type == slc_sample_type::complex_int16 };
    }
};

// ---------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------

patch_correlator_cuda::patch_correlator_cuda(const patch_correlator_config& config,
                                             const device_selection& device)
    : patch_correlator(config, device),
      d_batch_patches(batch_patches_for(config, device.cuda_ordinal))
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(make_patch_geometry(config), d_batch_patches);
    d_order = stream_order(d_ws->stream.get());
}

patch_correlator_cuda::~patch_correlator_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_pipeline.reset();
        d_rings.reset();
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

void patch_correlator_cuda::enqueue_batch(const source& src,
                                          std::size_t npatches,
                                          patch_result* d_results,
                                          cudaStream_t stream,
                                          cudaEvent_t source_read)
{
    workspace& ws = *d_ws;
    const patch_geometry& g = ws.g;
    const auto n = static_cast<unsigned int>(npatches);
    const unsigned int blocks = row_blocks(npatches, g);
    const std::size_t images = 2 * npatches;

    if (g.ri > 1) {
        float2* rows = ws.rows.get();
        const std::size_t row_elements = std::size_t(g.npy) * g.range_len();
        if (src.from_rings) {
            // Extraction (and int16 conversion) into the rows, then the forward
            // transforms in place.
            load_rows_kernel<<<blocks, row_threads, 0, stream>>>(src.rings, rows, n, g);
            CUDADSP_CUDA_LAUNCHED("load_rows_kernel");
            if (source_read)
                CUDADSP_CUDA(cudaEventRecord(source_read, stream));
            ws.range_forward.run(
                images, stream, [&](cufftHandle plan, std::size_t offset) {
                    cufftComplex* p =
                        reinterpret_cast<cufftComplex*>(rows + offset * row_elements);
                    CUDADSP_CUFFT(cufftExecC2C(plan, p, p, CUFFT_FORWARD));
                });
        } else {
            // The caller's patches are transformed straight into the rows (an
            // out-of-place C2C transform leaves its input intact).
            const std::size_t patch_elements = std::size_t(g.npy) * g.npx;
            for (int img = 0; img < 2; ++img) {
                const float2* in = src.patches.image[img];
                float2* out = rows + std::size_t(img) * npatches * row_elements;
                ws.range_forward_patches.run(
                    npatches, stream, [&](cufftHandle plan, std::size_t offset) {
                        CUDADSP_CUFFT(cufftExecC2C(
                            plan,
                            const_cast<cufftComplex*>(
                                reinterpret_cast<const cufftComplex*>(
                                    in + offset * patch_elements)),
                            reinterpret_cast<cufftComplex*>(out + offset * row_elements),
                            CUFFT_FORWARD));
                    });
            }
        }
        spread_kernel<<<blocks, row_threads, 0, stream>>>(rows, n, g);
        CUDADSP_CUDA_LAUNCHED("spread_kernel");
        ws.range_inverse.run(images, stream, [&](cufftHandle plan, std::size_t offset) {
            cufftComplex* p =
                reinterpret_cast<cufftComplex*>(rows + offset * row_elements);
            CUDADSP_CUFFT(cufftExecC2C(plan, p, p, CUFFT_INVERSE));
        });
        const interpolated_source interpolated{
            rows, n, g.npx, g.npy, g.range_len(), g.ri
        };
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            interpolated, ws.amp.get(), ws.row_sums.get(), n, g);
    } else if (src.from_rings) {
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            src.rings, ws.amp.get(), ws.row_sums.get(), n, g);
    } else {
        amplitude_kernel<<<blocks, row_threads, 0, stream>>>(
            src.patches, ws.amp.get(), ws.row_sums.get(), n, g);
    }
    CUDADSP_CUDA_LAUNCHED("amplitude_kernel");
    if (g.ri == 1 && source_read)
        CUDADSP_CUDA(cudaEventRecord(source_read, stream));

    mean_kernel<<<static_cast<unsigned int>((images + row_warps - 1) / row_warps),
                  row_threads,
                  0,
                  stream>>>(
        ws.row_sums.get(), ws.means.get(), static_cast<unsigned int>(images), g);
    CUDADSP_CUDA_LAUNCHED("mean_kernel");

    float* transform_real = reinterpret_cast<float*>(ws.transform.get());
    demean_kernel<<<blocks, row_threads, 0, stream>>>(
        ws.amp.get(), ws.means.get(), transform_real, n, g);
    CUDADSP_CUDA_LAUNCHED("demean_kernel");

    const std::size_t bins = std::size_t(g.npy) * (g.npx / 2 + 1); // per patch image
    ws.forward_2d.run(images, stream, [&](cufftHandle plan, std::size_t offset) {
        cufftComplex* p =
            reinterpret_cast<cufftComplex*>(ws.transform.get() + offset * bins);
        CUDADSP_CUFFT(cufftExecR2C(plan, reinterpret_cast<cufftReal*>(p), p));
    });
    const std::size_t half = npatches * bins;
    cross_spectrum_kernel<<<static_cast<unsigned int>((half + spectrum_threads - 1) /
                                                      spectrum_threads),
                            spectrum_threads,
                            0,
                            stream>>>(ws.transform.get(), half);
    CUDADSP_CUDA_LAUNCHED("cross_spectrum_kernel");
    ws.inverse_2d.run(npatches, stream, [&](cufftHandle plan, std::size_t offset) {
        cufftComplex* p =
            reinterpret_cast<cufftComplex*>(ws.transform.get() + offset * bins);
        CUDADSP_CUFFT(cufftExecC2R(plan, p, reinterpret_cast<cufftReal*>(p)));
    });

    peak_args args;
    args.correlation = transform_real;
    args.amp = ws.amp.get();
    args.means = ws.means.get();
    args.npatches = n;
    args.g = g;
    args.results = d_results;
    peak_kernel<<<n, peak_threads, peak_shared_bytes(g), stream>>>(args);
    CUDADSP_CUDA_LAUNCHED("peak_kernel");
}

void patch_correlator_cuda::correlate(const image_view& master,
                                      const image_view& aligned,
                                      const patch_pair* pairs,
                                      std::size_t npatches,
                                      patch_result* results)
{
    check_pairs(master, aligned, pairs, npatches);
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    if (!d_rings)
        d_rings = std::make_unique<image_rings>();
    image_rings& rings = *d_rings;
    const image_view views[2] = { master, aligned };
    const long long npy = d_config.npy();
    long long capacity[2];
    bool pinned[2];
    for (int img = 0; img < 2; ++img) {
        capacity[img] = std::min<long long>(ring_rows_per_npy * npy,
                                            static_cast<long long>(views[img].height));
        rings.prepare(img, views[img], capacity[img]);
        pinned[img] = is_pinned_host_pointer(views[img].data);
    }

    // The pairs go to the device once, ahead of the first batch's rows.
    if (rings.pairs.size() < npatches) {
        rings.pairs = device_buffer<patch_pair>(npatches);
        rings.pairs_staging = pinned_buffer<patch_pair>(npatches);
        rings.results = device_buffer<patch_result>(npatches);
        rings.results_staging = pinned_buffer<patch_result>(npatches);
    }
    // Earlier work of this engine may still read the staging buffers' last contents.
    rings.extracted.wait_on(rings.upload_stream.get());
    CUDADSP_CUDA(cudaStreamSynchronize(rings.upload_stream.get()));
    std::memcpy(rings.pairs_staging.get(), pairs, npatches * sizeof(patch_pair));
    CUDADSP_CUDA(cudaMemcpyAsync(rings.pairs.get(),
                                 rings.pairs_staging.get(),
                                 npatches * sizeof(patch_pair),
                                 cudaMemcpyHostToDevice,
                                 rings.upload_stream.get()));

    auto row_of = [&](int img, std::size_t k) {
        return img == 0 ? pairs[k].master_row : pairs[k].aligned_row;
    };
    // Progress as the batches complete (the callback on this thread).
    batch_progress progress(d_progress, npatches);
    std::size_t nbatches = 0;
    std::size_t first = 0;
    while (first < npatches) {
        // The batch: consecutive pairs whose rows fit each ring.
        long long lo[2], hi[2];
        for (int img = 0; img < 2; ++img) {
            lo[img] = row_of(img, first);
            hi[img] = lo[img] + npy;
        }
        std::size_t end = first + 1;
        while (end < npatches && end - first < d_batch_patches) {
            bool fits = true;
            long long nlo[2], nhi[2];
            for (int img = 0; img < 2; ++img) {
                nlo[img] = std::min<long long>(lo[img], row_of(img, end));
                nhi[img] = std::max<long long>(hi[img], row_of(img, end) + npy);
                fits = fits && nhi[img] - nlo[img] <= capacity[img];
            }
            if (!fits)
                break;
            for (int img = 0; img < 2; ++img) {
                lo[img] = nlo[img];
                hi[img] = nhi[img];
            }
            ++end;
        }

        if (rings.batches.size() <= nbatches)
            rings.batches.emplace_back();
        const image_rings::batch_events& ev = rings.batches[nbatches];

        // Its rows: after the previous batch has read the rings.
        rings.extracted.wait_on(rings.upload_stream.get());
        ev.upload_begin.record(rings.upload_stream.get());
        for (int img = 0; img < 2; ++img)
            rings.ensure_rows(img, views[img], lo[img], hi[img], pinned[img]);
        ev.upload_end.record(rings.upload_stream.get());
        rings.uploaded.record(rings.upload_stream.get());
        rings.uploaded.wait_on(stream);
        ev.compute_begin.record(stream);

        source src;
        src.from_rings = true;
        src.rings.ring[0] = rings.view_of(0, master);
        src.rings.ring[1] = rings.view_of(1, aligned);
        src.rings.pairs = rings.pairs.get() + first;
        enqueue_batch(
            src, end - first, rings.results.get() + first, stream, rings.extracted.get());
        ev.compute_end.record(stream);
        progress.add(ev.compute_end.get(), end);
        ++nbatches;
        progress.poll();
        first = end;
    }
    rings.download_begin.record(stream);
    CUDADSP_CUDA(cudaMemcpyAsync(rings.results_staging.get(),
                                 rings.results.get(),
                                 npatches * sizeof(patch_result),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    rings.download_end.record(stream);
    progress.finish();
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(results, rings.results_staging.get(), npatches * sizeof(patch_result));

    // Every event above has completed: each upload is waited for by the stream.
    d_timing = patch_correlator_timing{};
    for (std::size_t b = 0; b < nbatches; ++b) {
        const image_rings::batch_events& ev = rings.batches[b];
        d_timing.upload_ms += ev.upload_end.elapsed_ms_since(ev.upload_begin);
        d_timing.compute_ms += ev.compute_end.elapsed_ms_since(ev.compute_begin);
    }
    d_timing.download_ms = rings.download_end.elapsed_ms_since(rings.download_begin);
}

void patch_correlator_cuda::correlate_patches(const std::complex<float>* master,
                                              const std::complex<float>* aligned,
                                              std::size_t npatches,
                                              patch_result* results)
{
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    const std::size_t patch_bytes =
        std::size_t(d_config.npy()) * d_config.npx() * sizeof(float2);
    if (!d_pipeline)
        d_pipeline = std::make_unique<host_pipeline>(
            d_batch_patches,
            std::vector<std::size_t>{ patch_bytes, patch_bytes },
            std::vector<std::size_t>{ sizeof(patch_result) });
    const void* const host_in[] = { master, aligned };
    void* const host_out[] = { results };
    d_pipeline->run(host_in,
                    host_out,
                    npatches,
                    stream,
                    [&](const void* const* d_in,
                        void* const* d_out,
                        std::size_t count,
                        cudaStream_t s) {
                        source src;
                        src.patches = { { static_cast<const float2*>(d_in[0]),
                                          static_cast<const float2*>(d_in[1]) },
                                        d_config.npx(),
                                        d_config.npy() };
                        enqueue_batch(
                            src, count, static_cast<patch_result*>(d_out[0]), s, nullptr);
                    });
}

void patch_correlator_cuda::correlate_patches_device(const std::complex<float>* d_master,
                                                     const std::complex<float>* d_aligned,
                                                     std::size_t npatches,
                                                     patch_result* d_results,
                                                     cuda_stream_t stream)
{
    if (npatches == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t target = stream ? stream : d_ws->stream.get();
    d_order.switch_to(target);
    const std::size_t samples = std::size_t(d_config.npy()) * d_config.npx();
    for (std::size_t f = 0; f < npatches; f += d_batch_patches) {
        const std::size_t n = std::min(d_batch_patches, npatches - f);
        source src;
        src.patches = { { reinterpret_cast<const float2*>(d_master + f * samples),
                          reinterpret_cast<const float2*>(d_aligned + f * samples) },
                        d_config.npx(),
                        d_config.npy() };
        enqueue_batch(src, n, d_results + f, target, nullptr);
    }
}

void patch_correlator_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
