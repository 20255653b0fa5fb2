/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_KERNELS_CUH

/*
 * The patch correlator's kernels (sample sources, range interpolation, amplitudes and
 * means, the cross spectrum, the peak search with its oversampled refinement), their
 * device helpers and launch shapes. patch_correlator_cuda.cu plans the batches and
 * launches them; it alone includes this file, so the kernels keep the internal linkage
 * (anonymous namespace) they had when they were written in it.
 */

#include "cross_correlation/patch_correlation_rule.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include "runtime/grid_size.h"
#include <cub/block/block_reduce.cuh>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr unsigned int all_lanes = 0xffffffffu;

//! Row kernels: one warp per patch row, row_warps rows per block.
constexpr int row_warps = 8;
constexpr int row_threads = row_warps * 32;

constexpr int spectrum_threads = 256;

constexpr int peak_threads = 256;

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
    return blocks_for(rows, row_warps);
}

} // namespace
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_KERNELS_CUH */
