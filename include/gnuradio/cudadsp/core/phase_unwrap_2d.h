/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*! MCF method, tile_size 0: a frame whose longer side exceeds this is split into
 *  that side / this tiles along it (rounded up), each just long enough to share
 *  tile_overlap with its neighbours (docs/design/mcf_unwrapping.md, "Tiles"). */
constexpr std::size_t mcf_automatic_tile_size = 512;

//! How a two-dimensional field is unwrapped.
enum class unwrap_2d_method {
    //! Reliability-guided path following (Herraez et al. 2002, as scikit-image).
    reliability,
    //! (Weighted) least squares (Ghiglia and Romero 1994): DCT Poisson solve, and
    //! preconditioned conjugate gradients when weights or masks are given.
    least_squares,
    /*! Minimum-cost flow (Costantini 1998) with statistical costs after Chen and
     *  Zebker's smooth model (2001, 2002): the whole periods of every difference
     *  are the integer flow of least total -log-likelihood that cancels every
     *  residue. docs/design/mcf_unwrapping.md. */
    mcf,
};

/*! "reliability", "least_squares" or "mcf"; throws std::invalid_argument naming
 *  \p parameter and the accepted names otherwise. */
CUDADSP_CORE_API unwrap_2d_method
parse_unwrap_2d_method(const std::string& name, const std::string& parameter = "method");
CUDADSP_CORE_API std::string to_string(unwrap_2d_method method);

/*! How the MCF method finds its minimum-cost flow. Both are exact: their flows have
 *  the same, least, total cost (ties may be broken differently). */
enum class unwrap_2d_mcf_solver {
    /*! Successive shortest paths with node potentials (primal-dual; Ahuja, Magnanti
     *  and Orlin 1993, Network Flows, ch. 9): each unit of residue goes to the
     *  nearest opposite one along a shortest path of the residual network, found by
     *  Dijkstra's algorithm on the frame's grid itself. Residues come in close pairs
     *  in interferograms, so most searches stay local: the fast default. */
    shortest_paths,
    //! LEMON's network simplex on a general graph of the same network: the reference.
    network_simplex,
};

/*! "shortest_paths" or "network_simplex"; throws std::invalid_argument naming
 *  \p parameter and the accepted names otherwise. */
CUDADSP_CORE_API unwrap_2d_mcf_solver parse_unwrap_2d_mcf_solver(
    const std::string& name, const std::string& parameter = "mcf_solver");
CUDADSP_CORE_API std::string to_string(unwrap_2d_mcf_solver solver);

/*!
 * \brief Configuration of a two-dimensional phase unwrapper.
 */
struct CUDADSP_CORE_API phase_unwrap_2d_config {
    //! Columns of a frame (fastest-varying index; frames are row-major).
    std::size_t width = 0;
    //! Rows of a frame.
    std::size_t height = 0;
    unwrap_2d_method method = unwrap_2d_method::reliability;
    /*! Period of the wrapped quantity (2*pi for radians, 360 for degrees, 1 for cycles),
     *  1e-30 to 1e30: float32 samples resolve no phase of a period outside. */
    double period = 6.283185307179586476925286766559;
    //! Reliability method: column 0 and column width-1 are neighbours.
    bool wrap_around_x = false;
    //! Reliability method: row 0 and row height-1 are neighbours.
    bool wrap_around_y = false;
    /*! Reliability method: side of the window whose mean phase gradient decides the
     *  whole periods across each edge (odd, 1 to 15). 1: the edge's own two pixels, as
     *  Herraez et al. and scikit-image; larger windows decide fewer edges wrongly in
     *  noise (guided_edge_cycles() in phase_unwrap_2d_rule.h; accuracy in
     *  docs/blocks/phase_unwrap_2d_ff.md). MCF method: side of the filter and of the
     *  window whose mean filtered phase gradient is each difference's expected value
     *  in its cost (1: the difference itself, which makes every cost's minimum the
     *  wrapped difference). */
    std::size_t gradient_window = 7;
    /*! MCF method: looks (independent samples) averaged into each pixel of the
     *  interferogram, 1 to 1000; with the coherence it sets the spread of the phase
     *  noise (mcf_phase_moment() in mcf_unwrap_rule.h). */
    std::size_t looks = 1;
    /*! MCF method: side of the square tiles the frame is solved in, independently
     *  and in parallel (one tile per worker thread at a time), then joined through
     *  their overlaps (docs/design/mcf_unwrapping.md, "Tiles"). 0: automatic, whole
     *  frames up to mcf_automatic_tile_size on their longer side, tiles of about that
     *  size beyond. Otherwise 64 to 32768; a side not longer than tile_size is not
     *  split. */
    std::size_t tile_size = 0;
    /*! MCF method: pixels that neighbouring tiles share, at least (16 to
     *  tile_size / 2, or to mcf_automatic_tile_size / 2 with tile_size 0; validated
     *  whatever the method). Each tile keeps the pixels of its half of the overlap,
     *  away from its border where its solution knows least of the frame beyond, and
     *  the overlap's pixels vote on the whole periods between the tiles' solutions.
     *  64 lost up to 0.012 of the right-cycle fraction at coherence 0.5, 128 none
     *  (docs/design/mcf_unwrapping.md, "Tiles"). */
    std::size_t tile_overlap = 128;
    /*! MCF method: the minimum-cost-flow solver (docs/design/mcf_unwrapping.md,
     *  "Solver"): successive shortest paths (the default, several times faster) or
     *  LEMON's network simplex, whose optimum it equals. */
    unwrap_2d_mcf_solver mcf_solver = unwrap_2d_mcf_solver::shortest_paths;
    /*! Least squares: give the wrapped input plus the whole number of periods nearest
     *  to the least-squares solution ("congruent" output, integer cycles exact where
     *  the solution is within half a period of the truth). false: the smooth
     *  least-squares solution itself, shifted to the wrapped input (see below). */
    bool congruent = true;
    //! Weighted least squares: most conjugate-gradient iterations per frame.
    std::size_t max_iterations = 100;
    //! Weighted least squares: stop when the residual's norm has fallen by this factor.
    double tolerance = 1e-5;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";

