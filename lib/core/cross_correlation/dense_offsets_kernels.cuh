/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_KERNELS_CUH

/*
 * The dense-offset kernels (PyCuAmpcor's steps, numbered as in
 * docs/design/pycuampcor_dense_offsets.md) and their device helpers. Each kernel states
 * its inputs and outputs above it; dense_offsets_cuda.cu plans the batches and launches
 * them in order on one stream. Included by that file only.
 */

#include "cross_correlation/dense_offsets_layout.cuh"
#include "cross_correlation/dense_offsets_rule.h"
#include "runtime/grid_size.h"
#include <cub/block/block_reduce.cuh>
#include <climits>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {
namespace dense_offsets_kernel {

// ---------------------------------------------------------------------------------
// Device helpers
// ---------------------------------------------------------------------------------

//! One image's rows on the device: rows first_row, first_row + 1, ... of the image.
struct image_rows_view {
    const void* data;
    long long width;
    long long first_row;
    bool int16;

    __device__ float2 sample(long long row, long long col) const
    {
        const std::size_t i = std::size_t(row - first_row) * std::size_t(width) + col;
        if (int16) {
            const short2 s = __ldg(static_cast<const short2*>(data) + i);
            return make_float2(static_cast<float>(s.x), static_cast<float>(s.y));
        }
        return __ldg(static_cast<const float2*>(data) + i);
    }
};

/*!
 * (row, col) of the elements start, start + stride, ... of a row-major array of
 * \p cols columns, advanced without a division per element.
 */
struct strided_cursor {
    int row, col, row_step, col_step, cols;

    __device__ strided_cursor(int start, int stride, int columns)
        : row(start / columns),
          col(start % columns),
          row_step(stride / columns),
          col_step(stride % columns),
          cols(columns)
    {
    }
    __device__ void advance()
    {
        row += row_step;
        col += col_step;
        if (col >= cols) {
            col -= cols;
            ++row;
        }
    }
};

//! The deramp's two gradient sums (4.9), float64, reduced over a block.
struct gradient_sums {
    double down_re, down_im, across_re, across_im;
};

struct gradient_add {
    __device__ __forceinline__ gradient_sums operator()(const gradient_sums& a,
                                                        const gradient_sums& b) const
    {
        return { a.down_re + b.down_re,
                 a.down_im + b.down_im,
                 a.across_re + b.across_re,
                 a.across_im + b.across_im };
    }
};

//! merge() of the rule as a reduction operator: a total order, so any tree finds the
//! winner a scan in index order finds.
struct max_merge {
    __device__ __forceinline__ surface_max operator()(surface_max a,
                                                      const surface_max& b) const
    {
        merge(a, b);
        return a;
    }
};

using double_reduce = cub::BlockReduce<double, block_threads>;
using max_reduce = cub::BlockReduce<surface_max, block_threads>;
using gradient_reduce = cub::BlockReduce<gradient_sums, block_threads>;

//! Shared memory of the block reductions (one at a time: each helper ends with a
//! barrier) and the scalars that carry thread 0's result to the block.
struct block_shared {
    union {
        double_reduce::TempStorage sum;
        max_reduce::TempStorage max;
        gradient_reduce::TempStorage gradient;
    } storage;
    double sum_value;
    float max_value;
    int max_index;
    gradient_sums gradient;
};

//! The block's float64 sum, returned to every thread; called by the whole block.
__device__ double block_sum(double v, block_shared& s)
{
    const double total = double_reduce(s.storage.sum).Sum(v);
    if (threadIdx.x == 0)
        s.sum_value = total;
    __syncthreads();
    const double out = s.sum_value;
    __syncthreads();
    return out;
}

//! The block's maximum under the rule's order, returned to every thread.
__device__ surface_max block_max(const surface_max& best, block_shared& s)
{
    const surface_max total = max_reduce(s.storage.max).Reduce(best, max_merge{});
    if (threadIdx.x == 0) {
        s.max_value = total.value;
        s.max_index = total.index;
    }
    __syncthreads();
    surface_max out;
    out.value = s.max_value;
    out.index = s.max_index;
    __syncthreads();
    return out;
}

__device__ gradient_sums block_gradient(const gradient_sums& g, block_shared& s)
{
    const gradient_sums total =
        gradient_reduce(s.storage.gradient).Reduce(g, gradient_add{});
    if (threadIdx.x == 0)
        s.gradient = total;
    __syncthreads();
    const gradient_sums out = s.gradient;
    __syncthreads();
    return out;
}

/*!
 * Launch shape of the element-wise kernels over \p n windows of a rows x cols array: a
 * 2D block as wide as a row needs (a multiple of 32, at most element_threads), grid z
 * over windows and y over rows, with at most about element_blocks blocks in all; the
 * kernels loop over what the grid does not cover, so a block does many rows of a
 * large batch instead of the grid holding a block for each.
 */
struct element_launch {
    dim3 grid, block;
};

//! Blocks of an element-wise launch: enough to fill any GPU several times over.
constexpr unsigned element_blocks = 32768;

element_launch launch_over(int rows, int cols, std::size_t n)
{
    const unsigned bx =
        std::min<unsigned>(element_threads, (unsigned(cols) + 31) / 32 * 32);
    const unsigned by = std::max<unsigned>(1, element_threads / bx);
    const unsigned gx = blocks_for(unsigned(cols), bx);
    const unsigned gz = static_cast<unsigned>(std::min<std::size_t>(n, grid_yz_max));
    const unsigned row_blocks = blocks_for(unsigned(rows), by);
    const unsigned gy = std::clamp<unsigned>(
        element_blocks / (gx * gz), 1, std::min(row_blocks, grid_yz_max));
    element_launch l;
    l.block = dim3(bx, by, 1);
    l.grid = dim3(gx, gy, gz);
    return l;
}

#define CUDADSP_FOR_ELEMENTS(i, n, row, rows, col, cols)                        \
    for (unsigned i = blockIdx.z; i < (n); i += gridDim.z)                      \
        for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < (rows);     \
             row += gridDim.y * blockDim.y)                                     \
            for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < (cols); \
                 col += gridDim.x * blockDim.x)

