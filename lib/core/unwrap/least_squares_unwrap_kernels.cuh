/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_KERNELS_CUH

/*
 * The least-squares unwrapper's kernels: the divergence of the wrapped gradients, the
 * weighted setup, the DCT-domain Poisson spectrum (the method is described at the top of
 * least_squares_unwrap_cuda.cu), the preconditioned conjugate-gradient steps, their
 * block reductions and the output; with the frame and transform shapes they read.
 * least_squares_unwrap_cuda.cu, which plans and launches them, alone includes this file;
 * the kernels keep the internal linkage (anonymous namespace) they had there.
 */

#include "unwrap/least_squares_unwrap_cuda.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <cub/block/block_reduce.cuh>
#include <math_constants.h>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int block_threads = 256;

//! The frame, as the per-pixel kernels see it (at most 2^30 pixels: int32 indices).
struct frame_shape {
    std::int32_t width;
    std::int32_t height;
    std::int32_t pixels;
};

//! The transforms' frame: the frame itself, or one row for a one-column frame (cuFFT's
//! R2C halves the last dimension, which must then be the long one).
struct transform_shape {
    std::int32_t rows;
    std::int32_t cols;
    std::int32_t half_cols; //!< cols / 2 + 1: columns of the R2C half spectrum
};

/*! The unweighted solve's input: the wrapped phase alone (no weight, no mask), so a
 *  pixel is valid where its phase is finite. Its kernels are compiled for it apart from
 *  the weighted ones, without the weight and mask branches those carry. The unweighted
 *  solution is read in the transform's (reordered) order. */
struct phase_only_inputs {
    static constexpr bool reordered_solution = true;
    const float* wrapped;
};

/*! The weighted solve's inputs (weight and mask may be null); its solution is read in
 *  natural order. */
struct frame_inputs {
    static constexpr bool reordered_solution = false;
    const float* wrapped;
    const float* weight;
    const std::uint8_t* mask;
    /*! edge_weight()'s largest weight of a valid pixel, in .x, reduced on the device
     *  (largest_weight_kernel) so the host need not wait for it; read only where
     *  weight is given. */
    const double2* largest_weight;
};

/*! Slots of the float64 scalars the kernels reduce into and read from. Each holds a
 *  pair (the reductions sum pairs). */
enum scalar_slot : int {
    slot_setup = 0,          //!< { valid pixels, r0 . r0 }
    slot_rz = 1,             //!< { r . z } of even iterations; slot_rz + 1: odd ones
    slot_pq = 3,             //!< { p . Qp }
    slot_rr = 4,             //!< { r . r } after the update
    slot_offset = 5,         //!< { the constant c added to the solution }
    slot_largest_weight = 6, //!< { the largest weight of a valid pixel }
    scalar_slot_count = 7    //!< slots in all
};

//! What the final sum does: store the sum, or its circular offset.
enum class reduction_finish { store_sum, store_circular_offset };

//! Position of sample \p i after Makhoul's reorder of \p n samples.
__device__ __forceinline__ std::int32_t makhoul_position(std::int32_t i, std::int32_t n)
{
    return (i & 1) ? n - 1 - (i >> 1) : (i >> 1);
}

__device__ __forceinline__ std::int32_t
reordered_index(std::int32_t row, std::int32_t col, const frame_shape& s)
{
    return makhoul_position(row, s.height) * s.width + makhoul_position(col, s.width);
}

//! The rule's validity (unwrap_2d_pixel_valid()) of pixel \p p.
__device__ __forceinline__ bool pixel_valid(const frame_inputs& in, std::int32_t p)
{
    return unwrap_2d_pixel_valid(in.wrapped, in.weight, in.mask, p);
}

//! The rule's validity without weight and mask: a finite phase.
__device__ __forceinline__ bool pixel_valid(const phase_only_inputs& in, std::int32_t p)
{
    return isfinite(in.wrapped[p]);
}

