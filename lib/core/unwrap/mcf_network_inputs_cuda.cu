/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The passes of mcf_unwrap_cpu before its flow network, one thread a pixel,
// difference or loop, in the host's order: every kernel reads only arrays that
// earlier kernels of the stream finished and writes only its own thread's elements
// (the two counters excepted, by atomics). The per-element arithmetic is
// mcf_unwrap_rule.h's, shared with the host passes.

#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/grid_size.h"
#include "runtime/staged_device_array.h"
#include "unwrap/mcf_network_inputs_cuda.h"
#include "unwrap/mcf_unwrap_rule.h"
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr unsigned int block_threads = 256;

//! The counters compute() returns, summed on the device.
struct input_counters {
    unsigned long long valid_pixels;
    unsigned long long residues;
};

//! Adds the number of this warp's threads for which \p flag holds to \p counter,
//! one atomic a warp. Every thread of the warp must call it.
__device__ void count_in_warp(bool flag, unsigned long long* counter)
{
    const unsigned int votes = __ballot_sync(0xffffffffu, flag);
    if ((threadIdx.x & 31u) == 0 && votes != 0)
        atomicAdd(counter, static_cast<unsigned long long>(__popc(votes)));
}

//! Up to three planes of one frame that a box sum reads and writes together.
struct plane_set {
    const float* in[3];
    float* out[3];
    int count;
};

__global__ void __launch_bounds__(block_threads)
    pixels_kernel(const float* wrapped,
                  const float* weight,
                  const std::uint8_t* mask,
                  const double* moment_table,
                  unsigned int pixels,
                  unwrap_period p,
                  std::uint8_t* valid,
                  float* moment,
                  float* phasor_re,
                  float* phasor_im,
                  unsigned long long* valid_pixels)
{
    const unsigned int i = blockIdx.x * block_threads + threadIdx.x;
    const bool is_valid = i < pixels && unwrap_2d_pixel_valid(wrapped, weight, mask, i);
    count_in_warp(is_valid, valid_pixels);
    if (i >= pixels)
        return;
    const double m = !is_valid           ? 0.0
                     : weight != nullptr ? mcf_tabulated_moment(moment_table, weight[i])
                                         : 1.0;
    const mcf_phasor phasor = is_valid
                                  ? mcf_polar(m, double(wrapped[i]) * p.inverse_period)
                                  : mcf_phasor{ 0.0f, 0.0f };
    valid[i] = is_valid ? 1 : 0;
    moment[i] = static_cast<float>(m);
    phasor_re[i] = phasor.re;
    phasor_im[i] = phasor.im;
}

//! Sums along each row over [col - half, col + half], clipped, in the host's order.
__global__ void __launch_bounds__(block_threads)
    box_rows_kernel(plane_set planes, int half, int width, int height)
{
    const unsigned int i = blockIdx.x * block_threads + threadIdx.x;
    if (i >= unsigned(width) * unsigned(height))
        return;
    const int col = int(i % unsigned(width));
    const std::size_t row_start = i - unsigned(col);
    const int c0 = max(0, col - half), c1 = min(width - 1, col + half);
    for (int k = 0; k < planes.count; ++k) {
        float sum = 0.0f;
        for (int c = c0; c <= c1; ++c)
            sum += planes.in[k][row_start + c];
        planes.out[k][i] = sum;
    }
}

//! Sums of the row sums down each column over [row - half, row + half], clipped.
__global__ void __launch_bounds__(block_threads)
    box_columns_kernel(plane_set planes, int half, int width, int height)
{
    const unsigned int i = blockIdx.x * block_threads + threadIdx.x;
    if (i >= unsigned(width) * unsigned(height))
        return;
    const int row = int(i / unsigned(width)), col = int(i % unsigned(width));
    const int r0 = max(0, row - half), r1 = min(height - 1, row + half);
    for (int k = 0; k < planes.count; ++k) {
        float sum = 0.0f;
        for (int r = r0; r <= r1; ++r)
            sum += planes.in[k][std::size_t(r) * width + col];
        planes.out[k][i] = sum;
    }
}

/*! The step from each pixel to its neighbour in \p direction over pairs of valid
 *  pixels: the filtered phasors' product, or with \p unit_steps the unit phasor of the
 *  wrapped step; and 1 in \p pair for a pair. */