    //! Pixels of one frame.
    std::size_t pixels() const { return width * height; }
    //! MCF method: tile_size, with 0 resolved to the automatic choice for this frame
    //! (the frame's longer side when it is one tile). Call after validate().
    std::size_t mcf_tile_size() const;
    //! Throws std::invalid_argument naming the offending field and the rule it broke.
    void validate() const;
};

/*!
 * Buffers of one frame, width*height elements each, row-major. Host pointers for
 * phase_unwrapper_2d::unwrap(), device pointers for unwrap_device().
 */
struct CUDADSP_CORE_API unwrap_2d_buffers {
    //! Required: the wrapped phase.
    const float* wrapped = nullptr;
    //! Required: the unwrapped phase (NaN at pixels that are not valid). May alias
    //! wrapped.
    float* unwrapped = nullptr;
    /*! Optional (nullptr: every weight is 1): quality weight, e.g. coherence in [0, 1].
     *  A pixel with a weight that is not finite or not > 0 is not valid. The least
     *  squares method weights each difference by the smaller of its two pixels'
     *  squared weights, each relative to the frame's largest valid weight (weights
     *  times any positive constant give the same frame); the reliability method only
     *  uses it to invalidate pixels. The MCF method takes it as the coherence (values
     *  above 1 count as 1): the lower, the cheaper a cut across the pixel. */
    const float* weight = nullptr;
    //! Optional (nullptr: every pixel): nonzero where the pixel is valid.
    const std::uint8_t* mask = nullptr;
    /*! Optional output: K in unwrapped = wrapped + period * K (0 where not valid). With
     *  least squares and congruent == false, K = round((unwrapped - wrapped) / period).
     */
    std::int32_t* cycles = nullptr;
    /*! Optional output, reliability and MCF methods: connected component of each
     *  pixel, 1..C numbered in the row-major order of each component's first pixel; 0
     *  where not valid. */
    std::int32_t* components = nullptr;
};

//! What one frame's unwrapping found.
struct CUDADSP_CORE_API unwrap_2d_report {
    //! Valid pixels: mask nonzero, weight finite and > 0, wrapped phase finite.
    std::size_t valid_pixels = 0;
    //! Reliability and MCF methods: connected components of the valid pixels
    //! (4-neighbour).
    std::size_t components = 0;
    //! Least squares: conjugate-gradient iterations (0 for the direct DCT solve).
    std::size_t iterations = 0;
    /*! Least squares: final residual norm over the initial one (0 for the direct
     *  solve, which is exact up to rounding). */
    double relative_residual = 0.0;
    /*! MCF: charged loops (2 x 2 loops of pixels whose wrapped differences do not
     *  sum to zero; loops touching an invalid pixel included). */
    std::size_t residues = 0;
    /*! MCF: units of flow the solver moved, each one period added to or taken from
     *  one difference beyond the whole periods nearest its expected gradient. */
    std::size_t flow = 0;
};