//! Weight U of the difference between pixels \p a and \p b: 0 unless both are valid.
__device__ __forceinline__ float
difference_weight(const frame_inputs& in, std::int32_t a, std::int32_t b)
{
    if (!pixel_valid(in, a) || !pixel_valid(in, b))
        return 0.0f;
    return in.weight ? edge_weight(in.weight[a],
                                   in.weight[b],
                                   static_cast<float>(in.largest_weight->x))
                     : 1.0f;
}

//! Weight U without weights: 1 between valid pixels.
__device__ __forceinline__ float
difference_weight(const phase_only_inputs& in, std::int32_t a, std::int32_t b)
{
    return pixel_valid(in, a) && pixel_valid(in, b) ? 1.0f : 0.0f;
}

//! Wrapped difference from pixel \p a to pixel \p b, in float64.
__device__ __forceinline__ double
wrapped_gradient(const float* x, std::int32_t a, std::int32_t b, const unwrap_period& p)
{
    return wrap_difference(double(x[b]) - double(x[a]), p);
}

struct sum_pairs {
    __device__ double2 operator()(const double2& a, const double2& b) const
    {
        return make_double2(a.x + b.x, a.y + b.y);
    }
};

struct max_pairs {
    __device__ double2 operator()(const double2& a, const double2& b) const
    {
        return make_double2(fmax(a.x, b.x), fmax(a.y, b.y));
    }
};

using pair_reduce = cub::BlockReduce<double2, block_threads>;

//! The block's reduction of \p v by \p op into partials[blockIdx.x]; every thread must
//! call it.
template <class Op>
__device__ __forceinline__ void store_block_reduction(double2 v, double2* partials, Op op)
{
    __shared__ typename pair_reduce::TempStorage storage;
    const double2 total = pair_reduce(storage).Reduce(v, op);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = total;
}

/*!
 * The weighted divergence rho at (row, col): sum over its four differences of U * g,
 * outgoing differences (right, lower) added and incoming ones subtracted, g the wrapped
 * difference. A difference off the frame or with an invalid end has U = 0 and is not
 * evaluated (its wrapped values may be NaN). With phase_only_inputs, U = 1 between
 * finite pixels: the unweighted divergence. Also gives the outgoing weights.
 */
template <class Inputs>
__device__ __forceinline__ double divergence_at(const Inputs& in,
                                                std::int32_t row,
                                                std::int32_t col,
                                                const frame_shape& s,
                                                const unwrap_period& period,
                                                float* right_weight,
                                                float* lower_weight)
{
    const std::int32_t p = row * s.width + col;
    double rho = 0.0;
    *right_weight = col + 1 < s.width ? difference_weight(in, p, p + 1) : 0.0f;
    *lower_weight = row + 1 < s.height ? difference_weight(in, p, p + s.width) : 0.0f;
    if (*right_weight != 0.0f)
        rho += double(*right_weight) * wrapped_gradient(in.wrapped, p, p + 1, period);
    if (*lower_weight != 0.0f)
        rho +=
            double(*lower_weight) * wrapped_gradient(in.wrapped, p, p + s.width, period);
    if (col > 0) {
        const float u = difference_weight(in, p - 1, p);
        if (u != 0.0f)
            rho -= double(u) * wrapped_gradient(in.wrapped, p - 1, p, period);
    }
    if (row > 0) {
        const float u = difference_weight(in, p - s.width, p);
        if (u != 0.0f)
            rho -= double(u) * wrapped_gradient(in.wrapped, p - s.width, p, period);
    }
    return rho;
}

/*!
 * Unweighted case, first pass: the divergence of every pixel, written at its reordered
 * place in \p transformed (the R2C input). Sets *non_finite when a wrapped value is
 * not finite (the frame then goes to the weighted solve; the flag is cleared before).
 * \p transformed must not overlap the input.
 */