__global__ void __launch_bounds__(block_threads)
    window_steps_kernel(const float* wrapped,
                        const std::uint8_t* valid,
                        const float* filtered_re,
                        const float* filtered_im,
                        int direction,
                        bool unit_steps,
                        unwrap_period p,
                        int width,
                        int height,
                        float* step_re,
                        float* step_im,
                        float* pair)
{
    const unsigned int a = blockIdx.x * block_threads + threadIdx.x;
    if (a >= unsigned(width) * unsigned(height))
        return;
    const int row = int(a / unsigned(width)), col = int(a % unsigned(width));
    std::int32_t b = 0;
    const bool is_pair =
        unwrap_2d_neighbour(
            row, col, direction, 1 - direction, { width, height, false, false }, &b) &&
        valid[a] && valid[b];
    mcf_phasor step{ 0.0f, 0.0f };
    if (is_pair && unit_steps)
        step = mcf_polar(1.0,
                         wrap_difference(double(wrapped[b]) - double(wrapped[a]), p) *
                             p.inverse_period);
    else if (is_pair)
        step = mcf_filtered_step({ filtered_re[a], filtered_im[a] },
                                 { filtered_re[b], filtered_im[b] });
    step_re[a] = step.re;
    step_im[a] = step.im;
    pair[a] = is_pair ? 1.0f : 0.0f;
}

//! The expected gradient of every difference in \p direction (0 where not a pair).
__global__ void __launch_bounds__(block_threads)
    expected_gradients_kernel(const float* wrapped,
                              const float* pair,
                              const float* sum_re,
                              const float* sum_im,
                              int direction,
                              unwrap_period p,
                              int width,
                              int height,
                              float* offset)
{
    const unsigned int a = blockIdx.x * block_threads + threadIdx.x;
    if (a >= unsigned(width) * unsigned(height))
        return;
    const std::uint32_t edge = unwrap_2d_edge_index(std::int32_t(a), direction);
    if (pair[a] == 0.0f) {
        offset[edge] = 0.0f;
        return;
    }
    const unsigned int b = direction == 0 ? a + 1 : a + unsigned(width);
    offset[edge] = mcf_expected_gradient(
        sum_re[a],
        sum_im[a],
        wrap_difference(double(wrapped[b]) - double(wrapped[a]), p) * p.inverse_period);
}

__global__ void __launch_bounds__(block_threads) filter_kernel(const std::uint8_t* valid,
                                                               const float* offset,
                                                               const float* phasor_re,
                                                               const float* phasor_im,
                                                               int half,
                                                               int width,
                                                               int height,
                                                               float* filtered_re,
                                                               float* filtered_im)
{
    const unsigned int a = blockIdx.x * block_threads + threadIdx.x;
    if (a >= unsigned(width) * unsigned(height))
        return;
    const mcf_phasor sum =
        valid[a] ? mcf_filter_along_gradients(phasor_re,
                                              phasor_im,
                                              int(a / unsigned(width)),
                                              int(a % unsigned(width)),
                                              width,
                                              height,
                                              half,
                                              offset[unwrap_2d_edge_index(a, 0)],
                                              offset[unwrap_2d_edge_index(a, 1)])
                 : mcf_phasor{ 0.0f, 0.0f };
    filtered_re[a] = sum.re;
    filtered_im[a] = sum.im;
}

/*! The cost model of every difference in \p direction, around its expected gradient
 *  (in \p offset on entry): the product of the two pixels' moments or, with no
 *  coherence, the length of the window's mean unit step (\p sums: re, im, pairs). */