/*!
 * \brief Two-dimensional phase unwrapper engine, one frame at a time.
 *
 * A pixel is valid when its mask is nonzero, its weight is finite and > 0 and its
 * wrapped phase is finite (each only where given). Invalid pixels take no part and
 * give NaN, K = 0 and component 0.
 *
 * **Reliability method.** The reliability of a valid pixel comes from the second
 * differences of its wrapped neighbours (phase_unwrap_2d_rule.h states them); each
 * edge between two 4-neighbour valid pixels has the sum of its pixels' values as key,
 * lower first, ties by edge index. Joining the pixels' groups edge by edge in that
 * order, with the whole number of periods between them, is Kruskal's algorithm: the
 * joins form the minimum spanning forest under that order, which is unique. K along
 * every forest edge follows the one-dimensional rule of phase_unwrap.h between its
 * two pixels, and each component's constant is fixed so that its first pixel in
 * row-major order has K = 0. The CPU (sequential Kruskal) and CUDA (parallel
 * Boruvka) backends build the same forest and give bit-identical outputs.
 *
 * **Least squares.** Minimises sum over neighbour pairs of w * (difference of the
 * solution - wrapped difference of the input)^2 with the wrapped difference reduced
 * to [-period/2, period/2). Unweighted (no weight, no mask, all finite): one DCT
 * Poisson solve. Otherwise conjugate gradients preconditioned by that solve. The
 * solution's free constant is chosen so that its circular mean difference to the
 * wrapped input is zero; then the output is congruent or smooth as configured.
 *
 * **Minimum-cost flow (MCF).** Each 2 x 2 loop of pixels is a node whose supply is
 * minus its residue (the sum of its wrapped differences in periods); the frame's
 * outside is one more node, the earth, so that residues can leave through the edge.
 * Each difference between 4-neighbours is an arc pair between the two loops it
 * separates, and a flow of k across it adds k periods to it. The cost of k is the
 * negative log-likelihood of the unwrapped difference, a Gaussian whose variance
 * follows the two pixels' coherence and looks (mcf_unwrap_rule.h), around the
 * expected gradient: the mean over the gradient_window of the gradients of the phase
 * filtered around each pixel (coherence-weighted phasors, the filter turned along a
 * first estimate of the gradient so that ramps do not cancel). Beyond one period from
 * its least-cost value a difference's cost grows linearly. Differences touching an
 * invalid pixel cost nothing; a masked area is one node whose supply is the
 * circulation of the valid differences around it. The minimum-cost flow (the
 * configured mcf_solver: successive shortest paths, or LEMON's network simplex) makes
 * the differences curl-free; K is their sum along a breadth-first
 * spanning tree of each component of valid pixels from its first pixel in row-major
 * order, where K = 0. Frames larger than tile_size are solved in overlapping tiles, one
 * network each, on the host's threads at once; each pixel takes its K from the tile whose
 * core (the tile less half the overlap at each seam) holds it, and each connected
 * region of a tile takes the constant that the most overlap pixels agree on with
 * its neighbours' (a maximum spanning forest of those votes). That joins constants
 * only: a cut a tile made towards its own border stays, which overlaps wide enough
 * make rare (docs/design/mcf_unwrapping.md, "Tiles"). report.residues and .flow
 * then sum the tiles', overlaps counted once per tile. The CUDA backend computes each
 * tile's validity, costs, residues and supplies on the GPU and solves its flow and
 * integrates it on the host, each tile on its own thread (device frames are staged
 * through host memory).
 */
class CUDADSP_CORE_API phase_unwrapper_2d
{
public:
    /*! Validates \p config (std::invalid_argument), selects the backend, and checks
     *  that the memory of its workspace is available before allocating it
     *  (std::runtime_error naming the frame, the bytes needed and the bytes available;
     *  the bytes a pixel of each method and backend: docs/blocks/phase_unwrap_2d_ff.md,
     *  "Memory"). */
    static std::unique_ptr<phase_unwrapper_2d> make(const phase_unwrap_2d_config& config);
    virtual ~phase_unwrapper_2d();

    /*! Unwraps one frame between host buffers. Throws std::invalid_argument naming
     *  the buffer when a required one is null or components is asked of least squares. */
    unwrap_2d_report unwrap(const unwrap_2d_buffers& host);

    /*! CUDA backend only: one frame in device memory, work ordered on \p stream
     *  (nullptr: the engine's own stream); returns when the frame is finished.
     *  Throws std::logic_error on the CPU backend. */
    unwrap_2d_report unwrap_device(const unwrap_2d_buffers& device,
                                   cuda_stream_t stream = nullptr);

    const phase_unwrap_2d_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    phase_unwrapper_2d(const phase_unwrap_2d_config& config,
                       const device_selection& device);
    virtual unwrap_2d_report unwrap_host(const unwrap_2d_buffers& host) = 0;
    virtual unwrap_2d_report unwrap_on_device(const unwrap_2d_buffers& device,
                                              cuda_stream_t stream) = 0;
    const phase_unwrap_2d_config d_config;
    const device_selection d_device;

private:
    void check_buffers(const unwrap_2d_buffers& buffers) const;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_2D_H */
