/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_H
#define INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_H

#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * What minimum-cost-flow unwrapping computes of a frame before its flow network is
 * built: every per-pixel, per-difference and per-loop value, each from the inputs and
 * the passes before it alone (docs/design/mcf_unwrapping.md, "What runs where").
 * Arrays of one frame of width x height pixels, owned by mcf_unwrap_cpu; differences
 * are indexed by unwrap_2d_edge_index(), loops as in mcf_difference_ends().
 */
struct mcf_network_inputs {
    //! Per pixel: unwrap_2d_pixel_valid().
    std::uint8_t* valid = nullptr;
    /*! Per difference (2 x pixels): the cost model of mcf_cost_of() (base_cycles,
     *  offset, curvature), all 0 for a difference that is not between two valid
     *  pixels. */
    std::int32_t* base_cycles = nullptr;
    float* offset = nullptr;
    float* curvature = nullptr;
    /*! Per loop ((width - 1) x (height - 1), the earth not included): minus its
     *  residue, or, for a loop touching an invalid pixel, minus the sum of its valid
     *  differences in periods (a fraction). The base periods are not in it yet. */
    double* loop_supply = nullptr;
};

//! Counts the passes make on the way.
struct mcf_input_counts {
    std::size_t valid_pixels = 0;
    std::size_t residues = 0; //!< loops with a nonzero mcf_loop_residue()
};

/*!
 * A way of computing mcf_network_inputs other than mcf_unwrap_cpu's own host passes
 * (which are the definition): mcf_network_inputs_cuda computes them on a GPU. The
 * values may differ from the host's in the last bits of the transcendental
 * functions, never in validity.
 */
class mcf_network_inputs_stage
{
public:
    virtual ~mcf_network_inputs_stage() = default;

    /*! Fills every element of \p out for the frame in host buffers \p host (wrapped,
     *  and weight and mask where not null) of the configuration the stage was made
     *  for. */
    virtual mcf_input_counts compute(const unwrap_2d_buffers& host,
                                     const mcf_network_inputs& out) = 0;
};

//! Makes a stage for frames (or tiles) of \p config; mcf_tiled_unwrap makes one per
//! tile solver.
using mcf_network_inputs_stage_factory =
    std::function<std::unique_ptr<mcf_network_inputs_stage>(
        const phase_unwrap_2d_config& config)>;

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MCF_NETWORK_INPUTS_H */