__global__ void divergence_kernel(phase_only_inputs in,
                                  frame_shape s,
                                  unwrap_period period,
                                  float* __restrict__ transformed,
                                  int* __restrict__ non_finite)
{
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        if (!isfinite(in.wrapped[p]))
            *non_finite = 1;
        float right = 0.0f;
        float lower = 0.0f;
        transformed[reordered_index(row, col, s)] =
            static_cast<float>(divergence_at(in, row, col, s, period, &right, &lower));
    }
}

/*!
 * Weighted case, setup: the difference weights (right_weight, lower_weight: of the
 * differences from each pixel to its right and lower neighbours, 0 off the frame), the
 * initial residual r0 = rho (also written reordered into \p transformed for the first
 * preconditioning), and per block { valid pixels, r0 . r0 } into \p partials.
 */
__global__ void weighted_setup_kernel(frame_inputs in,
                                      frame_shape s,
                                      unwrap_period period,
                                      float* __restrict__ right_weight,
                                      float* __restrict__ lower_weight,
                                      float* __restrict__ residual,
                                      float* __restrict__ transformed,
                                      double2* __restrict__ partials)
{
    double2 sums = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        float right = 0.0f;
        float lower = 0.0f;
        const float rho =
            static_cast<float>(divergence_at(in, row, col, s, period, &right, &lower));
        right_weight[p] = right;
        lower_weight[p] = lower;
        residual[p] = rho;
        transformed[reordered_index(row, col, s)] = rho;
        sums.x += pixel_valid(in, p) ? 1.0 : 0.0;
        sums.y += double(rho) * double(rho);
    }
    store_block_reduction(sums, partials, sum_pairs{});
}

/*!
 * Weighted case, before the setup: per block { the largest weight of a valid pixel (0
 * where the block has none), 0 } into \p partials (reduce_largest_kernel finishes it).
 * \p in.weight is not null.
 */
__global__ void
largest_weight_kernel(frame_inputs in, frame_shape s, double2* __restrict__ partials)
{
    double2 largest = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x)
        if (pixel_valid(in, p))
            largest.x = fmax(largest.x, double(in.weight[p]));
    store_block_reduction(largest, partials, max_pairs{});
}

/*!
 * The spectral step of the Poisson solve, in place on the R2C half spectrum of the
 * reordered divergence (rows x half_cols, row-major): per group of points (+-k1, +-k2),
 * k1 in [0, rows/2], k2 in [0, cols/2], the DCT-II coefficients, divided by the
 * eigenvalues 2cos(pi k1/rows) + 2cos(pi k2/cols) - 4 ((0, 0) set to 0) and by 4 *
 * rows * cols (the inverse twiddle's 1/4 and the unnormalised C2R), and the half
 * spectrum whose C2R is the reordered solution. \p twiddle_rows[k] = T_rows(k),
 * \p eigen_rows[k] = 2cos(pi k/rows) - 2, likewise for columns.
 */
