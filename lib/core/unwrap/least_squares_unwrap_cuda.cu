/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Least-squares phase unwrapping (Ghiglia and Romero 1994) on the device.
//
// The Poisson solve with Neumann boundaries is diagonal in the 2-D DCT-II basis. The
// DCT comes from one real FFT of the frame's own size (Makhoul 1980): reorder each
// dimension as v[n] = x[2n], v[N-1-n] = x[2n+1]; then with V = FFT2(v) and the twiddles
// T_N(k) = exp(-i pi k / 2N),
//     X(k1, k2) = 2 Re{ T_H(k1) [T_W(k2) V(k1, k2) + conj(T_W(k2)) V(k1, -k2)] },
// and back, with X(N) = 0 outside the frame,
//     V(k1, k2) = 1/4 conj(T_H(k1) T_W(k2))
//                 [X(k1, k2) - i X(k1, W-k2) - i X(H-k1, k2) - X(H-k1, W-k2)].
// The four points (+-k1, +-k2) need only V(k1, k2) and V(H-k1, k2) of the R2C half
// spectrum (the others are their conjugates), and give back the same two values of the
// C2R input: one thread of the spectral kernel handles such a group, in place. The
// index arithmetic was prototyped in numpy against scipy.fft.dctn / idctn.

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/grid_size.h"
#include "unwrap/least_squares_unwrap_cuda.h"
#include "unwrap/least_squares_unwrap_kernels.cuh"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <cufft.h>
#include <math_constants.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! exp(-i pi k / 2n) for k in [0, n), computed in float64 and rounded.
std::vector<float2> dct_twiddles(std::int32_t n)
{
    std::vector<float2> t(static_cast<std::size_t>(n));
    for (std::int32_t k = 0; k < n; ++k) {
        const double angle = -M_PI * double(k) / (2.0 * double(n));
        t[k] = make_float2(static_cast<float>(std::cos(angle)),
                           static_cast<float>(std::sin(angle)));
    }
    return t;
}

/*! 2cos(pi k / n) - 2 for k in [0, n), as -4 sin^2(pi k / 2n): no cancellation for
 *  small k, where the eigenvalues decide the smooth part of the solution. */
std::vector<float> laplacian_eigenvalues(std::int32_t n)
{
    std::vector<float> e(static_cast<std::size_t>(n));
    for (std::int32_t k = 0; k < n; ++k) {
        const double s = std::sin(M_PI * double(k) / (2.0 * double(n)));
        e[k] = static_cast<float>(-4.0 * s * s);
    }
    return e;
}

//! Resident blocks of block_threads threads per multiprocessor for \p kernel.
template <typename Kernel>
int blocks_per_multiprocessor(Kernel kernel)
{
    int blocks = 0;
    CUDADSP_CUDA(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block_threads, 0));
    return std::max(blocks, 1);
}

//! Blocks of a grid-stride launch over \p items: one wave of \p resident at most.
unsigned int grid_blocks(std::size_t items, int resident)
{
    return std::clamp(
        blocks_for(items, block_threads), 1u, static_cast<unsigned int>(resident));
}

template <typename T>
device_buffer<T> upload(const std::vector<T>& host)
{
    device_buffer<T> d(host.size());
    CUDADSP_CUDA(cudaMemcpy(d.get(), host.data(), d.bytes(), cudaMemcpyHostToDevice));
    return d;
}

} // namespace

//! least_squares_unwrap_cuda::device_bytes() counts these buffers: it changes with them.
struct least_squares_unwrap_cuda::workspace {
    frame_shape frame;
    transform_shape transform;
    unwrap_period period;
    //! Blocks of the per-pixel kernels (grid-stride loops): resident blocks of the
    //! device, fewer for small frames; also the number of partial sums.
    unsigned int pixel_blocks;
    unsigned int group_blocks;