// ---------------------------------------------------------------------------------
// Correlation inputs (4.2 - 4.4), both stages
// ---------------------------------------------------------------------------------

//! The raw stage's windows, read from the image rows (4.1; amplitudes need no deramp).
struct raw_source {
    image_rows_view ref, sec;
    const offset_window* windows; //!< the batch's windows
    int hd, ha;

    struct window {
        const image_rows_view& ref;
        const image_rows_view& sec;
        long long ref_row, ref_col, sec_row, sec_col;

        __device__ float template_amplitude(int a, int b) const
        {
            const float2 z = ref.sample(ref_row + a, ref_col + b);
            return amplitude(z.x, z.y);
        }
        __device__ float search_amplitude(int a, int b) const
        {
            const float2 z = sec.sample(sec_row + a, sec_col + b);
            return amplitude(z.x, z.y);
        }
    };

    __device__ bool active(unsigned) const { return true; }
    __device__ window at(unsigned i) const
    {
        const offset_window w = windows[i];
        return { ref,
                 sec,
                 w.reference_down,
                 w.reference_across,
                 w.reference_down + w.gross_down - hd,
                 w.reference_across + w.gross_across - ha };
    }
};

//! The zoom stage's oversampled windows (4.9: |y| of the unnormalised inverse, scaled).
struct over_source {
    const float2* ref;  //!< oversampled reference windows, ref_dist apart
    const float2* zoom; //!< oversampled zoom windows, zoom_dist apart
    long long ref_dist, zoom_dist;
    int ref_cols, zoom_cols;
    int ref_samples, zoom_samples; //!< samples of the windows before oversampling
    const coarse_peak* coarse;

    struct window {
        const float2* ref;
        const float2* zoom;
        const over_source& src;

        __device__ float template_amplitude(int a, int b) const
        {
            const float2 y = ref[a * src.ref_cols + b];
            return oversampled_amplitude(y.x, y.y, src.ref_samples);
        }
        __device__ float search_amplitude(int a, int b) const
        {
            const float2 y = zoom[a * src.zoom_cols + b];
            return oversampled_amplitude(y.x, y.y, src.zoom_samples);
        }
    };

    __device__ bool active(unsigned i) const { return coarse[i].raw.index >= 0; }
    __device__ window at(unsigned i) const
    {
        return { ref + i * ref_dist, zoom + i * zoom_dist, *this };
    }
};

//! Sizes of one correlation: transform, template, lags whose window sums are needed.
struct correlation_shape {
    int rows, cols, pitch; //!< transform size and floats a row of its real layout
    int th, tw;            //!< template rows and columns
    int lag_rows, lag_cols;
};

struct correlation_buffers {
    float* corr;             //!< template slots; search slots search_offset further
    long long corr_dist;     //!< floats a slot
    long long search_offset; //!< floats from a window's template slot to its search slot
    double* colsums;
    long long colsum_dist;
    double2* sums;
    long long sums_dist;
    double* t2;
};