__global__ void poisson_spectrum_kernel(float2* spectrum,
                                        transform_shape t,
                                        const float2* __restrict__ twiddle_rows,
                                        const float2* __restrict__ twiddle_cols,
                                        const float* __restrict__ eigen_rows,
                                        const float* __restrict__ eigen_cols,
                                        float scale)
{
    const std::int32_t groups = (t.rows / 2 + 1) * t.half_cols;
    for (std::int32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < groups;
         g += gridDim.x * blockDim.x) {
        const std::int32_t k1 = g / t.half_cols;
        const std::int32_t k2 = g - k1 * t.half_cols;
        const std::int32_t other_row = k1 == 0 ? 0 : t.rows - k1;
        const float2 a = spectrum[k1 * t.half_cols + k2];        // V(k1, k2)
        const float2 b = spectrum[other_row * t.half_cols + k2]; // V(-k1, k2)
        const float2 a_conj = make_float2(a.x, -a.y);            // V(-k1, -k2)
        const float2 b_conj = make_float2(b.x, -b.y);            // V(k1, -k2)

        // The divided DCT coefficient at (i, j) from V(i, j) and V(i, -j); 0 where the
        // index is N (the point does not exist) and at (0, 0).
        auto coefficient =
            [&](std::int32_t i, std::int32_t j, float2 v, float2 v_mirror) {
                if (i == t.rows || j == t.cols || (i == 0 && j == 0))
                    return 0.0f;
                const float2 tj = twiddle_cols[j];
                // tj * v + conj(tj) * v_mirror
                const float2 u =
                    make_float2(tj.x * (v.x + v_mirror.x) - tj.y * (v.y - v_mirror.y),
                                tj.x * (v.y + v_mirror.y) + tj.y * (v.x - v_mirror.x));
                const float2 ti = twiddle_rows[i];
                const float x = 2.0f * (ti.x * u.x - ti.y * u.y);
                return x * scale / (eigen_rows[i] + eigen_cols[j]);
            };
        const std::int32_t i_plus = k1;
        const std::int32_t i_minus = t.rows - k1;
        const std::int32_t j_plus = k2;
        const std::int32_t j_minus = t.cols - k2;
        const float pp = coefficient(i_plus, j_plus, a, b_conj);
        const float pm = coefficient(i_plus, j_minus, b_conj, a);
        const float mp = coefficient(i_minus, j_plus, b, a_conj);
        const float mm = coefficient(i_minus, j_minus, a_conj, b);

        // conj(T_rows(i) T_cols(k2)) [c0 - i c1 - i c2 - c3], for the output at row i.
        const float2 tk2 = twiddle_cols[k2];
        auto inverse = [&](std::int32_t i, float c0, float c1, float c2, float c3) {
            const float re = c0 - c3;
            const float im = -(c1 + c2);
            const float2 ti = twiddle_rows[i];
            const float2 tw =
                make_float2(ti.x * tk2.x - ti.y * tk2.y, -(ti.x * tk2.y + ti.y * tk2.x));
            return make_float2(tw.x * re - tw.y * im, tw.x * im + tw.y * re);
        };
        spectrum[k1 * t.half_cols + k2] = inverse(i_plus, pp, pm, mp, mm);
        if (other_row != k1)
            spectrum[other_row * t.half_cols + k2] = inverse(i_minus, mp, mm, pp, pm);
    }
}

/*!
 * Weighted case: the preconditioned residual z, taken back from the reordered
 * transform output into natural order, and per block { r . z, 0 } into \p partials.
 */
__global__ void preconditioned_residual_kernel(frame_shape s,
                                               const float* __restrict__ transformed,
                                               const float* __restrict__ residual,
                                               float* __restrict__ preconditioned,
                                               double2* __restrict__ partials)
{
    double2 sums = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        const float z = transformed[reordered_index(row, col, s)];
        preconditioned[p] = z;
        sums.x += double(residual[p]) * double(z);
    }
    store_block_reduction(sums, partials, sum_pairs{});
}

/*!
 * The weighted Laplacian (Q p)(row, col) = sum over the pixel's differences of
 * U * (p(neighbour) - p(pixel)); \p value(index) gives p. Differences with U = 0 read
 * nothing.
 */
template <class Value>
__device__ __forceinline__ float weighted_laplacian_at(const Value& value,
                                                       const float* right_weight,
                                                       const float* lower_weight,
                                                       std::int32_t row,
                                                       std::int32_t col,
                                                       const frame_shape& s)
{
    const std::int32_t p = row * s.width + col;
    const float centre = value(p);
    float q = 0.0f;
    const float right = right_weight[p];
    if (right != 0.0f)
        q += right * (value(p + 1) - centre);
    const float lower = lower_weight[p];
    if (lower != 0.0f)
        q += lower * (value(p + s.width) - centre);
    if (col > 0) {
        const float left = right_weight[p - 1];
        if (left != 0.0f)
            q += left * (value(p - 1) - centre);
    }
    if (row > 0) {
        const float upper = lower_weight[p - s.width];
        if (upper != 0.0f)
            q += upper * (value(p - s.width) - centre);
    }
    return q;
}