    //! No plans for a one-pixel frame, whose Poisson solution is 0.
    bool has_transforms;
    cufft_plan forward;
    cufft_plan inverse;
    device_buffer<unsigned char> transform_work_area;
    //! Reordered frame: the divergence (or residual) in, the solution out.
    device_buffer<float> transformed;
    device_buffer<float2> spectrum;
    device_buffer<float2> twiddle_rows;
    device_buffer<float2> twiddle_cols;
    device_buffer<float> eigen_rows;
    device_buffer<float> eigen_cols;

    device_buffer<double2> partials;
    device_buffer<double2> scalars;
    device_buffer<int> non_finite;
    pinned_buffer<double2> host_scalar;
    pinned_buffer<int> host_flag;

    // Weighted case (natural order).
    device_buffer<float> right_weight;
    device_buffer<float> lower_weight;
    device_buffer<float> residual;
    device_buffer<float> preconditioned;
    device_buffer<float> directions[2];
    device_buffer<float> solution;

    void set_stream(cudaStream_t stream) const
    {
        if (!has_transforms)
            return;
        forward.set_stream(stream);
        inverse.set_stream(stream);
    }

    //! Enqueue the sum of the last kernel's partials into scalars[slot].
    void reduce(cudaStream_t stream,
                int slot,
                reduction_finish finish = reduction_finish::store_sum) const
    {
        reduce_partials_kernel<<<1, block_threads, 0, stream>>>(partials.get(),
                                                                int(pixel_blocks),
                                                                finish,
                                                                period.period,
                                                                scalars.get(),
                                                                slot);
        CUDADSP_CUDA_LAUNCHED("reduce_partials_kernel");
    }

    /*! The finish both solves share: the circular offset c of \p solution against the
     *  wrapped phase (Reordered: \p solution is still in the transform's order), then
     *  the outputs from solution + c; \p abandoned as output_kernel's. */
    template <class Inputs>
    void enqueue_offset_and_output(const Inputs& in,
                                   bool congruent,
                                   const float* solution,
                                   const int* abandoned,
                                   const unwrap_2d_buffers& device,
                                   cudaStream_t stream) const
    {
        phase_difference_sum_kernel<Inputs><<<pixel_blocks, block_threads, 0, stream>>>(
            in, frame, period, solution, partials.get());
        CUDADSP_CUDA_LAUNCHED("phase_difference_sum_kernel");
        reduce(stream, slot_offset, reduction_finish::store_circular_offset);
        output_kernel<Inputs>
            <<<pixel_blocks, block_threads, 0, stream>>>(in,
                                                         frame,
                                                         period,
                                                         congruent,
                                                         solution,
                                                         scalars.get(),
                                                         abandoned,
                                                         device.unwrapped,
                                                         device.cycles);
        CUDADSP_CUDA_LAUNCHED("output_kernel");
    }

    //! Enqueue the largest weight of a valid pixel of \p in (which has weights) into
    //! scalars[slot_largest_weight], where in.largest_weight points.
    void enqueue_largest_valid_weight(const frame_inputs& in, cudaStream_t stream) const
    {
        largest_weight_kernel<<<pixel_blocks, block_threads, 0, stream>>>(
            in, frame, partials.get());
        CUDADSP_CUDA_LAUNCHED("largest_weight_kernel");
        reduce_largest_kernel<<<1, block_threads, 0, stream>>>(
            partials.get(), int(pixel_blocks), scalars.get(), slot_largest_weight);
        CUDADSP_CUDA_LAUNCHED("reduce_largest_kernel");
    }

    //! Copy scalars[slot] to the host; waits for the stream.
    double2 read_scalar(cudaStream_t stream, int slot) const
    {
        CUDADSP_CUDA(cudaMemcpyAsync(host_scalar.get(),
                                     scalars.get() + slot,
                                     sizeof(double2),
                                     cudaMemcpyDeviceToHost,
                                     stream));
        CUDADSP_CUDA(cudaStreamSynchronize(stream));
        return *host_scalar.get();
    }
};

