/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/polarimetric_cuda.h"
#include "polarimetric/polarimetric_gate.h"
#include "runtime/cuda_check.h"
#include "runtime/grid_size.h"
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int threads_per_block = 256;
//! Input bytes per pipelined chunk when the configuration leaves it to the engine.
constexpr std::size_t default_chunk_bytes = std::size_t(32) << 20;

struct product_pointers {
    float* product[polarimetric_product_count];
};

/*!
 * Pulse n of one gate in a pulse-major radial: a warp's threads read consecutive
 * gates of the same pulse (coalesced); a filter's second pass re-reads them from L2.
 */
template <bool ReadsV>
struct strided_pulses {
    const float2* h;
    const float2* v;
    unsigned int ngates;

    CUDADSP_HOST_DEVICE void
    operator()(unsigned int n, float& h_re, float& h_im, float& v_re, float& v_im) const
    {
        const std::size_t at = std::size_t(n) * ngates;
#ifdef __CUDA_ARCH__
        const float2 hs = __ldg(h + at);
        const float2 vs = ReadsV ? __ldg(v + at) : float2{};
#else
        const float2 hs = h[at];
        const float2 vs = ReadsV ? v[at] : float2{};
#endif
        h_re = hs.x;
        h_im = hs.y;
        v_re = vs.x;
        v_im = vs.y;
    }
};

/*!
 * One thread per (radial, gate), threads numbered radial-major so that a warp covers
 * consecutive gates; each runs process_gate() (the CPU backend's rule) on its gate.
 * h and v hold pulse-major radials: sample (radial r, pulse n, gate g) at
 * (r * pulses + n) * ngates + g. v is not read in alternating mode. The filter's tables
 * (filter.basis, ...) are device memory.
 */
template <polarimetric_mode Mode, clutter_filter_kind Kind>
__global__ void __launch_bounds__(threads_per_block)
    polarimetric_products_kernel(const float2* __restrict__ h,
                                 const float2* __restrict__ v,
                                 std::size_t nradials,
                                 unsigned int ngates,
                                 unsigned int pulses,
                                 product_pointers out,
                                 product_constants constants,
                                 clutter_filter_constants filter)
{
    constexpr bool reads_v = Mode == polarimetric_mode::simultaneous;
    const std::size_t cell = std::size_t(blockIdx.x) * threads_per_block + threadIdx.x;
    if (cell >= nradials * ngates)
        return;
    const std::size_t radial = cell / ngates;
    const unsigned int gate = static_cast<unsigned int>(cell - radial * ngates);
    const strided_pulses<reads_v> gate_pulses{ h + radial * pulses * ngates + gate,
                                               v + radial * pulses * ngates + gate,
                                               ngates };
    const gate_products products =
        process_gate<Mode, Kind>(gate_pulses, pulses, filter, constants, gate);
#pragma unroll
    for (int p = 0; p < polarimetric_product_count; ++p)
        out.product[p][cell] = products.value[p];
}

template <polarimetric_mode Mode>
void launch_products_kernel(unsigned int blocks,
                            cudaStream_t stream,
                            const float2* h,
                            const float2* v,
                            std::size_t nradials,
                            unsigned int ngates,
                            unsigned int pulses,
                            const product_pointers& out,
                            const product_constants& constants,
                            const clutter_filter_constants& filter)
{
    switch (filter.kind) {
    case clutter_filter_kind::regression:
        polarimetric_products_kernel<Mode, clutter_filter_kind::regression>
            <<<blocks, threads_per_block, 0, stream>>>(
                h, v, nradials, ngates, pulses, out, constants, filter);
        break;
    case clutter_filter_kind::gmap:
        polarimetric_products_kernel<Mode, clutter_filter_kind::gmap>
            <<<blocks, threads_per_block, 0, stream>>>(
                h, v, nradials, ngates, pulses, out, constants, filter);
        break;
    default:
        polarimetric_products_kernel<Mode, clutter_filter_kind::none>
            <<<blocks, threads_per_block, 0, stream>>>(
                h, v, nradials, ngates, pulses, out, constants, filter);
    }
}

//! A device copy of \p table (empty: no allocation).
device_buffer<double> upload(const std::vector<double>& table)
{
    device_buffer<double> d(table.size());
    if (!table.empty())
        CUDADSP_CUDA(cudaMemcpy(d.get(),
                                table.data(),
                                table.size() * sizeof(double),
                                cudaMemcpyHostToDevice));
    return d;
}

