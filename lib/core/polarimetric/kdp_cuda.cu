/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "polarimetric/kdp_cuda.h"
#include "polarimetric/kdp_rule.h"
#include "runtime/cuda_check.h"
#include "runtime/kernel_shared_memory.h"
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*! Threads per radial: the fits (2h + 1 gates each) are the bulk of the work; the
 *  sequential unfolding keeps one warp of the block busy meanwhile. */
constexpr int threads_per_block = 128;
//! Input bytes per pipelined chunk when the configuration leaves it to the engine.
constexpr std::size_t default_chunk_bytes = std::size_t(8) << 20;

/*!
 * Block r processes radial r: phidp, rhohv, snr_db, out_phidp and out_kdp hold
 * nradials * p.ngates floats, radial-major; rhohv and snr_db are read only when
 * p.use_rhohv / p.use_snr (else they may be null). Dynamic shared memory: p.ngates
 * doubles. Inputs and outputs must not overlap.
 */
__global__ void __launch_bounds__(threads_per_block)
    kdp_kernel(const float* __restrict__ phidp,
               const float* __restrict__ rhohv,
               const float* __restrict__ snr_db,
               kdp_rule_params p,
               float* __restrict__ out_phidp,
               float* __restrict__ out_kdp)
{
    extern __shared__ double unfolded[];
    const std::size_t base = std::size_t(blockIdx.x) * p.ngates;
    for (int g = threadIdx.x; g < p.ngates; g += threads_per_block)
        unfolded[g] = kdp_masked_phase(__ldg(phidp + base + g),
                                       p.use_rhohv ? __ldg(rhohv + base + g) : 0.0f,
                                       p.use_snr ? __ldg(snr_db + base + g) : 0.0f,
                                       p);
    __syncthreads();
    if (threadIdx.x == 0)
        kdp_unfold_radial(unfolded, p);
    __syncthreads();
    for (int g = threadIdx.x; g < p.ngates; g += threads_per_block) {
        const kdp_gate_result out = kdp_fit_gate(unfolded, g, p);
        out_phidp[base + g] = out.phidp_deg;
        out_kdp[base + g] = out.kdp_deg_km;
    }
}

std::size_t chunk_radials_for(const kdp_config& config)
{
    if (config.chunk_radials > 0)
        return config.chunk_radials;
    return std::max<std::size_t>(1,
                                 default_chunk_bytes / (config.ngates * sizeof(float)));
}

} // namespace

kdp_processor_cuda::kdp_processor_cuda(const kdp_config& config,
                                       const device_selection& device)
    : kdp_processor(config, device), d_shared_bytes(config.ngates * sizeof(double))
{
    device_guard guard(d_device.cuda_ordinal);
    const std::size_t allowed =
        allow_dynamic_shared_memory(reinterpret_cast<const void*>(kdp_kernel));
    if (d_shared_bytes > allowed)
        throw std::invalid_argument(
            "ngates: at most " + std::to_string(allowed / sizeof(double)) +
            " gates per radial on " + d_device.to_string() + " (a radial is held in " +
            "shared memory), got " + std::to_string(config.ngates));
    d_stream = std::make_unique<cuda_stream>();
}

kdp_processor_cuda::~kdp_processor_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        for (auto& pipeline : d_pipelines)
            pipeline.reset();
        d_stream.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

host_pipeline& kdp_processor_cuda::pipeline(bool use_rhohv, bool use_snr)
{
    std::unique_ptr<host_pipeline>& slot =
        d_pipelines[(use_rhohv ? 1 : 0) + (use_snr ? 2 : 0)];
    if (!slot) {
        const std::size_t radial_bytes = d_config.ngates * sizeof(float);
        const std::size_t inputs = 1 + (use_rhohv ? 1 : 0) + (use_snr ? 1 : 0);
        slot = std::make_unique<host_pipeline>(
            chunk_radials_for(d_config),
            std::vector<std::size_t>(inputs, radial_bytes),
            std::vector<std::size_t>(2, radial_bytes));
    }
    return *slot;
}

void kdp_processor_cuda::enqueue(const float* d_phidp_deg,
                                 const float* d_rhohv,
                                 const float* d_snr_db,
                                 std::size_t nradials,
                                 float* d_processed_phidp_deg,
                                 float* d_kdp_deg_km,
                                 cudaStream_t stream)
{
    const kdp_rule_params p =
        make_kdp_rule_params(d_config, d_rhohv != nullptr, d_snr_db != nullptr);
    // One launch covers at most the grid's x limit of radials.
    constexpr std::size_t max_blocks = 0x7fffffff;
    for (std::size_t first = 0; first < nradials; first += max_blocks) {
        const std::size_t radials = std::min(max_blocks, nradials - first);
        const std::size_t offset = first * d_config.ngates;
        kdp_kernel<<<static_cast<unsigned int>(radials),
                     threads_per_block,
                     d_shared_bytes,
                     stream>>>(d_phidp_deg + offset,
                               d_rhohv ? d_rhohv + offset : nullptr,
                               d_snr_db ? d_snr_db + offset : nullptr,
                               p,
                               d_processed_phidp_deg + offset,
                               d_kdp_deg_km + offset);
        CUDADSP_CUDA_LAUNCHED("kdp_kernel");
    }
}

void kdp_processor_cuda::process(const float* phidp_deg,
                                 const float* rhohv,
                                 const float* snr_db,
                                 std::size_t nradials,
                                 float* processed_phidp_deg,
                                 float* kdp_deg_km)
{
    if (nradials == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    const bool use_rhohv = rhohv != nullptr, use_snr = snr_db != nullptr;
    std::vector<const void*> host_in{ phidp_deg };
    if (use_rhohv)
        host_in.push_back(rhohv);
    if (use_snr)
        host_in.push_back(snr_db);
    void* const host_out[] = { processed_phidp_deg, kdp_deg_km };
    pipeline(use_rhohv, use_snr)
        .run(host_in.data(),
             host_out,
             nradials,
             d_stream->get(),
             [&](const void* const* d_in,
                 void* const* d_out,
                 std::size_t radials,
                 cudaStream_t s) {
                 std::size_t next = 1;
                 const auto* d_phidp = static_cast<const float*>(d_in[0]);
                 const auto* d_rhohv =
                     use_rhohv ? static_cast<const float*>(d_in[next++]) : nullptr;
                 const auto* d_snr =
                     use_snr ? static_cast<const float*>(d_in[next++]) : nullptr;
                 enqueue(d_phidp,
                         d_rhohv,
                         d_snr,
                         radials,
                         static_cast<float*>(d_out[0]),
                         static_cast<float*>(d_out[1]),
                         s);
             });
}

void kdp_processor_cuda::process_device(const float* d_phidp_deg,
                                        const float* d_rhohv,
                                        const float* d_snr_db,
                                        std::size_t nradials,
                                        float* d_processed_phidp_deg,
                                        float* d_kdp_deg_km,
                                        cuda_stream_t stream)
{
    if (nradials == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    const cudaStream_t s = stream ? stream : d_stream->get();
    enqueue(
        d_phidp_deg, d_rhohv, d_snr_db, nradials, d_processed_phidp_deg, d_kdp_deg_km, s);
    d_last_stream = s;
}

void kdp_processor_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_last_stream ? d_last_stream : d_stream->get()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