/*!
 * One block per window of the batch (skipped where the source says inactive): writes
 * the template amplitudes minus their mean (float64 sum, window_mean()), zero-padded to
 * rows x cols, into the window's template slot and the search amplitudes into its
 * search slot (real in-place transform layout, rows of pitch floats; the padding
 * columns are not written), the template's T2 (float64 sum of the squared float32
 * values) into t2[i], and (S1, S2) of every lag (u, v) < (lag_rows, lag_cols), the
 * float64 sums of B and B^2 over the th x tw block at (u, v), into sums (lag-major).
 * The sums go through colsums (lag_rows x cols of each): each column's running sum
 * over th rows, then each lag row's running sum over tw columns, segment by segment.
 * Reads the search slot back after a barrier, so the pointers carry no __restrict__.
 */
template <typename Source>
__global__ void __launch_bounds__(block_threads)
    correlation_input_kernel(Source src, correlation_shape s, correlation_buffers buf)
{
    __shared__ block_shared shared;
    const unsigned i = blockIdx.x;
    if (!src.active(i)) // uniform over the block
        return;
    const typename Source::window win = src.at(i);
    float* tmpl = buf.corr + i * buf.corr_dist;
    float* search = tmpl + buf.search_offset;

    const int template_pixels = s.th * s.tw;
    double sum = 0.0;
    {
        strided_cursor e(threadIdx.x, block_threads, s.tw);
        for (int k = threadIdx.x; k < template_pixels; k += block_threads, e.advance()) {
            const float v = win.template_amplitude(e.row, e.col);
            tmpl[e.row * s.pitch + e.col] = v;
            sum += static_cast<double>(v);
        }
    }
    const float mean = window_mean(block_sum(sum, shared), template_pixels);

    double t2 = 0.0;
    {
        strided_cursor e(threadIdx.x, block_threads, s.cols);
        for (int k = threadIdx.x; k < s.rows * s.cols; k += block_threads, e.advance()) {
            const int at = e.row * s.pitch + e.col;
            float v = 0.0f;
            if (e.row < s.th && e.col < s.tw) {
                v = tmpl[at] - mean;
                t2 += static_cast<double>(v) * static_cast<double>(v);
            }
            tmpl[at] = v;
            search[at] = win.search_amplitude(e.row, e.col);
        }
    }
    const double t2_total = block_sum(t2, shared); // its barriers publish search
    if (threadIdx.x == 0)
        buf.t2[i] = t2_total;

    double* col1 = buf.colsums + i * buf.colsum_dist;
    double* col2 = col1 + area(s.lag_rows, s.cols);
    for (int c = threadIdx.x; c < s.cols; c += block_threads) {
        double s1 = 0.0, s2 = 0.0;
        for (int a = 0; a < s.th; ++a) {
            const double v = search[a * s.pitch + c];
            s1 += v;
            s2 += v * v;
        }
        for (int u = 0;; ++u) {
            col1[u * s.cols + c] = s1;
            col2[u * s.cols + c] = s2;
            if (u + 1 >= s.lag_rows)
                break;
            const double in = search[(u + s.th) * s.pitch + c];
            const double out = search[u * s.pitch + c];
            s1 += in - out;
            s2 += in * in - out * out;
        }
    }
    __syncthreads();

    const int segments = (s.lag_cols + row_segment - 1) / row_segment;
    double2* sums = buf.sums + i * buf.sums_dist;
    for (int t = threadIdx.x; t < s.lag_rows * segments; t += block_threads) {
        const int u = t / segments;
        const int v0 = (t % segments) * row_segment;
        const int v1 = min(v0 + row_segment, s.lag_cols);
        const double* r1 = col1 + u * s.cols;
        const double* r2 = col2 + u * s.cols;
        double s1 = 0.0, s2 = 0.0;
        for (int b = 0; b < s.tw; ++b) {
            s1 += r1[v0 + b];
            s2 += r2[v0 + b];
        }
        for (int v = v0;; ++v) {
            sums[u * s.lag_cols + v] = make_double2(s1, s2);
            if (v + 1 >= v1)
                break;
            s1 += r1[v + s.tw] - r1[v];
            s2 += r2[v + s.tw] - r2[v];
        }
    }
}

/*!
 * conj(F(A)) F(B) of each window, over F(A) (4.3): \p bins half-spectrum bins a window,
 * template spectra slot_dist apart, each search spectrum search_offset further
 * (complex elements).
 */