__global__ void __launch_bounds__(block_threads) costs_kernel(const float* wrapped,
                                                              const std::uint8_t* valid,
                                                              const float* moment,
                                                              plane_set sums,
                                                              bool moment_of_window,
                                                              int direction,
                                                              unwrap_period p,
                                                              int width,
                                                              int height,
                                                              std::int32_t* base_cycles,
                                                              float* offset,
                                                              float* curvature)
{
    const unsigned int a = blockIdx.x * block_threads + threadIdx.x;
    const unsigned int pixels = unsigned(width) * unsigned(height);
    if (a >= pixels)
        return;
    const std::uint32_t edge = unwrap_2d_edge_index(std::int32_t(a), direction);
    const unsigned int b = direction == 0 ? a + 1 : a + unsigned(width);
    const bool pair =
        (direction == 0 ? a % unsigned(width) + 1 < unsigned(width) : b < pixels) &&
        valid[a] && valid[b];
    if (!pair) {
        base_cycles[edge] = 0;
        offset[edge] = 0.0f;
        curvature[edge] = 0.0f;
        return;
    }
    const double wrapped_periods =
        wrap_difference(double(wrapped[b]) - double(wrapped[a]), p) * p.inverse_period;
    double m = double(moment[a]) * double(moment[b]);
    if (moment_of_window)
        m = mcf_window_moment(sums.in[0][a], sums.in[1][a], sums.in[2][a]);
    const mcf_difference_cost cost =
        mcf_cost_of(wrapped_periods, double(offset[edge]), mcf_difference_variance(m));
    base_cycles[edge] = cost.base_cycles;
    offset[edge] = cost.offset;
    curvature[edge] = cost.curvature;
}

__global__ void __launch_bounds__(block_threads)
    loops_kernel(const float* wrapped,
                 const std::uint8_t* valid,
                 unwrap_period p,
                 int width,
                 int height,
                 double* loop_supply,
                 unsigned long long* residues)
{
    const unsigned int loop = blockIdx.x * block_threads + threadIdx.x;
    const unsigned int loops = unsigned(width - 1) * unsigned(height - 1);
    mcf_loop_balance balance{ 0, 0.0 };
    if (loop < loops) {
        const unsigned int row = loop / unsigned(width - 1);
        const unsigned int col = loop % unsigned(width - 1);
        balance = mcf_loop_supply(
            wrapped, valid, std::size_t(row) * unsigned(width) + col, unsigned(width), p);
        loop_supply[loop] = balance.supply;
    }
    count_in_warp(balance.residue != 0, residues);
}

} // namespace

/*!
 * One frame's device buffers (device_bytes() counts them) and the host side of the
 * copies: the inputs and outputs are staged_device_arrays (their pinned staging is
 * used only for pageable host buffers).
 */
