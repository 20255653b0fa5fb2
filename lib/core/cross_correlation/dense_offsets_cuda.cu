/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cuda.h"
#include "cross_correlation/dense_offsets_rule.h"
#include "runtime/batch_progress.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/cufft_plan_family.h"
#include "runtime/staged_upload.h"
#include <cub/block/block_reduce.cuh>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Threads of the kernels that work a window per block.
constexpr int block_threads = 256;
//! Threads of the element-wise kernels (a 2D block, rows x columns of an array).
constexpr int element_threads = 256;

//! Batch buffers when the configuration leaves the batch to the engine: at most this,
//! and at most a quarter of the device memory free at construction.
constexpr std::size_t default_batch_bytes = std::size_t(2) << 30;
//! Bound on an automatic batch: beyond a few thousand windows the transforms are as
//! efficient as they get.
constexpr std::size_t max_default_batch = 4096;
//! Plans per transform: the batch and its halves down to an eighth, so the padded last
//! launch of a call wastes less than an eighth of a batch.
constexpr int plan_levels = 4;
//! Lags of a lag row that one thread sums by running differences (4.4).
constexpr int row_segment = 16;
//! Bound of a launch's grid in y and z.
constexpr unsigned grid_yz_max = 65535;

__host__ __device__ long long area(int rows, int cols)
{
    return static_cast<long long>(rows) * cols;
}

/*!
 * Where each per-window array lives and how large it is (elements; "slots" hold one
 * window each). The correlations of both stages share one buffer of two slots a window
 * (template, then search at the slot capacity further), in the in-place real-transform
 * layout: rows of 2 (cols / 2 + 1) floats.
 */
struct offsets_layout {
    int raw_pitch = 0;          //!< floats a row, raw correlation
    int over_pitch = 0;         //!< floats a row, oversampled correlation
    long long corr_dist = 0;    //!< floats a correlation slot (either stage)
    long long colsum_dist = 0;  //!< doubles a window: column sums of B, then of B^2
    long long sums_dist = 0;    //!< double2 a window: (S1, S2) of each lag
    long long surface_dist = 0; //!< floats a window: the raw normalised surface
    long long ref_window = 0;   //!< complex: the h x w reference window
    long long zoom_window = 0;  //!< complex: the zoom window
    long long ref_over = 0;     //!< complex: the oversampled reference window
    long long zoom_over = 0;    //!< complex: the oversampled zoom window
    long long big_dist = 0;     //!< complex a window of the oversampling / fine buffer
    int trimmed_pitch = 0;      //!< floats a row of the Z x Z real surface
    long long trimmed_dist = 0; //!< complex a window: Z (Z / 2 + 1)
    int fine_half = 0;          //!< q Z / 2 + 1
    long long fine_dist = 0;    //!< complex a window: q Z (q Z / 2 + 1)

    explicit offsets_layout(const offsets_geometry& g)
    {
        raw_pitch = 2 * (g.search_cols() / 2 + 1);
        over_pitch = 2 * (g.over_zoom_cols() / 2 + 1);
        corr_dist = std::max(area(g.search_rows(), raw_pitch),
                             area(g.over_zoom_rows(), over_pitch));
        colsum_dist = 2 * std::max(area(g.surface_rows(), g.search_cols()),
                                   area(g.trimmed_side(), g.over_zoom_cols()));
        sums_dist = std::max(area(g.surface_rows(), g.surface_cols()),
                             area(g.trimmed_side(), g.trimmed_side()));
        surface_dist = area(g.surface_rows(), g.surface_cols());
        ref_window = area(g.h, g.w);
        zoom_window = area(g.zoom_rows(), g.zoom_cols());
        ref_over = area(g.over_ref_rows(), g.over_ref_cols());
        zoom_over = area(g.over_zoom_rows(), g.over_zoom_cols());
        trimmed_pitch = 2 * (g.zoom / 2 + 1);
        trimmed_dist = area(g.zoom, g.zoom / 2 + 1);
        fine_half = g.fine_side() / 2 + 1;
        fine_dist = area(g.fine_side(), fine_half);
        big_dist = std::max(ref_over + zoom_over, fine_dist);
    }

    //! The largest element count one transform of a plan spans (cuFFT's int layout).
    long long largest_dist() const
    {
        return std::max({ corr_dist,
                          ref_window,
                          zoom_window,
                          ref_over,
                          zoom_over,
                          2 * trimmed_dist,
                          2 * fine_dist });
    }
};

//! The results of the raw surface that the zoom stage needs (4.5 - 4.8).
struct coarse_peak {
    surface_max raw; //!< index < 0: the surface has no number
    float snr;
    offset_covariance cov;
    int s_down, s_across;
};