/*!
 * Weighted case: the new search direction p = z + beta p_old (beta = rz / rz_old; p =
 * z on the first iteration, when p_old is not read), written to \p direction, and per
 * block { p . Qp, 0 } into \p partials. Each thread forms p at its neighbours itself
 * (the same rounding: one fused multiply-add), so no pass waits for p to be stored.
 */
__global__ void search_direction_kernel(frame_shape s,
                                        const float* __restrict__ preconditioned,
                                        const float* __restrict__ previous_direction,
                                        const float* __restrict__ right_weight,
                                        const float* __restrict__ lower_weight,
                                        const double2* __restrict__ scalars,
                                        int rz_slot,
                                        int rz_old_slot,
                                        bool first,
                                        float* __restrict__ direction,
                                        double2* __restrict__ partials)
{
    float beta = 0.0f;
    if (!first) {
        const double rz_old = scalars[rz_old_slot].x;
        beta = rz_old != 0.0 ? static_cast<float>(scalars[rz_slot].x / rz_old) : 0.0f;
    }
    auto value = [&](std::int32_t p) {
        return first ? preconditioned[p]
                     : __fmaf_rn(beta, previous_direction[p], preconditioned[p]);
    };
    double2 sums = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        const float d = value(p);
        direction[p] = d;
        const float q =
            weighted_laplacian_at(value, right_weight, lower_weight, row, col, s);
        sums.x += double(d) * double(q);
    }
    store_block_reduction(sums, partials, sum_pairs{});
}

/*!
 * Weighted case: alpha = rz / pq; phi += alpha p (phi = alpha p on the first
 * iteration), r -= alpha Qp (Qp recomputed from the stored p), r also written
 * reordered into \p transformed for the next preconditioning, and per block
 * { r . r, 0 } into \p partials.
 */
__global__ void solution_update_kernel(frame_shape s,
                                       const float* __restrict__ direction,
                                       const float* __restrict__ right_weight,
                                       const float* __restrict__ lower_weight,
                                       const double2* __restrict__ scalars,
                                       int rz_slot,
                                       bool first,
                                       float* __restrict__ solution,
                                       float* __restrict__ residual,
                                       float* __restrict__ transformed,
                                       double2* __restrict__ partials)
{
    const double pq = scalars[slot_pq].x;
    const double alpha = pq != 0.0 ? scalars[rz_slot].x / pq : 0.0;
    auto value = [&](std::int32_t p) { return direction[p]; };
    double2 sums = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        const double d = direction[p];
        solution[p] =
            static_cast<float>(first ? alpha * d : double(solution[p]) + alpha * d);
        const float q =
            weighted_laplacian_at(value, right_weight, lower_weight, row, col, s);
        const float r = static_cast<float>(double(residual[p]) - alpha * double(q));
        residual[p] = r;
        transformed[reordered_index(row, col, s)] = r;
        sums.x += double(r) * double(r);
    }
    store_block_reduction(sums, partials, sum_pairs{});
}

/*!
 * Per block { sum cos, sum sin } of 2 pi / period * (wrapped - solution) over the
 * valid pixels, the solution read as Inputs::reordered_solution says.
 */
template <class Inputs>
__global__ void phase_difference_sum_kernel(Inputs in,
                                            frame_shape s,
                                            unwrap_period period,
                                            const float* __restrict__ solution,
                                            double2* __restrict__ partials)
{
    double2 sums = make_double2(0.0, 0.0);
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        if (!pixel_valid(in, p))
            continue;
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        const float phi =
            solution[Inputs::reordered_solution ? reordered_index(row, col, s) : p];
        // The turns reduced to [-1/2, 1/2] in float64 (no loss for solutions of many
        // periods), the sine and cosine in float32: float64 transcendentals would cost
        // as much as the pass's memory traffic, and float32 terms summed in float64 fix
        // the constant far below the float32 output's resolution.
        const double turns =
            (double(in.wrapped[p]) - double(phi)) * period.inverse_period;
        const float reduced = static_cast<float>(turns - rint(turns));
        float sine = 0.0f;
        float cosine = 0.0f;
        sincospif(2.0f * reduced, &sine, &cosine);
        sums.x += cosine;
        sums.y += sine;
    }
    store_block_reduction(sums, partials, sum_pairs{});
}

