/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CPU_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CPU_H

#include "runtime/memory_budget.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

class mcf_tiled_unwrap;

/*!
 * CPU backend, single-threaded; the reference behaviour of the CUDA backend.
 *
 * Reliability: the edges sorted by (key, edge index) with a stable radix sort, then
 * Kruskal's algorithm on a union-find whose every node carries its whole periods
 * relative to its parent. Each tree's root is kept at its first pixel in row-major
 * order, so a pixel's offset to its root is already its K.
 *
 * Least squares: FFTW single-precision DCTs (planned once, in the constructor) for the
 * Poisson solve; preconditioned conjugate gradients in float32 arrays with float64
 * dot products for the weighted case.
 *
 * MCF: mcf_tiled_unwrap over mcf_unwrap_cpu (their own files: tiles, the network,
 * the integration) and its solver (mcf_shortest_paths or mcf_network_simplex).
 */
class phase_unwrapper_2d_cpu : public phase_unwrapper_2d
{
public:
    phase_unwrapper_2d_cpu(const phase_unwrap_2d_config& config,
                           const device_selection& device);
    ~phase_unwrapper_2d_cpu() override;

    //! The host memory the workspace of \p config's method takes (allocated at once).
    static memory_need memory_needed(const phase_unwrap_2d_config& config);

    struct reliability_workspace;   //!< validity, keys, sorted edges, union-find
    struct least_squares_workspace; //!< FFTW plans and the solver's arrays

protected:
    unwrap_2d_report unwrap_host(const unwrap_2d_buffers& host) override;
    unwrap_2d_report unwrap_on_device(const unwrap_2d_buffers& device,
                                      cuda_stream_t stream) override;

private:
    unwrap_2d_report unwrap_reliability(const unwrap_2d_buffers& host);
    unwrap_2d_report unwrap_least_squares(const unwrap_2d_buffers& host);

    // Only the configured method's workspace exists.
    std::unique_ptr<reliability_workspace> d_reliability;
    std::unique_ptr<least_squares_workspace> d_least_squares;
    std::unique_ptr<mcf_tiled_unwrap> d_mcf;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_CPU_H */