std::size_t chunk_radials_for(const polarimetric_config& config)
{
    if (config.chunk_radials > 0)
        return config.chunk_radials;
    const std::size_t radial_bytes =
        config.samples_per_radial() * sizeof(float2) *
        (config.mode == polarimetric_mode::simultaneous ? 2 : 1);
    return std::max<std::size_t>(1, default_chunk_bytes / radial_bytes);
}

} // namespace

polarimetric_processor_cuda::polarimetric_processor_cuda(
    const polarimetric_config& config, const device_selection& device)
    : polarimetric_processor(config, device), d_filter_tables(config)
{
    device_guard guard(d_device.cuda_ordinal);
    d_stream = std::make_unique<cuda_stream>();
    d_basis = upload(d_filter_tables.basis);
    d_window = upload(d_filter_tables.window);
    d_analysis = upload(d_filter_tables.analysis);
    d_synthesis = upload(d_filter_tables.synthesis);
    const std::size_t radial_bytes = config.samples_per_radial() * sizeof(float2);
    std::vector<std::size_t> inputs{ radial_bytes };
    if (uses_cross_polar_input())
        inputs.push_back(radial_bytes);
    d_pipeline = std::make_unique<host_pipeline>(
        chunk_radials_for(config),
        inputs,
        std::vector<std::size_t>(polarimetric_product_count,
                                 config.ngates * sizeof(float)));
}

polarimetric_processor_cuda::~polarimetric_processor_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_pipeline.reset();
        d_stream.reset();
        d_basis = device_buffer<double>();
        d_window = device_buffer<double>();
        d_analysis = device_buffer<double>();
        d_synthesis = device_buffer<double>();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

void polarimetric_processor_cuda::enqueue(
    const std::complex<float>* d_h,
    const std::complex<float>* d_v,
    std::size_t nradials,
    float* const d_products[polarimetric_product_count],
    cudaStream_t stream)
{
    product_pointers out;
    for (int p = 0; p < polarimetric_product_count; ++p)
        out.product[p] = d_products[p];
    const product_constants constants = make_product_constants(d_config);
    const std::size_t cells = nradials * d_config.ngates;
    const unsigned int blocks = blocks_for(cells, threads_per_block);
    const auto* h = reinterpret_cast<const float2*>(d_h);
    const auto* v = reinterpret_cast<const float2*>(d_v);
    const auto ngates = static_cast<unsigned int>(d_config.ngates);
    const auto pulses = static_cast<unsigned int>(d_config.pulses_per_radial);
    const clutter_filter_constants filter =
        d_filter_tables.for_call(d_config.calibration.noise_h,
                                 d_basis.get(),
                                 d_window.get(),
                                 d_analysis.get(),
                                 d_synthesis.get());
    if (d_config.mode == polarimetric_mode::alternating)
        launch_products_kernel<polarimetric_mode::alternating>(
            blocks, stream, h, v, nradials, ngates, pulses, out, constants, filter);
    else
        launch_products_kernel<polarimetric_mode::simultaneous>(
            blocks, stream, h, v, nradials, ngates, pulses, out, constants, filter);
    CUDADSP_CUDA_LAUNCHED("polarimetric_products_kernel");
}

void polarimetric_processor_cuda::process(
    const std::complex<float>* h,
    const std::complex<float>* v,
    std::size_t nradials,
    float* const products[polarimetric_product_count])
{
    if (nradials == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    const void* const host_in[] = { h, v };
    void* const* host_out = reinterpret_cast<void* const*>(products);
    d_pipeline->run(
        host_in,
        host_out,
        nradials,
        d_stream->get(),
        [&](const void* const* d_in,
            void* const* d_out,
            std::size_t radials,
            cudaStream_t s) {
            const auto* d_h = static_cast<const std::complex<float>*>(d_in[0]);
            const auto* d_v = uses_cross_polar_input()
                                  ? static_cast<const std::complex<float>*>(d_in[1])
                                  : nullptr;
            enqueue(d_h, d_v, radials, reinterpret_cast<float* const*>(d_out), s);
        });
}

void polarimetric_processor_cuda::process_device(
    const std::complex<float>* d_h,
    const std::complex<float>* d_v,
    std::size_t nradials,
    float* const d_products[polarimetric_product_count],
    cuda_stream_t stream)
{
    if (nradials == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    enqueue(d_h, d_v, nradials, d_products, stream ? stream : d_stream->get());
    d_last_stream = stream ? stream : d_stream->get();
}

void polarimetric_processor_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_last_stream ? d_last_stream : d_stream->get()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
