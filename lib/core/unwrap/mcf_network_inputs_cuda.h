/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_CUDA_H
#define INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_CUDA_H

#include "unwrap/mcf_network_inputs.h"
#include <cstddef>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * mcf_network_inputs on a GPU, for the CUDA backend's tile solvers: validity, the
 * phase moments and phasors, the box sums, both estimates of the expected gradients,
 * the filter along them, the cost model of every difference and the residues and
 * supplies of every loop, one kernel a pixel, difference or loop, with
 * mcf_unwrap_rule.h's arithmetic (docs/design/mcf_unwrapping.md, "What runs where").
 * Each stage owns a stream and one frame's device buffers, so the tile solvers'
 * stages run at once on their own workers.
 */
class mcf_network_inputs_cuda : public mcf_network_inputs_stage
{
public:
    //! Frames of \p config (validated, method mcf) on the GPU of \p cuda_ordinal.
    mcf_network_inputs_cuda(const phase_unwrap_2d_config& config, int cuda_ordinal);
    ~mcf_network_inputs_cuda() override;

    //! Device bytes of one stage for frames of \p config.
    static std::size_t device_bytes(const phase_unwrap_2d_config& config);
    //! Pinned host bytes of one stage at most: the staging of pageable inputs and
    //! outputs.
    static std::size_t host_bytes(const phase_unwrap_2d_config& config);

    mcf_input_counts compute(const unwrap_2d_buffers& host,
                             const mcf_network_inputs& out) override;

private:
    struct workspace;
    /*! Box sums over the gradient window of the steps in \p direction (the filtered
     *  phasors' products, or with \p unit_steps the wrapped steps' unit phasors) and
     *  of the pairs, into the window-sum planes. */
    void sum_window_steps(int direction, bool unit_steps);
    //! The expected gradients of both directions from the filtered phasors' steps.
    void estimate_expected_gradients();
    //! Box sums over (2 \p half_window + 1)^2: 2 planes, the phasors into the
    //! filtered phasors; 3, the steps into the window sums.
    void box_sums(int planes, int half_window);

    const phase_unwrap_2d_config d_config;
    const int d_cuda_ordinal;
    std::unique_ptr<workspace> d_ws;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_CUDA_H */