//! Device bytes a window of the batch holds.
std::size_t bytes_per_window(const offsets_layout& l)
{
    return 2 * std::size_t(l.corr_dist) * sizeof(float) +
           std::size_t(l.colsum_dist) * sizeof(double) +
           std::size_t(l.sums_dist) * sizeof(double2) + sizeof(double) +
           std::size_t(l.surface_dist) * sizeof(float) + sizeof(coarse_peak) +
           std::size_t(l.ref_window + l.zoom_window) * sizeof(float2) +
           std::size_t(l.big_dist) * sizeof(float2) +
           std::size_t(l.trimmed_dist) * sizeof(float2);
}

//! The padding of the plan families of a batch of \p batch windows.
std::size_t plan_padding(std::size_t batch)
{
    return cufft_plan_family::halving_counts(batch, plan_levels).back() - 1;
}

std::size_t batch_windows_for(const dense_offsets_config& config,
                              const offsets_layout& l,
                              int ordinal)
{
    // cuFFT's plans take int distances: a launch of (batch + padding) windows must
    // stay within INT_MAX elements.
    const long long per = l.largest_dist();
    const long long largest = (static_cast<long long>(INT_MAX) / per) * 8 / 9;
    if (largest < 1)
        throw std::runtime_error(
            "dense offsets (CUDA): the windows are too large for the CUDA backend: one "
            "window's transform spans " +
            std::to_string(per) +
            " elements (window_width, window_height, raw_oversampling, half_search, "
            "zoom_window and corr_oversampling set it); use device \"cpu\"");
    std::size_t batch = config.batch_windows;
    if (batch == 0) {
        std::size_t free_bytes = 0, total_bytes = 0;
        {
            device_guard guard(ordinal);
            CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        }
        const std::size_t budget = std::min(default_batch_bytes, free_bytes / 4);
        batch = std::clamp<std::size_t>(
            budget / (bytes_per_window(l) + bytes_per_window(l) / 8),
            1,
            max_default_batch);
    }
    return std::min<std::size_t>(batch, static_cast<std::size_t>(largest));
}

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
    const unsigned gx = (unsigned(cols) + bx - 1) / bx;
    const unsigned gz = static_cast<unsigned>(std::min<std::size_t>(n, grid_yz_max));
    const unsigned row_blocks = (unsigned(rows) + by - 1) / by;
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
 * \p out (row-major): amplitudes (deramp 0), PyCuAmpcor's deramp (1: the float64
 * gradient sums reduced over the block first) or the samples (2). Called by the whole
 * block.
 */