struct mcf_network_inputs_cuda::workspace {
    workspace(std::size_t pixels, std::size_t loops, const std::vector<double>& table)
        : moment_table(table.size()),
          moment(pixels),
          planes(13 * pixels),
          counters(1),
          host_counters(1),
          loops(loops)
    {
        CUDADSP_CUDA(cudaMemcpyAsync(moment_table.get(),
                                     table.data(),
                                     moment_table.bytes(),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        stream.synchronize();
    }

    //! Plane \p k of the thirteen float planes: the phasors (0, 1), the filtered
    //! phasors (2, 3), one direction's steps (4 to 6), row sums (7 to 9) and
    //! window sums (10 to 12).
    float* plane(int k) const { return planes.get() + std::size_t(k) * moment.size(); }

    cuda_stream stream;
    staged_device_array<float> wrapped, weight;
    staged_device_array<std::uint8_t> mask, valid;
    staged_device_array<std::int32_t> base_cycles;
    staged_device_array<float> offset, curvature;
    staged_device_array<double> loop_supply;
    device_buffer<double> moment_table;
    device_buffer<float> moment;
    device_buffer<float> planes;
    device_buffer<input_counters> counters;
    pinned_buffer<input_counters> host_counters;
    const std::size_t loops;
};

mcf_network_inputs_cuda::mcf_network_inputs_cuda(const phase_unwrap_2d_config& config,
                                                 int cuda_ordinal)
    : d_config(config), d_cuda_ordinal(cuda_ordinal)
{
    device_guard guard(d_cuda_ordinal);
    d_ws = std::make_unique<workspace>(config.pixels(),
                                       (config.width - 1) * (config.height - 1),
                                       mcf_moment_table(config.looks));
}

mcf_network_inputs_cuda::~mcf_network_inputs_cuda()
{
    try {
        device_guard guard(d_cuda_ordinal);
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::size_t mcf_network_inputs_cuda::device_bytes(const phase_unwrap_2d_config& config)
{
    // Inputs (wrapped, weight, mask), validity, moment, thirteen float planes, the
    // cost model of two differences and one loop's supply a pixel.
    const std::size_t per_pixel =
        2 * sizeof(float) + 2 * sizeof(std::uint8_t) + 14 * sizeof(float) +
        2 * (sizeof(std::int32_t) + 2 * sizeof(float)) + sizeof(double);
    return config.pixels() * per_pixel + mcf_moment_table_size * sizeof(double) +
           sizeof(input_counters);
}

std::size_t mcf_network_inputs_cuda::host_bytes(const phase_unwrap_2d_config& config)
{
    // Wrapped, weight and mask in; validity, the cost model of two differences and
    // one loop's supply out.
    const std::size_t per_pixel =
        sizeof(float) + sizeof(float) + sizeof(std::uint8_t) + sizeof(std::uint8_t) +
        2 * (sizeof(std::int32_t) + 2 * sizeof(float)) + sizeof(double);
    return config.pixels() * per_pixel;
}

void mcf_network_inputs_cuda::box_sums(int planes, int half_window)
{
    // planes: 2 for the phasors into the filtered phasors, 3 for the steps into the
    // window sums.
    workspace& ws = *d_ws;
    const int width = int(d_config.width), height = int(d_config.height);
    const bool phasors = planes == 2;
    plane_set rows{}, columns{};
    rows.count = columns.count = planes;
    for (int k = 0; k < planes; ++k) {
        rows.in[k] = ws.plane(phasors ? k : 4 + k);
        rows.out[k] = ws.plane(7 + k);
        columns.in[k] = ws.plane(7 + k);
        columns.out[k] = ws.plane(phasors ? 2 + k : 10 + k);
    }
    const unsigned int blocks = blocks_for(d_config.pixels(), block_threads);
    box_rows_kernel<<<blocks, block_threads, 0, ws.stream.get()>>>(
        rows, half_window, width, height);
    CUDADSP_CUDA_LAUNCHED("box_rows_kernel");
    box_columns_kernel<<<blocks, block_threads, 0, ws.stream.get()>>>(
        columns, half_window, width, height);
    CUDADSP_CUDA_LAUNCHED("box_columns_kernel");
}

void mcf_network_inputs_cuda::sum_window_steps(int direction, bool unit_steps)
{
    workspace& ws = *d_ws;
    window_steps_kernel<<<blocks_for(d_config.pixels(), block_threads),
                          block_threads,
                          0,
                          ws.stream.get()>>>(ws.wrapped.device.get(),
                                             ws.valid.device.get(),
                                             ws.plane(2),
                                             ws.plane(3),
                                             direction,
                                             unit_steps,
                                             make_unwrap_period(d_config.period),
                                             int(d_config.width),
                                             int(d_config.height),
                                             ws.plane(4),
                                             ws.plane(5),
                                             ws.plane(6));
    CUDADSP_CUDA_LAUNCHED("window_steps_kernel");
    box_sums(3, int(d_config.gradient_window / 2));
}

void mcf_network_inputs_cuda::estimate_expected_gradients()
{
    workspace& ws = *d_ws;
    for (int direction = 0; direction < 2; ++direction) {
        sum_window_steps(direction, false);
        expected_gradients_kernel<<<blocks_for(d_config.pixels(), block_threads),
                                    block_threads,
                                    0,
                                    ws.stream.get()>>>(
            ws.wrapped.device.get(),
            ws.plane(6),
            ws.plane(10),
            ws.plane(11),
            direction,
            make_unwrap_period(d_config.period),
            int(d_config.width),
            int(d_config.height),
            ws.offset.device.get());
        CUDADSP_CUDA_LAUNCHED("expected_gradients_kernel");
    }
}

mcf_input_counts mcf_network_inputs_cuda::compute(const unwrap_2d_buffers& host,
                                                  const mcf_network_inputs& out)
{
    device_guard guard(d_cuda_ordinal);
    workspace& ws = *d_ws;
    const cudaStream_t stream = ws.stream.get();
    const std::size_t n = d_config.pixels();
    const int width = int(d_config.width), height = int(d_config.height);
    const unwrap_period p = make_unwrap_period(d_config.period);
    const unsigned int blocks = blocks_for(n, block_threads);

    const float* wrapped = ws.wrapped.upload(host.wrapped, n, stream);
    const float* weight =
        host.weight != nullptr ? ws.weight.upload(host.weight, n, stream) : nullptr;
    const std::uint8_t* mask =
        host.mask != nullptr ? ws.mask.upload(host.mask, n, stream) : nullptr;
    std::uint8_t* valid = ws.valid.device_copy(n);
    std::int32_t* base_cycles = ws.base_cycles.device_copy(2 * n);
    float* offset = ws.offset.device_copy(2 * n);
    float* curvature = ws.curvature.device_copy(2 * n);
    // A frame one pixel wide or high has no loops.
    double* loop_supply = ws.loops > 0 ? ws.loop_supply.device_copy(ws.loops) : nullptr;
    CUDADSP_CUDA(cudaMemsetAsync(ws.counters.get(), 0, sizeof(input_counters), stream));

    pixels_kernel<<<blocks, block_threads, 0, stream>>>(wrapped,
                                                        weight,
                                                        mask,
                                                        ws.moment_table.get(),
                                                        unsigned(n),
                                                        p,
                                                        valid,
                                                        ws.moment.get(),
                                                        ws.plane(0),
                                                        ws.plane(1),
                                                        &ws.counters.get()->valid_pixels);
    CUDADSP_CUDA_LAUNCHED("pixels_kernel");
    // First gradients from a 3 x 3 box of the phasors, then the final ones from the
    // filter along them (mcf_unwrap_cpu::estimate_difference_costs() says why).
    box_sums(2, std::min(1, int(d_config.gradient_window / 2)));
    estimate_expected_gradients();
    filter_kernel<<<blocks, block_threads, 0, stream>>>(valid,
                                                        offset,
                                                        ws.plane(0),
                                                        ws.plane(1),
                                                        int(d_config.gradient_window / 2),
                                                        width,
                                                        height,
                                                        ws.plane(2),
                                                        ws.plane(3));
    CUDADSP_CUDA_LAUNCHED("filter_kernel");
    estimate_expected_gradients();

    for (int direction = 0; direction < 2; ++direction) {
        const bool moment_of_window = host.weight == nullptr;
        if (moment_of_window)
            sum_window_steps(direction, true);
        const plane_set sums{ { ws.plane(10), ws.plane(11), ws.plane(12) }, {}, 3 };
        costs_kernel<<<blocks, block_threads, 0, stream>>>(wrapped,
                                                           valid,
                                                           ws.moment.get(),
                                                           sums,
                                                           moment_of_window,
                                                           direction,
                                                           p,
                                                           width,
                                                           height,
                                                           base_cycles,
                                                           offset,
                                                           curvature);
        CUDADSP_CUDA_LAUNCHED("costs_kernel");
    }
    if (ws.loops > 0) {
        loops_kernel<<<blocks_for(ws.loops, block_threads), block_threads, 0, stream>>>(
            wrapped, valid, p, width, height, loop_supply, &ws.counters.get()->residues);
        CUDADSP_CUDA_LAUNCHED("loops_kernel");
    }

    CUDADSP_CUDA(cudaMemcpyAsync(ws.host_counters.get(),
                                 ws.counters.get(),
                                 sizeof(input_counters),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    ws.valid.start_download(out.valid, n, stream);
    ws.base_cycles.start_download(out.base_cycles, 2 * n, stream);
    ws.offset.start_download(out.offset, 2 * n, stream);
    ws.curvature.start_download(out.curvature, 2 * n, stream);
    if (ws.loops > 0)
        ws.loop_supply.start_download(out.loop_supply, ws.loops, stream);
    ws.stream.synchronize();
    ws.valid.finish_download(out.valid, n);
    ws.base_cycles.finish_download(out.base_cycles, 2 * n);
    ws.offset.finish_download(out.offset, 2 * n);
    ws.curvature.finish_download(out.curvature, 2 * n);
    if (ws.loops > 0)
        ws.loop_supply.finish_download(out.loop_supply, ws.loops);

    mcf_input_counts counts;
    counts.valid_pixels = static_cast<std::size_t>(ws.host_counters.get()->valid_pixels);
    counts.residues = static_cast<std::size_t>(ws.host_counters.get()->residues);
    return counts;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