/*!
 * One block: the sum of \p count partial pairs in a fixed order, stored in
 * scalars[slot], or (store_circular_offset) turned into the constant c = period / 2pi *
 * arg(sum cos + i sum sin) stored in scalars[slot].x. The conjugate gradients run it
 * three times an iteration: it does nothing else (a maximum beside the sum in one
 * kernel made it and the weighted solve slower).
 */
__global__ void reduce_partials_kernel(const double2* __restrict__ partials,
                                       int count,
                                       reduction_finish finish,
                                       double period,
                                       double2* __restrict__ scalars,
                                       int slot)
{
    double2 sums = make_double2(0.0, 0.0);
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        sums = sum_pairs{}(sums, partials[i]);
    __shared__ typename pair_reduce::TempStorage storage;
    const double2 total = pair_reduce(storage).Reduce(sums, sum_pairs{});
    if (threadIdx.x != 0)
        return;
    if (finish == reduction_finish::store_sum)
        scalars[slot] = total;
    else
        scalars[slot] =
            make_double2(period * atan2(total.y, total.x) / (2.0 * CUDART_PI), 0.0);
}

//! One block: the largest components of \p count partial pairs, stored in
//! scalars[slot].
__global__ void reduce_largest_kernel(const double2* __restrict__ partials,
                                      int count,
                                      double2* __restrict__ scalars,
                                      int slot)
{
    double2 largest = make_double2(0.0, 0.0);
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        largest = max_pairs{}(largest, partials[i]);
    __shared__ typename pair_reduce::TempStorage storage;
    const double2 total = pair_reduce(storage).Reduce(largest, max_pairs{});
    if (threadIdx.x == 0)
        scalars[slot] = total;
}

/*!
 * The output: solution + c, and K = congruent_cycles(solution + c, wrapped); congruent:
 * unwrapped = apply_cycles(wrapped, K), else the float32 solution itself. NaN and
 * K = 0 at invalid pixels. Does nothing when \p abandoned is set (the unweighted solve
 * met a non-finite value; the weighted one will write the outputs). \p unwrapped may
 * alias in.wrapped: each pixel reads its input before it writes.
 */
template <class Inputs>
__global__ void output_kernel(Inputs in,
                              frame_shape s,
                              unwrap_period period,
                              bool congruent,
                              const float* __restrict__ solution,
                              const double2* __restrict__ scalars,
                              const int* __restrict__ abandoned,
                              float* unwrapped,
                              std::int32_t* __restrict__ cycles)
{
    if (abandoned && *abandoned)
        return;
    const double offset = scalars[slot_offset].x;
    for (std::int32_t p = blockIdx.x * blockDim.x + threadIdx.x; p < s.pixels;
         p += gridDim.x * blockDim.x) {
        if (!pixel_valid(in, p)) {
            unwrapped[p] = CUDART_NAN_F;
            if (cycles)
                cycles[p] = 0;
            continue;
        }
        const std::int32_t row = p / s.width;
        const std::int32_t col = p - row * s.width;
        const float x = in.wrapped[p];
        const double phi =
            double(
                solution[Inputs::reordered_solution ? reordered_index(row, col, s) : p]) +
            offset;
        const std::int32_t k = congruent_cycles(phi, x, period);
        unwrapped[p] = congruent ? apply_cycles(x, k, period) : static_cast<float>(phi);
        if (cycles)
            cycles[p] = k;
    }
}

} // namespace
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_LEAST_SQUARES_UNWRAP_KERNELS_CUH */