least_squares_unwrap_cuda::least_squares_unwrap_cuda(const phase_unwrap_2d_config& config)
    : d_config(config), d_ws(std::make_unique<workspace>())
{
    workspace& ws = *d_ws;
    const auto width = static_cast<std::int32_t>(config.width);
    const auto height = static_cast<std::int32_t>(config.height);
    ws.frame = { width, height, width * height };
    ws.transform.rows = width == 1 ? 1 : height;
    ws.transform.cols = width == 1 ? height : width;
    ws.transform.half_cols = ws.transform.cols / 2 + 1;
    ws.period = make_unwrap_period(config.period);

    int device = 0;
    int multiprocessors = 0;
    CUDADSP_CUDA(cudaGetDevice(&device));
    CUDADSP_CUDA(
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    // Grid-stride kernels run one wave of resident blocks; the per-pixel kernels share
    // one grid (their partial sums go through one reduction), sized by the one with the
    // lowest occupancy.
    const int pixel_blocks_per_multiprocessor = std::min(
        { blocks_per_multiprocessor(divergence_kernel),
          blocks_per_multiprocessor(weighted_setup_kernel),
          blocks_per_multiprocessor(largest_weight_kernel),
          blocks_per_multiprocessor(preconditioned_residual_kernel),
          blocks_per_multiprocessor(search_direction_kernel),
          blocks_per_multiprocessor(solution_update_kernel),
          blocks_per_multiprocessor(phase_difference_sum_kernel<phase_only_inputs>),
          blocks_per_multiprocessor(phase_difference_sum_kernel<frame_inputs>),
          blocks_per_multiprocessor(output_kernel<phase_only_inputs>),
          blocks_per_multiprocessor(output_kernel<frame_inputs>) });
    ws.pixel_blocks =
        grid_blocks(config.pixels(), multiprocessors * pixel_blocks_per_multiprocessor);
    ws.group_blocks =
        grid_blocks(std::size_t(ws.transform.rows / 2 + 1) * ws.transform.half_cols,
                    multiprocessors * blocks_per_multiprocessor(poisson_spectrum_kernel));

    ws.has_transforms = config.pixels() > 1;
    if (ws.has_transforms) {
        // One row: a 1-D transform (cuFFT's 2-D plans want both sizes > 1).
        const int rank = ws.transform.rows == 1 ? 1 : 2;
        const int sizes[2] = { ws.transform.rows, ws.transform.cols };
        const int* n = rank == 1 ? sizes + 1 : sizes;
        ws.forward = cufft_plan(rank,
                                n,
                                nullptr,
                                1,
                                0,
                                nullptr,
                                1,
                                0,
                                CUFFT_R2C,
                                1,
                                cufft_plan::external_work_area{});
        ws.inverse = cufft_plan(rank,
                                n,
                                nullptr,
                                1,
                                0,
                                nullptr,
                                1,
                                0,
                                CUFFT_C2R,
                                1,
                                cufft_plan::external_work_area{});
        ws.transform_work_area = device_buffer<unsigned char>(std::max<std::size_t>(
            1, std::max(ws.forward.work_size(), ws.inverse.work_size())));
        ws.forward.set_work_area(ws.transform_work_area.get());
        ws.inverse.set_work_area(ws.transform_work_area.get());
    }
    const std::size_t pixels = config.pixels();
    ws.transformed = device_buffer<float>(pixels);
    // The transforms-only benchmark may run before any solve: give it finite data.
    CUDADSP_CUDA(cudaMemset(ws.transformed.get(), 0, ws.transformed.bytes()));
    ws.spectrum =
        device_buffer<float2>(std::size_t(ws.transform.rows) * ws.transform.half_cols);
    ws.twiddle_rows = upload(dct_twiddles(ws.transform.rows));
    ws.twiddle_cols = upload(dct_twiddles(ws.transform.cols));
    ws.eigen_rows = upload(laplacian_eigenvalues(ws.transform.rows));
    ws.eigen_cols = upload(laplacian_eigenvalues(ws.transform.cols));

    ws.partials = device_buffer<double2>(ws.pixel_blocks);
    ws.scalars = device_buffer<double2>(scalar_slot_count);
    ws.non_finite = device_buffer<int>(1);
    ws.host_scalar = pinned_buffer<double2>(1);
    ws.host_flag = pinned_buffer<int>(1);

    ws.right_weight = device_buffer<float>(pixels);
    ws.lower_weight = device_buffer<float>(pixels);
    ws.residual = device_buffer<float>(pixels);
    ws.preconditioned = device_buffer<float>(pixels);
    ws.directions[0] = device_buffer<float>(pixels);
    ws.directions[1] = device_buffer<float>(pixels);
    ws.solution = device_buffer<float>(pixels);
    CUDADSP_CUDA(cudaDeviceSynchronize());
}

least_squares_unwrap_cuda::~least_squares_unwrap_cuda() = default;

std::size_t least_squares_unwrap_cuda::device_bytes(const phase_unwrap_2d_config& config)
{
    // As the constructor shapes them: transformed and the seven weighted-case frames,
    // the half spectrum, the twiddles and eigenvalues of both transform dimensions.
    const std::size_t rows = config.width == 1 ? 1 : config.height;
    const std::size_t cols = config.width == 1 ? config.height : config.width;
    return config.pixels() * 8 * sizeof(float) + rows * (cols / 2 + 1) * sizeof(float2) +
           (rows + cols) * (sizeof(float2) + sizeof(float));
}

void least_squares_unwrap_cuda::enqueue_poisson_solve(cudaStream_t stream)
{
    workspace& ws = *d_ws;
    if (!ws.has_transforms) {
        CUDADSP_CUDA(
            cudaMemsetAsync(ws.transformed.get(), 0, ws.transformed.bytes(), stream));
        return;
    }
    CUDADSP_CUFFT(
        cufftExecR2C(ws.forward.get(), ws.transformed.get(), ws.spectrum.get()));
    const float scale =
        static_cast<float>(1.0 / (4.0 * double(ws.transform.rows) * ws.transform.cols));
    poisson_spectrum_kernel<<<ws.group_blocks, block_threads, 0, stream>>>(
        ws.spectrum.get(),
        ws.transform,
        ws.twiddle_rows.get(),
        ws.twiddle_cols.get(),
        ws.eigen_rows.get(),
        ws.eigen_cols.get(),
        scale);
    CUDADSP_CUDA_LAUNCHED("poisson_spectrum_kernel");
    CUDADSP_CUFFT(
        cufftExecC2R(ws.inverse.get(), ws.spectrum.get(), ws.transformed.get()));
}

void least_squares_unwrap_cuda::enqueue_transforms_only(cudaStream_t stream)
{
    workspace& ws = *d_ws;
    if (!ws.has_transforms)
        return;
    ws.set_stream(stream);
    CUDADSP_CUFFT(
        cufftExecR2C(ws.forward.get(), ws.transformed.get(), ws.spectrum.get()));
    CUDADSP_CUFFT(
        cufftExecC2R(ws.inverse.get(), ws.spectrum.get(), ws.transformed.get()));
}

bool least_squares_unwrap_cuda::solve_unweighted(const unwrap_2d_buffers& device,
                                                 cudaStream_t stream,
                                                 unwrap_2d_report& report)
{
    workspace& ws = *d_ws;
    const phase_only_inputs in{ device.wrapped };
    CUDADSP_CUDA(cudaMemsetAsync(ws.non_finite.get(), 0, sizeof(int), stream));
    divergence_kernel<<<ws.pixel_blocks, block_threads, 0, stream>>>(
        in, ws.frame, ws.period, ws.transformed.get(), ws.non_finite.get());
    CUDADSP_CUDA_LAUNCHED("divergence_kernel");
    enqueue_poisson_solve(stream);
    ws.enqueue_offset_and_output(in,
                                 d_config.congruent,
                                 ws.transformed.get(),
                                 ws.non_finite.get(),
                                 device,
                                 stream);
    CUDADSP_CUDA(cudaMemcpyAsync(ws.host_flag.get(),
                                 ws.non_finite.get(),
                                 sizeof(int),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    if (*ws.host_flag.get() != 0)
        return false;
    report = unwrap_2d_report{};
    report.valid_pixels = d_config.pixels();
    return true;
}

unwrap_2d_report
least_squares_unwrap_cuda::solve_weighted(const unwrap_2d_buffers& device,
                                          cudaStream_t stream)
{
    workspace& ws = *d_ws;
    const frame_inputs in{
        device.wrapped, device.weight, device.mask, ws.scalars.get() + slot_largest_weight
    };
    if (in.weight != nullptr)
        ws.enqueue_largest_valid_weight(in, stream);
    weighted_setup_kernel<<<ws.pixel_blocks, block_threads, 0, stream>>>(
        in,
        ws.frame,
        ws.period,
        ws.right_weight.get(),
        ws.lower_weight.get(),
        ws.residual.get(),
        ws.transformed.get(),
        ws.partials.get());
    CUDADSP_CUDA_LAUNCHED("weighted_setup_kernel");
    ws.reduce(stream, slot_setup);
    const double2 setup = ws.read_scalar(stream, slot_setup);

    unwrap_2d_report report;
    report.valid_pixels = static_cast<std::size_t>(setup.x);
    const double initial_norm = std::sqrt(setup.y);
    if (initial_norm == 0.0) {
        // Consistent differences (or none): the solution is constant, 0 before the
        // offset.
        CUDADSP_CUDA(cudaMemsetAsync(ws.solution.get(), 0, ws.solution.bytes(), stream));
    }
    for (std::size_t k = 0; initial_norm > 0.0 && k < d_config.max_iterations; ++k) {
        const bool first = k == 0;
        const int rz_slot = slot_rz + int(k % 2);
        const int rz_old_slot = slot_rz + int((k + 1) % 2);
        float* direction = ws.directions[k % 2].get();
        const float* previous_direction = ws.directions[(k + 1) % 2].get();

        enqueue_poisson_solve(stream);
        preconditioned_residual_kernel<<<ws.pixel_blocks, block_threads, 0, stream>>>(
            ws.frame,
            ws.transformed.get(),
            ws.residual.get(),
            ws.preconditioned.get(),
            ws.partials.get());
        CUDADSP_CUDA_LAUNCHED("preconditioned_residual_kernel");
        ws.reduce(stream, rz_slot);
        search_direction_kernel<<<ws.pixel_blocks, block_threads, 0, stream>>>(
            ws.frame,
            ws.preconditioned.get(),
            previous_direction,
            ws.right_weight.get(),
            ws.lower_weight.get(),
            ws.scalars.get(),
            rz_slot,
            rz_old_slot,
            first,
            direction,
            ws.partials.get());
        CUDADSP_CUDA_LAUNCHED("search_direction_kernel");
        ws.reduce(stream, slot_pq);
        solution_update_kernel<<<ws.pixel_blocks, block_threads, 0, stream>>>(
            ws.frame,
            direction,
            ws.right_weight.get(),
            ws.lower_weight.get(),
            ws.scalars.get(),
            rz_slot,
            first,
            ws.solution.get(),
            ws.residual.get(),
            ws.transformed.get(),
            ws.partials.get());
        CUDADSP_CUDA_LAUNCHED("solution_update_kernel");
        ws.reduce(stream, slot_rr);
        report.iterations = k + 1;
        report.relative_residual =
            std::sqrt(ws.read_scalar(stream, slot_rr).x) / initial_norm;
        if (report.relative_residual <= d_config.tolerance)
            break;
    }

    ws.enqueue_offset_and_output(
        in, d_config.congruent, ws.solution.get(), nullptr, device, stream);
    CUDADSP_CUDA(cudaStreamSynchronize(stream));
    return report;
}

unwrap_2d_report least_squares_unwrap_cuda::solve(const unwrap_2d_buffers& device,
                                                  cudaStream_t stream)
{
    d_ws->set_stream(stream);
    if (device.weight == nullptr && device.mask == nullptr) {
        unwrap_2d_report report;
        if (solve_unweighted(device, stream, report))
            return report;
    }
    return solve_weighted(device, stream);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