__device__ void load_oversampling_input(const image_rows_view& im,
                                        long long row0,
                                        long long col0,
                                        int rows,
                                        int cols,
                                        int deramp,
                                        float2* out,
                                        block_shared& shared)
{
    const int n = rows * cols;
    double phi_down = 0.0, phi_across = 0.0;
    const bool average = deramp == static_cast<int>(deramp_method::average);
    if (average) {
        gradient_sums g{ 0.0, 0.0, 0.0, 0.0 };
        strided_cursor e(threadIdx.x, block_threads, cols);
        for (int k = threadIdx.x; k < n; k += block_threads, e.advance()) {
            const float2 z = im.sample(row0 + e.row, col0 + e.col);
            const double xr = z.x, xi = z.y;
            if (e.col + 1 < cols) { // z[a][b] conj(z[a][b+1])
                const float2 y = im.sample(row0 + e.row, col0 + e.col + 1);
                g.across_re += xr * y.x + xi * y.y;
                g.across_im += xi * y.x - xr * y.y;
            }
            if (e.row + 1 < rows) { // z[a][b] conj(z[a+1][b])
                const float2 y = im.sample(row0 + e.row + 1, col0 + e.col);
                g.down_re += xr * y.x + xi * y.y;
                g.down_im += xi * y.x - xr * y.y;
            }
        }
        const gradient_sums total = block_gradient(g, shared);
        phi_down = deramp_gradient_phase(total.down_re, total.down_im);
        phi_across = deramp_gradient_phase(total.across_re, total.across_im);
    }
    strided_cursor e(threadIdx.x, block_threads, cols);
    for (int k = threadIdx.x; k < n; k += block_threads, e.advance()) {
        float2 z = im.sample(row0 + e.row, col0 + e.col);
        if (deramp == static_cast<int>(deramp_method::amplitude))
            z = make_float2(amplitude(z.x, z.y), 0.0f);
        else if (average)
            deramp_sample(z.x, z.y, e.row, e.col, phi_down, phi_across);
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
                            g.deramp,
                            a.ref_out + i * a.ref_dist,
                            shared);
    load_oversampling_input(a.sec,
                            w.reference_down + w.gross_down - g.hd + c.s_down,
                            w.reference_across + w.gross_across - g.ha + c.s_across,
                            g.zoom_rows(),
                            g.zoom_cols(),
                            g.deramp,
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

//! A real-to-complex (\p forward) or complex-to-real rows x cols plan of the in-place
//! layout: real rows of \p pitch floats, \p real_dist floats a transform.
cufft_plan
real_plan(int rows, int cols, int pitch, long long real_dist, bool forward, int count)
{
    const int n[2] = { rows, cols };
    const int real_embed[2] = { rows, pitch };
    const int complex_embed[2] = { rows, cols / 2 + 1 };
    const int rd = static_cast<int>(real_dist), cd = static_cast<int>(real_dist / 2);
    return forward ? cufft_plan(2,
                                n,
                                real_embed,
                                1,
                                rd,
                                complex_embed,
                                1,
                                cd,
                                CUFFT_R2C,
                                count,
                                cufft_plan::external_work_area{})
                   : cufft_plan(2,
                                n,
                                complex_embed,
                                1,
                                cd,
                                real_embed,
                                1,
                                rd,
                                CUFFT_C2R,
                                count,
                                cufft_plan::external_work_area{});
}

//! A dense complex rows x cols plan, transforms rows x cols apart.
cufft_plan complex_plan(int rows, int cols, int count)
{
    const int n[2] = { rows, cols };
    const int d = rows * cols;
    return cufft_plan(
        2, n, n, 1, d, n, 1, d, CUFFT_C2C, count, cufft_plan::external_work_area{});
}

//! The transforms of a batch, in the order enqueue_batch() runs them.
enum class batch_transform {
    raw_template,      //!< R2C of the raw templates
    raw_search,        //!< R2C of the raw search windows
    raw_inverse,       //!< C2R of the raw cross spectra
    reference_forward, //!< C2C forward of the reference windows
    zoom_forward,      //!< C2C forward of the zoom windows
    reference_inverse, //!< C2C inverse of the padded reference spectra
    zoom_inverse,      //!< C2C inverse of the padded zoom spectra
    over_template,     //!< R2C of the oversampled templates
    over_search,       //!< R2C of the oversampled zoom windows
    over_inverse,      //!< C2R of the oversampled cross spectra
    surface_forward,   //!< R2C of the Z x Z trimmed surfaces
    fine_inverse       //!< C2R of the fine half spectra
};

constexpr batch_transform batch_transforms[] = {
    batch_transform::raw_template,    batch_transform::raw_search,
    batch_transform::raw_inverse,     batch_transform::reference_forward,
    batch_transform::zoom_forward,    batch_transform::reference_inverse,
    batch_transform::zoom_inverse,    batch_transform::over_template,
    batch_transform::over_search,     batch_transform::over_inverse,
    batch_transform::surface_forward, batch_transform::fine_inverse
};

std::string size_text(int rows, int cols)
{
    return std::to_string(rows) + "x" + std::to_string(cols);
}

} // namespace

// ---------------------------------------------------------------------------------
// Workspace
// ---------------------------------------------------------------------------------

struct dense_offsets_cuda::workspace {
    workspace(const offsets_geometry& geometry, std::size_t batch_windows)
        : g(geometry),
          l(geometry),
          batch(batch_windows),
          capacity(batch_windows + plan_padding(batch_windows)),
          corr(2 * capacity * std::size_t(l.corr_dist)),
          colsums(capacity * std::size_t(l.colsum_dist)),
          sums(capacity * std::size_t(l.sums_dist)),
          t2(capacity),
          surface(capacity * std::size_t(l.surface_dist)),
          coarse(capacity),
          compact(capacity * std::size_t(l.ref_window + l.zoom_window)),
          big(capacity * std::size_t(l.big_dist)),
          trimmed(capacity * std::size_t(l.trimmed_dist))
    {
        // Padded launches transform slots no window wrote, and the zoom stage's kernels
        // (windows without a raw peak leave theirs unwritten too) read zeros, not
        // uninitialised memory. On the engine's stream: it does not wait for the legacy
        // default stream.
        CUDADSP_CUDA(cudaMemsetAsync(corr.get(), 0, corr.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(colsums.get(), 0, colsums.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(sums.get(), 0, sums.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(t2.get(), 0, t2.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(surface.get(), 0, surface.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(coarse.get(), 0, coarse.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(compact.get(), 0, compact.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(big.get(), 0, big.bytes(), stream.get()));
        CUDADSP_CUDA(cudaMemsetAsync(trimmed.get(), 0, trimmed.bytes(), stream.get()));

        const std::vector<std::size_t> counts =
            cufft_plan_family::halving_counts(batch, plan_levels);
        raw_forward.make(counts, [&](int count) {
            return real_plan(
                g.search_rows(), g.search_cols(), l.raw_pitch, l.corr_dist, true, count);
        });
        raw_inverse.make(counts, [&](int count) {
            return real_plan(
                g.search_rows(), g.search_cols(), l.raw_pitch, l.corr_dist, false, count);
        });
        ref_forward.make(counts,
                         [&](int count) { return complex_plan(g.h, g.w, count); });
        zoom_forward.make(counts, [&](int count) {
            return complex_plan(g.zoom_rows(), g.zoom_cols(), count);
        });
        ref_inverse.make(counts, [&](int count) {
            return complex_plan(g.over_ref_rows(), g.over_ref_cols(), count);
        });
        zoom_inverse.make(counts, [&](int count) {
            return complex_plan(g.over_zoom_rows(), g.over_zoom_cols(), count);
        });
        over_forward.make(counts, [&](int count) {
            return real_plan(g.over_zoom_rows(),
                             g.over_zoom_cols(),
                             l.over_pitch,
                             l.corr_dist,
                             true,
                             count);
        });
        over_inverse.make(counts, [&](int count) {
            return real_plan(g.over_zoom_rows(),
                             g.over_zoom_cols(),
                             l.over_pitch,
                             l.corr_dist,
                             false,
                             count);
        });
        surface_forward.make(counts, [&](int count) {
            return real_plan(
                g.zoom, g.zoom, l.trimmed_pitch, 2 * l.trimmed_dist, true, count);
        });
        fine_inverse.make(counts, [&](int count) {
            return real_plan(g.fine_side(),
                             g.fine_side(),
                             2 * l.fine_half,
                             2 * l.fine_dist,
                             false,
                             count);
        });
        std::size_t work = 0;
        for (const cufft_plan_family* f : families())
            work = std::max(work, f->work_size());
        fft_work = device_buffer<unsigned char>(work);
        for (const cufft_plan_family* f : families())
            f->set_work_area(fft_work.get());
    }

    std::vector<const cufft_plan_family*> families() const
    {
        return { &raw_forward,     &raw_inverse,  &ref_forward,  &zoom_forward,
                 &ref_inverse,     &zoom_inverse, &over_forward, &over_inverse,
                 &surface_forward, &fine_inverse };
    }

    //! Enqueues transform \p t of the first \p n windows' slots on \p stream.
    void run(batch_transform t, std::size_t n, cudaStream_t stream) const
    {
        auto real = [&](const cufft_plan_family& plans, long long offset, bool forward) {
            float* base = corr.get() + offset;
            const long long dist = l.corr_dist;
            plans.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                float* p = base + static_cast<long long>(unit) * dist;
                if (forward)
                    CUDADSP_CUFFT(
                        cufftExecR2C(plan, p, reinterpret_cast<cufftComplex*>(p)));
                else
                    CUDADSP_CUFFT(
                        cufftExecC2R(plan, reinterpret_cast<cufftComplex*>(p), p));
            });
        };
        auto complex = [&](const cufft_plan_family& plans,
                           float2* base,
                           long long dist,
                           int direction) {
            plans.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                cufftComplex* p = reinterpret_cast<cufftComplex*>(
                    base + static_cast<long long>(unit) * dist);
                CUDADSP_CUFFT(cufftExecC2C(plan, p, p, direction));
            });
        };
        switch (t) {
        case batch_transform::raw_template:
            return real(raw_forward, 0, true);
        case batch_transform::raw_search:
            return real(raw_forward, search_offset(), true);
        case batch_transform::raw_inverse:
            return real(raw_inverse, 0, false);
        case batch_transform::reference_forward:
            return complex(ref_forward, ref_windows(), l.ref_window, CUFFT_FORWARD);
        case batch_transform::zoom_forward:
            return complex(zoom_forward, zoom_windows(), l.zoom_window, CUFFT_FORWARD);
        case batch_transform::reference_inverse:
            return complex(ref_inverse, ref_oversampled(), l.ref_over, CUFFT_INVERSE);
        case batch_transform::zoom_inverse:
            return complex(zoom_inverse, zoom_oversampled(), l.zoom_over, CUFFT_INVERSE);
        case batch_transform::over_template:
            return real(over_forward, 0, true);
        case batch_transform::over_search:
            return real(over_forward, search_offset(), true);
        case batch_transform::over_inverse:
            return real(over_inverse, 0, false);
        case batch_transform::surface_forward: {
            float2* base = trimmed.get();
            const long long dist = l.trimmed_dist;
            return surface_forward.run(
                n, stream, [=](cufftHandle plan, std::size_t unit) {
                    float2* p = base + static_cast<long long>(unit) * dist;
                    CUDADSP_CUFFT(cufftExecR2C(plan,
                                               reinterpret_cast<float*>(p),
                                               reinterpret_cast<cufftComplex*>(p)));
                });
        }
        case batch_transform::fine_inverse: {
            float2* base = fine_spectra();
            const long long dist = l.fine_dist;
            return fine_inverse.run(n, stream, [=](cufftHandle plan, std::size_t unit) {
                float2* p = base + static_cast<long long>(unit) * dist;
                CUDADSP_CUFFT(cufftExecC2R(plan,
                                           reinterpret_cast<cufftComplex*>(p),
                                           reinterpret_cast<float*>(p)));
            });
        }
        }
    }

    //! A stage's normalised surface: inverse transforms of rows x cols (rows of \p pitch
    //! floats), sums of \p lag_cols lags a row, a template of \p template_pixels.
    surface_source
    surface_of(int pitch, int rows, int cols, int lag_cols, int template_pixels) const
    {
        return { corr.get(),  l.corr_dist, pitch,    area(rows, cols), sums.get(),
                 l.sums_dist, lag_cols,    t2.get(), template_pixels };
    }

    // Slot addresses (window i of the batch).
    float* template_slots() const { return corr.get(); }
    long long search_offset() const
    {
        return static_cast<long long>(capacity) * l.corr_dist;
    }
    float2* ref_windows() const { return compact.get(); }
    float2* zoom_windows() const { return compact.get() + capacity * l.ref_window; }
    float2* ref_oversampled() const { return big.get(); }
    float2* zoom_oversampled() const { return big.get() + capacity * l.ref_over; }
    float2* fine_spectra() const { return big.get(); }

    const offsets_geometry g;
    const offsets_layout l;
    const std::size_t batch;
    const std::size_t capacity; //!< batch + the plans' padding

    cuda_stream stream;
    cuda_stream upload_stream;

    device_buffer<float> corr;         //!< 2 capacity correlation slots
    device_buffer<double> colsums;     //!< capacity colsum_dist
    device_buffer<double2> sums;       //!< capacity sums_dist
    device_buffer<double> t2;          //!< capacity
    device_buffer<float> surface;      //!< capacity raw surfaces
    device_buffer<coarse_peak> coarse; //!< capacity
    device_buffer<float2> compact;     //!< reference windows, then zoom windows
    device_buffer<float2> big; //!< oversampled reference, then zoom; later fine spectra
    device_buffer<float2> trimmed;         //!< Z x Z surfaces and their spectra
    device_buffer<unsigned char> fft_work; //!< declared before the plans: outlives them
    cufft_plan_family raw_forward, raw_inverse, ref_forward, zoom_forward, ref_inverse,
        zoom_inverse, over_forward, over_inverse, surface_forward, fine_inverse;

    // estimate()'s per-call state, kept (grown) across calls.
    struct image_rows {
        device_buffer<unsigned char> data;
        std::size_t row_bytes = 0;
        long long first = 0, uploaded = 0; //!< rows [first, uploaded) are enqueued
        image_rows_view view{};
    };
    image_rows rows[2]; //!< reference, secondary
    staged_upload upload;
    device_buffer<offset_window> windows;
    pinned_buffer<offset_window> windows_staging;
    device_buffer<offset_result> results;
    pinned_buffer<offset_result> results_staging;
    //! The current call's windows and results on the device.
    const offset_window* call_windows = nullptr;
    offset_result* call_results = nullptr;
    //! Timed events of a batch: its row upload (upload stream) and computation (engine
    //! stream); compute_end also tells progress that the batch's results are known.
    struct batch_events {
        cuda_event upload_begin{ true }, upload_end{ true };
        cuda_event compute_begin{ true }, compute_end{ true };
    };
    std::vector<batch_events> batches; //!< reused across calls, grown as needed
    cuda_event download_begin{ true }, download_end{ true };
};

namespace {

/*!
 * One stage's normalised-correlation steps (4.2 - 4.4) for the first \p n windows: the
 * input kernel on \p src (amplitudes into both slots, T2, the window sums), the real
 * transforms of the templates and the search windows, the cross spectrum, the inverse.
 */
template <typename Source>
void enqueue_correlation(const dense_offsets_cuda::workspace& ws,
                         const Source& src,
                         const correlation_shape& s,
                         batch_transform forward_template,
                         batch_transform forward_search,
                         batch_transform inverse,
                         std::size_t n,
                         cudaStream_t stream)
{
    const offsets_layout& l = ws.l;
    const correlation_buffers buffers{ ws.template_slots(), l.corr_dist,
                                       ws.search_offset(),  ws.colsums.get(),
                                       l.colsum_dist,       ws.sums.get(),
                                       l.sums_dist,         ws.t2.get() };
    const auto count = static_cast<unsigned>(n);
    correlation_input_kernel<<<count, block_threads, 0, stream>>>(src, s, buffers);
    CUDADSP_CUDA_LAUNCHED("correlation_input_kernel");
    ws.run(forward_template, n, stream);
    ws.run(forward_search, n, stream);
    const int cols = s.cols / 2 + 1;
    const element_launch e = launch_over(s.rows, cols, n);
    cross_spectrum_kernel<<<e.grid, e.block, 0, stream>>>(
        reinterpret_cast<float2*>(ws.template_slots()),
        l.corr_dist / 2,
        ws.search_offset() / 2,
        s.rows,
        cols,
        count);
    CUDADSP_CUDA_LAUNCHED("cross_spectrum_kernel");
    ws.run(inverse, n, stream);
}

} // namespace

// ---------------------------------------------------------------------------------
// Engine
// ---------------------------------------------------------------------------------

dense_offsets_cuda::dense_offsets_cuda(const dense_offsets_config& config,
                                       const device_selection& device)
    : dense_offsets_estimator(config, device)
{
    const offsets_geometry g = make_offsets_geometry(config);
    const std::size_t batch =
        batch_windows_for(config, offsets_layout(g), device.cuda_ordinal);
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(g, batch);
}

dense_offsets_cuda::~dense_offsets_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::size_t dense_offsets_cuda::batch_windows() const { return d_ws->batch; }

cudaStream_t dense_offsets_cuda::stream() const { return d_ws->stream.get(); }

std::string dense_offsets_cuda::transform_summary() const
{
    const offsets_geometry& g = d_ws->g;
    return "R2C " + size_text(g.search_rows(), g.search_cols()) + " x2, C2R " +
           size_text(g.search_rows(), g.search_cols()) + ", C2C " + size_text(g.h, g.w) +
           " + " + size_text(g.zoom_rows(), g.zoom_cols()) + " forward, C2C " +
           size_text(g.over_ref_rows(), g.over_ref_cols()) + " + " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + " inverse, R2C " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + " x2, C2R " +
           size_text(g.over_zoom_rows(), g.over_zoom_cols()) + ", R2C " +
           size_text(g.zoom, g.zoom) + ", C2R " +
           size_text(g.fine_side(), g.fine_side()) + " (each per window)";
}

void dense_offsets_cuda::enqueue_batch(std::size_t first, std::size_t n)
{
    workspace& ws = *d_ws;
    const offsets_geometry& g = ws.g;
    const offsets_layout& l = ws.l;
    cudaStream_t stream = ws.stream.get();
    const auto count = static_cast<unsigned>(n);
    const offset_window* windows = ws.call_windows + first;
    const long long search_offset = ws.search_offset();

    // 4.1 - 4.4: the raw correlation.
    const raw_source raw{ ws.rows[0].view, ws.rows[1].view, windows, g.hd, g.ha };
    const correlation_shape raw_shape{
        g.search_rows(),  g.search_cols(), l.raw_pitch, g.h, g.w,
        g.surface_rows(), g.surface_cols()
    };
    enqueue_correlation(ws,
                        raw,
                        raw_shape,
                        batch_transform::raw_template,
                        batch_transform::raw_search,
                        batch_transform::raw_inverse,
                        n,
                        stream);

    // 4.4 - 4.8: the raw surface's peak and statistics.
    raw_peak_args peak;
    peak.src = ws.surface_of(
        l.raw_pitch, g.search_rows(), g.search_cols(), g.surface_cols(), g.h * g.w);
    peak.surface = ws.surface.get();
    peak.surface_dist = l.surface_dist;
    peak.coarse = ws.coarse.get();
    peak.g = g;
    raw_peak_kernel<<<count, block_threads, 0, stream>>>(peak);
    CUDADSP_CUDA_LAUNCHED("raw_peak_kernel");

    // 4.9: the reference and zoom windows, oversampled.
    zoom_load_args zoom;
    zoom.ref = ws.rows[0].view;
    zoom.sec = ws.rows[1].view;
    zoom.windows = windows;
    zoom.coarse = ws.coarse.get();
    zoom.ref_out = ws.ref_windows();
    zoom.zoom_out = ws.zoom_windows();
    zoom.ref_dist = l.ref_window;
    zoom.zoom_dist = l.zoom_window;
    zoom.g = g;
    zoom_load_kernel<<<count, block_threads, 0, stream>>>(zoom);
    CUDADSP_CUDA_LAUNCHED("zoom_load_kernel");
    ws.run(batch_transform::reference_forward, n, stream);
    ws.run(batch_transform::zoom_forward, n, stream);
    {
        const element_launch e = launch_over(g.over_ref_rows(), g.over_ref_cols(), n);
        oversample_spread_kernel<<<e.grid, e.block, 0, stream>>>(ws.ref_windows(),
                                                                 l.ref_window,
                                                                 g.h,
                                                                 g.w,
                                                                 ws.ref_oversampled(),
                                                                 l.ref_over,
                                                                 g.over_ref_rows(),
                                                                 g.over_ref_cols(),
                                                                 count);
        CUDADSP_CUDA_LAUNCHED("oversample_spread_kernel (reference)");
    }
    {
        const element_launch e = launch_over(g.over_zoom_rows(), g.over_zoom_cols(), n);
        oversample_spread_kernel<<<e.grid, e.block, 0, stream>>>(ws.zoom_windows(),
                                                                 l.zoom_window,
                                                                 g.zoom_rows(),
                                                                 g.zoom_cols(),
                                                                 ws.zoom_oversampled(),
                                                                 l.zoom_over,
                                                                 g.over_zoom_rows(),
                                                                 g.over_zoom_cols(),
                                                                 count);
        CUDADSP_CUDA_LAUNCHED("oversample_spread_kernel (zoom)");
    }
    ws.run(batch_transform::reference_inverse, n, stream);
    ws.run(batch_transform::zoom_inverse, n, stream);

    // 4.10: the oversampled correlation, at the trimmed lags only.
    const over_source over{ ws.ref_oversampled(),
                            ws.zoom_oversampled(),
                            l.ref_over,
                            l.zoom_over,
                            g.over_ref_cols(),
                            g.over_zoom_cols(),
                            g.h * g.w,
                            g.zoom_rows() * g.zoom_cols(),
                            ws.coarse.get() };
    const correlation_shape over_shape{ g.over_zoom_rows(), g.over_zoom_cols(),
                                        l.over_pitch,       g.over_ref_rows(),
                                        g.over_ref_cols(),  g.trimmed_side(),
                                        g.trimmed_side() };
    enqueue_correlation(ws,
                        over,
                        over_shape,
                        batch_transform::over_template,
                        batch_transform::over_search,
                        batch_transform::over_inverse,
                        n,
                        stream);

    // 4.11: the trimmed surface, its real transform, the fine half spectrum, the fine
    // surface.
    {
        trimmed_args t;
        t.src = ws.surface_of(l.over_pitch,
                              g.over_zoom_rows(),
                              g.over_zoom_cols(),
                              g.trimmed_side(),
                              g.over_ref_rows() * g.over_ref_cols());
        t.side = g.trimmed_side();
        t.zoom = g.zoom;
        t.out = reinterpret_cast<float*>(ws.trimmed.get());
        t.out_pitch = l.trimmed_pitch;
        t.out_dist = 2 * l.trimmed_dist;
        t.n = count;
        const element_launch e = launch_over(g.zoom, g.zoom, n);
        trimmed_surface_kernel<<<e.grid, e.block, 0, stream>>>(t);
        CUDADSP_CUDA_LAUNCHED("trimmed_surface_kernel");
    }
    ws.run(batch_transform::surface_forward, n, stream);
    {
        const element_launch e = launch_over(g.fine_side(), l.fine_half, n);
        fine_spectrum_kernel<<<e.grid, e.block, 0, stream>>>(ws.trimmed.get(),
                                                             l.trimmed_dist,
                                                             g.zoom,
                                                             ws.fine_spectra(),
                                                             l.fine_dist,
                                                             g.fine_side(),
                                                             l.fine_half,
                                                             count);
        CUDADSP_CUDA_LAUNCHED("fine_spectrum_kernel");
    }
    ws.run(batch_transform::fine_inverse, n, stream);

    // 4.12
    fine_peak_args fine;
    fine.fine = reinterpret_cast<const float*>(ws.fine_spectra());
    fine.fine_dist = 2 * l.fine_dist;
    fine.side = g.fine_side();
    fine.pitch = 2 * l.fine_half;
    fine.coarse = ws.coarse.get();
    fine.windows = windows;
    fine.results = ws.call_results + first;
    fine.g = g;
    fine_peak_kernel<<<count, block_threads, 0, stream>>>(fine);
    CUDADSP_CUDA_LAUNCHED("fine_peak_kernel");
}


void dense_offsets_cuda::enqueue_transforms(std::size_t nwindows)
{
    device_guard guard(d_device.cuda_ordinal);
    const workspace& ws = *d_ws;
    for (std::size_t first = 0; first < nwindows; first += ws.batch) {
        const std::size_t n = std::min(ws.batch, nwindows - first);
        for (const batch_transform t : batch_transforms)
            ws.run(t, n, ws.stream.get());
    }
}

void dense_offsets_cuda::estimate(const image_view& reference,
                                  const image_view& secondary,
                                  const offset_window* windows,
                                  std::size_t nwindows,
                                  offset_result* results)
{
    check_windows(reference, secondary, windows, nwindows);
    d_timing = offsets_timing{};
    if (nwindows == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    workspace& ws = *d_ws;
    try {
        run_call(reference, secondary, windows, nwindows, results);
    } catch (...) {
        // Work already enqueued may still read the staging buffers and the rows: let
        // it finish (or fail) before the engine is used again.
        cudaStreamSynchronize(ws.upload_stream.get());
        cudaStreamSynchronize(ws.stream.get());
        cudaGetLastError();
        throw;
    }
}

void dense_offsets_cuda::run_call(const image_view& reference,
                                  const image_view& secondary,
                                  const offset_window* windows,
                                  std::size_t nwindows,
                                  offset_result* results)
{
    workspace& ws = *d_ws;
    const offsets_geometry& g = ws.g;
    cudaStream_t stream = ws.stream.get();
    cudaStream_t upload_stream = ws.upload_stream.get();

    // The rows each image's windows need, and each image's device copy of them.
    const image_view views[2] = { reference, secondary };
    long long lo[2] = { LLONG_MAX, LLONG_MAX }, hi[2] = { LLONG_MIN, LLONG_MIN };
    auto window_rows = [&](const offset_window& w, int img, long long& first) {
        first = img == 0 ? w.reference_down : w.reference_down + w.gross_down - g.hd;
        return first + (img == 0 ? g.h : g.search_rows());
    };
    for (std::size_t k = 0; k < nwindows; ++k)
        for (int img = 0; img < 2; ++img) {
            long long first = 0;
            const long long end = window_rows(windows[k], img, first);
            lo[img] = std::min(lo[img], first);
            hi[img] = std::max(hi[img], end);
        }
    bool pinned[2];
    for (int img = 0; img < 2; ++img) {
        workspace::image_rows& r = ws.rows[img];
        const bool int16 = views[img].type == slc_sample_type::complex_int16;
        r.row_bytes =
            views[img].width * (int16 ? 2 * sizeof(std::int16_t) : 2 * sizeof(float));
        const std::size_t bytes = std::size_t(hi[img] - lo[img]) * r.row_bytes;
        if (r.data.bytes() < bytes)
            r.data = device_buffer<unsigned char>(bytes);
        r.first = r.uploaded = lo[img];
        r.view = {
            r.data.get(), static_cast<long long>(views[img].width), lo[img], int16
        };
        pinned[img] = is_pinned_host_pointer(views[img].data);
    }

    // The windows go to the device once, ahead of the first batch.
    if (ws.windows.size() < nwindows) {
        ws.windows = device_buffer<offset_window>(nwindows);
        ws.windows_staging = pinned_buffer<offset_window>(nwindows);
        ws.results = device_buffer<offset_result>(nwindows);
        ws.results_staging = pinned_buffer<offset_result>(nwindows);
    }
    std::memcpy(ws.windows_staging.get(), windows, nwindows * sizeof(offset_window));
    CUDADSP_CUDA(cudaMemcpyAsync(ws.windows.get(),
                                 ws.windows_staging.get(),
                                 nwindows * sizeof(offset_window),
                                 cudaMemcpyHostToDevice,
                                 stream));
    ws.call_windows = ws.windows.get();
    ws.call_results = ws.results.get();

    // Progress as the batches complete (the callback on this thread).
    batch_progress progress(d_progress, nwindows);
    std::size_t nbatches = 0;

    long long need[2] = { lo[0], lo[1] }; // rows the batches so far need, per image
    std::vector<bool> uploaded;           // whether a batch uploaded rows
    for (std::size_t first = 0; first < nwindows; first += ws.batch) {
        const std::size_t n = std::min(ws.batch, nwindows - first);
        for (std::size_t k = first; k < first + n; ++k)
            for (int img = 0; img < 2; ++img) {
                long long row = 0;
                need[img] = std::max(need[img], window_rows(windows[k], img, row));
            }
        if (ws.batches.size() <= nbatches)
            ws.batches.emplace_back();
        const workspace::batch_events& ev = ws.batches[nbatches];

        // The rows this batch needs that earlier batches did not: rows are only ever
        // appended during a call, so earlier batches still computing never see them
        // change.
        const bool more = need[0] > ws.rows[0].uploaded || need[1] > ws.rows[1].uploaded;
        if (more) {
            ev.upload_begin.record(upload_stream);
            for (int img = 0; img < 2; ++img) {
                workspace::image_rows& r = ws.rows[img];
                if (need[img] <= r.uploaded)
                    continue;
                ws.upload.copy(r.data.get() +
                                   std::size_t(r.uploaded - r.first) * r.row_bytes,
                               static_cast<const unsigned char*>(views[img].data) +
                                   std::size_t(r.uploaded) * r.row_bytes,
                               std::size_t(need[img] - r.uploaded) * r.row_bytes,
                               pinned[img],
                               upload_stream);
                r.uploaded = need[img];
            }
            ev.upload_end.record(upload_stream);
            ev.upload_end.wait_on(stream);
        }
        uploaded.push_back(more);

        ev.compute_begin.record(stream);
        enqueue_batch(first, n);
        ev.compute_end.record(stream);
        progress.add(ev.compute_end.get(), first + n);
        ++nbatches;
        progress.poll();
    }
    ws.download_begin.record(stream);
    CUDADSP_CUDA(cudaMemcpyAsync(ws.results_staging.get(),
                                 ws.results.get(),
                                 nwindows * sizeof(offset_result),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    ws.download_end.record(stream);
    progress.finish();
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    std::memcpy(results, ws.results_staging.get(), nwindows * sizeof(offset_result));

    // Every event above has completed: the stream waited for each upload.
    for (std::size_t b = 0; b < nbatches; ++b) {
        const workspace::batch_events& ev = ws.batches[b];
        if (uploaded[b])
            d_timing.upload_ms += ev.upload_end.elapsed_ms_since(ev.upload_begin);
        d_timing.compute_ms += ev.compute_end.elapsed_ms_since(ev.compute_begin);
    }
    d_timing.download_ms = ws.download_end.elapsed_ms_since(ws.download_begin);
}

void dense_offsets_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_ws->stream.get()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