__global__ void __launch_bounds__(element_threads)
    cross_spectrum_kernel(float2* spectra,
                          long long slot_dist,
                          long long search_offset,
                          int rows,
                          int cols,
                          unsigned n)
{
    CUDADSP_FOR_ELEMENTS(i, n, row, rows, col, cols)
    {
        float2* t = spectra + i * slot_dist + std::size_t(row) * cols + col;
        const float2 a = *t;
        const float2 b = t[search_offset];
        *t = make_float2(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
    }
}

// ---------------------------------------------------------------------------------
// Raw surface: peak, SNR, covariance, zoom start (4.4 - 4.8)
// ---------------------------------------------------------------------------------

/*!
 * One stage's normalised surface (4.4): the inverse transforms in the template slots,
 * the window sums (S1, S2) of each lag and T2; value() is normalized_correlation() of a
 * lag.
 */
struct surface_source {
    const float* corr;
    long long corr_dist;
    int pitch; //!< floats a row of the inverse transforms
    long long transform_size;
    const double2* sums;
    long long sums_dist;
    int lag_cols; //!< lags a row of the sums
    const double* t2;
    int template_pixels;

    __device__ float value(unsigned i, int u, int v) const
    {
        const double2 s = sums[i * sums_dist + u * lag_cols + v];
        return normalized_correlation(corr[i * corr_dist + u * pitch + v],
                                      transform_size,
                                      s.x,
                                      s.y,
                                      t2[i],
                                      template_pixels);
    }
};

struct raw_peak_args {
    surface_source src;
    float* surface;
    long long surface_dist;
    coarse_peak* coarse;
    offsets_geometry g;
};

/*!
 * One block per window: the normalised raw surface (normalized_correlation() of each
 * lag) into surface, its peak under the rule's order, the SNR energy over the
 * neighbourhood (float64), the covariance and the zoom start into coarse[i]; a surface
 * without a number gives a coarse peak of index -1.
 */
__global__ void __launch_bounds__(block_threads) raw_peak_kernel(raw_peak_args a)
{
    __shared__ block_shared shared;
    const unsigned i = blockIdx.x;
    const offsets_geometry& g = a.g;
    const int rows = g.surface_rows(), cols = g.surface_cols();
    float* surface = a.surface + i * a.surface_dist;
    const int template_pixels = g.h * g.w;

    surface_max best;
    {
        strided_cursor e(threadIdx.x, block_threads, cols);
        for (int k = threadIdx.x; k < rows * cols; k += block_threads, e.advance()) {
            const float c = a.src.value(i, e.row, e.col);
            surface[k] = c;
            offer(best, c, k);
        }
    }
    best = block_max(best, shared); // its barriers publish surface
    if (best.index < 0) {
        if (threadIdx.x == 0) {
            coarse_peak none{};
            none.raw = best;
            a.coarse[i] = none;
        }
        return;
    }
    const int p_d = best.index / cols, p_a = best.index % cols;
    const index_range rd = snr_range(p_d, g.stat, rows);
    const index_range ra = snr_range(p_a, g.stat, cols);
    const int width = ra.end - ra.first;
    const int count = (rd.end - rd.first) * width;
    double energy = 0.0;
    {
        strided_cursor e(threadIdx.x, block_threads, width);
        for (int k = threadIdx.x; k < count; k += block_threads, e.advance())
            energy += snr_term(surface[(rd.first + e.row) * cols + ra.first + e.col]);
    }
    energy = block_sum(energy, shared);
    if (threadIdx.x == 0) {
        coarse_peak c;
        c.raw = best;
        c.snr = snr_value(best.value, energy, count);
        c.cov =
            raw_covariance(surface, rows, cols, p_d, p_a, best.value, template_pixels);
        c.s_down = zoom_start(p_d, g.hd, g.hz);
        c.s_across = zoom_start(p_a, g.ha, g.hz);
        a.coarse[i] = c;
    }
}

// ---------------------------------------------------------------------------------
// Zoom stage: windows, oversampling (4.9)
// ---------------------------------------------------------------------------------

/*!
 * The rows x cols window at (row0, col0) of \p im as the oversampling's input, into
 * \p out (row-major): amplitudes (deramp 0), PyCuAmpcor's deramp (1, its phases and
 * pairing as \p g says: the float64 gradient sums reduced over the block first) or the
 * samples (2). Called by the whole block.
 */
__device__ void load_oversampling_input(const image_rows_view& im,
                                        long long row0,
                                        long long col0,
                                        int rows,
                                        int cols,
                                        const offsets_geometry& g,
                                        float2* out,
                                        block_shared& shared)
{
    const int n = rows * cols;
    deramp_phases phi{ 0.0, 0.0 };
    const bool average = g.deramp == static_cast<int>(deramp_method::average);
    if (average) {
        gradient_sums sums{ 0.0, 0.0, 0.0, 0.0 };
        strided_cursor e(threadIdx.x, block_threads, cols);
        for (int k = threadIdx.x; k < n; k += block_threads, e.advance()) {
            const float2 z = im.sample(row0 + e.row, col0 + e.col);
            const double xr = z.x, xi = z.y;
            if (e.col + 1 < cols) { // z[a][b] conj(z[a][b+1])
                const float2 y = im.sample(row0 + e.row, col0 + e.col + 1);
                sums.across_re += xr * y.x + xi * y.y;
                sums.across_im += xi * y.x - xr * y.y;
            }
            if (e.row + 1 < rows) { // z[a][b] conj(z[a+1][b])
                const float2 y = im.sample(row0 + e.row + 1, col0 + e.col);
                sums.down_re += xr * y.x + xi * y.y;
                sums.down_im += xi * y.x - xr * y.y;
            }
        }
        const gradient_sums total = block_gradient(sums, shared);
        phi = measured_deramp_phases(total.down_re,
                                     total.down_im,
                                     total.across_re,
                                     total.across_im,
                                     g.deramp_axis);
    }
    strided_cursor e(threadIdx.x, block_threads, cols);
    for (int k = threadIdx.x; k < n; k += block_threads, e.advance()) {
        float2 z = im.sample(row0 + e.row, col0 + e.col);
        if (g.deramp == static_cast<int>(deramp_method::amplitude))
            z = make_float2(amplitude(z.x, z.y), 0.0f);
        else if (average)
            deramp_sample(z.x, z.y, e.row, e.col, phi.down, phi.across, g.isce2_deramp);
        out[k] = z;
    }
}

struct zoom_load_args {
    image_rows_view ref, sec;
    const offset_window* windows;
    const coarse_peak* coarse;
    float2* ref_out;
    float2* zoom_out;
    long long ref_dist, zoom_dist;
    offsets_geometry g;
};

/*!
 * One block per window with a raw peak: the reference window and the zoom window (the
 * search window's rows and columns from the zoom start), prepared for the forward
 * transforms (load_oversampling_input()).
 */
__global__ void __launch_bounds__(block_threads) zoom_load_kernel(zoom_load_args a)
{
    __shared__ block_shared shared;
    const unsigned i = blockIdx.x;
    const coarse_peak c = a.coarse[i];
    if (c.raw.index < 0) // uniform over the block
        return;
    const offsets_geometry& g = a.g;
    const offset_window w = a.windows[i];
    load_oversampling_input(a.ref,
                            w.reference_down,
                            w.reference_across,
                            g.h,
                            g.w,
                            g,
                            a.ref_out + i * a.ref_dist,
                            shared);
    load_oversampling_input(a.sec,
                            w.reference_down + w.gross_down - g.hd + c.s_down,
                            w.reference_across + w.gross_across - g.ha + c.s_across,
                            g.zoom_rows(),
                            g.zoom_cols(),
                            g,
                            a.zoom_out + i * a.zoom_dist,
                            shared);
}

//! The bin of an n-point spectrum that lands at \p m of the M-point one, or -1: the
//! inverse of the rule's oversample_bin(), checked against it.
__device__ int source_bin(int m, int n, int M)
{
    const int k = m <= n / 2 ? m : m - M + n;
    return k >= 0 && k < n && oversample_bin(k, n, M) == m ? k : -1;
}

/*!
 * The n0 x n1 spectra of the windows (in_dist apart) placed into m0 x m1 spectra
 * (out_dist apart) by the rule's bin placement, zeros elsewhere (4.9).
 */
__global__ void __launch_bounds__(element_threads)
    oversample_spread_kernel(const float2* __restrict__ in,
                             long long in_dist,
                             int n0,
                             int n1,
                             float2* __restrict__ out,
                             long long out_dist,
                             int m0,
                             int m1,
                             unsigned n)
{
    CUDADSP_FOR_ELEMENTS(i, n, row, m0, col, m1)
    {
        const int k0 = source_bin(row, n0, m0);
        const int k1 = source_bin(col, n1, m1);
        out[i * out_dist + std::size_t(row) * m1 + col] =
            k0 >= 0 && k1 >= 0 ? in[i * in_dist + std::size_t(k0) * n1 + k1]
                               : make_float2(0.0f, 0.0f);
    }
}

// ---------------------------------------------------------------------------------
// Surface oversampling and the fine peak (4.10 - 4.12)
// ---------------------------------------------------------------------------------

struct trimmed_args {
    surface_source src;
    int side; //!< trimmed side, 2 r hz
    int zoom; //!< Z
    float* out;
    int out_pitch;
    long long out_dist; //!< floats
    unsigned n;
};

//! The normalised oversampled surface's lags 0 .. side - 1 in a zero-padded Z x Z real
//! array (the surface transform's in-place layout) (4.10, 4.11).
__global__ void __launch_bounds__(element_threads) trimmed_surface_kernel(trimmed_args a)
{
    CUDADSP_FOR_ELEMENTS(i, a.n, row, a.zoom, col, a.zoom)
    {
        const float v = row < a.side && col < a.side ? a.src.value(i, row, col) : 0.0f;
        a.out[i * a.out_dist + row * a.out_pitch + col] = v;
    }
}

/*!
 * The fine half spectrum (q Z x (q Z / 2 + 1), out_dist apart) from the real transform
 * X of the Z x Z surface (Z x (Z / 2 + 1), x_dist apart): each position gathers the
 * frequencies (j0, j1), |j| <= Z / 2, that the rule places there, weighted by
 * surface_bin_weight(), in the order the rule's loop adds them (j0, then j1,
 * ascending); X at a negative j1 by Hermitian symmetry (4.11).
 */
__global__ void __launch_bounds__(element_threads)
    fine_spectrum_kernel(const float2* __restrict__ x,
                         long long x_dist,
                         int zoom,
                         float2* __restrict__ out,
                         long long out_dist,
                         int side,
                         int half,
                         unsigned n)
{
    const int pz = zoom / 2, zhalf = zoom / 2 + 1;
    CUDADSP_FOR_ELEMENTS(i, n, row, side, col, half)
    {
        const float2* xi = x + i * x_dist;
        float re = 0.0f, im = 0.0f;
        for (int j0 = row - side; j0 <= row; j0 += side) {
            if (j0 < -pz || j0 > pz)
                continue;
            for (int j1 = col - side; j1 <= col; j1 += side) {
                if (j1 < -pz || j1 > pz)
                    continue;
                const float weight = surface_bin_weight(j0, j1, zoom);
                if (weight == 0.0f)
                    continue;
                float2 v;
                if (j1 >= 0) {
                    v = xi[((j0 % zoom + zoom) % zoom) * zhalf + j1];
                } else {
                    v = xi[((-j0 % zoom + zoom) % zoom) * zhalf - j1];
                    v.y = -v.y;
                }
                re += weight * v.x;
                im += weight * v.y;
            }
        }
        out[i * out_dist + std::size_t(row) * half + col] = make_float2(re, im);
    }
}

struct fine_peak_args {
    const float* fine; //!< side x side real surfaces, rows of pitch floats
    long long fine_dist;
    int side, pitch;
    const coarse_peak* coarse;
    const offset_window* windows;
    offset_result* results;
    offsets_geometry g;
};

//! One block per window: the fine surface's peak under the rule's order and the
//! window's result (finish_window()).
__global__ void __launch_bounds__(block_threads) fine_peak_kernel(fine_peak_args a)
{
    __shared__ block_shared shared;
    const unsigned i = blockIdx.x;
    const coarse_peak c = a.coarse[i];
    if (c.raw.index < 0) { // uniform over the block
        if (threadIdx.x == 0)
            a.results[i] = invalid_offset_result();
        return;
    }
    const float* fine = a.fine + i * a.fine_dist;
    surface_max best;
    strided_cursor e(threadIdx.x, block_threads, a.side);
    for (int k = threadIdx.x; k < a.side * a.side; k += block_threads, e.advance())
        offer(best, fine[e.row * a.pitch + e.col], k);
    best = block_max(best, shared);
    if (threadIdx.x == 0) {
        const offset_window w = a.windows[i];
        a.results[i] = finish_window(c.raw,
                                     c.snr,
                                     c.cov,
                                     c.s_down,
                                     c.s_across,
                                     best,
                                     w.gross_down,
                                     w.gross_across,
                                     a.g);
    }
}
} // namespace dense_offsets_kernel
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_KERNELS_CUH */
