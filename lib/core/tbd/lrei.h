/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_LREI_H
#define INCLUDED_CUDADSP_CORE_LREI_H

// LREI (local random extraction and insertion) search over the order of the
// multiply-accumulate lines of a generated kernel, after Mazurek 2012, Sect. 4.3-4.5
// (P. Mazurek, "Code reordering using local random extraction and insertion (LREI)
// operator for GPGPU-based track-before-detect systems", Springer, open access, 2012).
// Pure host code: the caller supplies the metric (compile and time the kernel for one
// line order).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief What the starting order is sorted by, for one MAC line of the generated kernel.
 *
 * A line reads P[plane](x + small_offset_x, y + small_offset_y) (bilinear) and adds it,
 * weighted, to its hypothesis' accumulator; this is the paper's eq. (4)-(5)
 * "tex2D(texImage, x + SmallOffsetX, y + SmallOffsetY + MotionVectorOffset)".
 *
 * - small_offset_x, small_offset_y: the signed read offset of the line in pixels,
 *   fractional part included (for a transition that moves mass by (dx, dy) the read is
 *   at (x - dx, y - dy), so these are -dx and -dy). Must be finite.
 * - plane: the motion plane the line reads, i.e. the source hypothesis of the
 *   transition (the paper's MotionVectorOffset = plane * OFFSET). Reads of one plane are
 *   close in memory; different planes are a whole plane apart, which is why plane sorts
 *   last.
 */
struct lrei_line_key {
    float small_offset_y = 0.0f;
    float small_offset_x = 0.0f;
    int plane = 0;
};

/*!
 * \brief The LREI starting point: line indices sorted by (small_offset_y,
 * small_offset_x, plane), increasing, ties kept in index order (stable).
 *
 * This is the paper's eq. (8), SORT(increasing order): {SmallOffsetY, SmallOffsetX,
 * OFFSET}; local address distance first, the distant plane offset last. Returns a
 * permutation of 0..keys.size()-1: element i is the line emitted at position i.
 * Throws std::invalid_argument naming the key (e.g. "keys[3].small_offset_x must be
 * finite") for NaN or infinite offsets.
 */
std::vector<std::size_t> lrei_sorted_order(const std::vector<lrei_line_key>& keys);

//! True when \p order holds each of 0..order.size()-1 exactly once.
bool lrei_is_permutation(const std::vector<std::size_t>& order);

/*!
 * \brief A random source that gives the same sequence on every platform and standard
 * library (splitmix64, Steele, Lea and Flood 2014), so one seed reproduces a search
 * everywhere. Integers are mapped by our own unbiased rule, not by the standard
 * library's distributions, whose outputs differ between implementations.
 */
class lrei_rng
{
public:
    explicit lrei_rng(std::uint64_t seed) : d_state(seed) {}

    //! The next 64 random bits: splitmix64 with increment 0x9e3779b97f4a7c15.
    std::uint64_t next();

    /*!
     * Uniform on {0, ..., k-1}, exactly: draws of next() below 2^64 mod k are rejected
     * and redrawn, the first one kept is reduced mod k. Throws std::invalid_argument for
     * k == 0.
     */
    std::uint64_t below(std::uint64_t k);

private:
    std::uint64_t d_state;
};

/*!
 * \brief One LREI move: the run of \p length lines starting at \p position of the
 * order is extracted and reinserted so that its first line lands at position +
 * \p offset of the child (paper Sect. 4.5, Fig. 5). The lines the run jumps over shift
 * by \p length the other way; every other line keeps its position.
 */
struct lrei_move {
    std::size_t position = 0; //!< first line of the extracted run, 0-based
    std::size_t length = 1;   //!< 1..5 (RNG2)
    int offset = 1;           //!< -5..-1 or 1..5 (RNG3)
};

/*!
 * \brief Draws a move for an order of \p n >= 2 lines (std::invalid_argument
 * otherwise).
 *
 * The distribution (paper eq. (6) and (7); the paper names the triangular shape of
 * RNG3 but not its slope, this is the discrete triangle peaking next to 0):
 *
 * - length L uniform on {1, 2, 3, 4, 5};
 * - offset d on {-5..-1, 1..5} with P(d) = (6 - |d|) / 30, independent of L
 *   (|d| = 1: 5/30, |d| = 2: 4/30, ..., |d| = 5: 1/30; 0 is excluded as the paper does,
 *   since it would not move anything);
 * - position p uniform over the positions where that run fits at both ends:
 *   max(0, -d) <= p <= n - L - max(0, d).
 *
 * Near the ends the move is never clamped: the position is drawn among the positions
 * where (L, d) fits, so every drawn move changes the order by exactly the drawn shift.
 * A pair (L, d) fits somewhere when L + |d| <= n; this holds for every pair once
 * n >= 10, so there L and d have exactly the distributions above. For 2 <= n < 10 the
 * pair is redrawn (both values) until it fits: (L, d) then follow the distribution
 * above conditioned on L + |d| <= n.
 *
 * Draw sequence (fixed, so a seed reproduces a search): L = 1 + rng.below(5); d from
 * u = rng.below(30) by the cumulative weights 1, 2, 3, 4, 5, 5, 4, 3, 2, 1 of
 * d = -5, ..., -1, 1, ..., 5; redraw both while L + |d| > n; then
 * p = lo + rng.below(hi - lo + 1).
 */
lrei_move lrei_draw_move(std::size_t n, lrei_rng& rng);

/*!
 * \brief The child of \p order under \p move (a permutation of the same elements).
 * Throws std::invalid_argument when the move does not fit (length 0, offset 0, or the
 * run before or after the move reaching outside the order).
 */
std::vector<std::size_t> lrei_apply(const std::vector<std::size_t>& order,
                                    const lrei_move& move);

//! Kernel time of one order in milliseconds (lower is better).
using lrei_metric = std::function<double(const std::vector<std::size_t>&)>;

//! Bounds of a search: it ends at whichever is reached first.
struct lrei_budget {
    //! Children evaluated, at most; >= 1.
    std::size_t max_iterations = 1000;
    /*! No new child is started once this many seconds (steady clock, from the call,
     *  the start order's measurement included) have passed; > 0, may be infinity. The
     *  search can therefore overrun by one metric evaluation. */
    double max_seconds = 60.0;
    //! Longest gap between progress reports, seconds; > 0.
    double progress_interval_s = 5.0;
};

//! What a progress report carries.
struct lrei_progress {
    std::size_t iteration = 0; //!< children evaluated so far
    std::size_t max_iterations = 0;
    double elapsed_s = 0.0;
    double best_ms = 0.0;     //!< metric of the current parent
    double start_ms = 0.0;    //!< metric of the start order
    std::size_t accepted = 0; //!< children that became the parent
    bool finished = false;    //!< true on the last report only
};

using lrei_progress_callback = std::function<void(const lrei_progress&)>;

//! What a search found.
struct lrei_result {
    std::vector<std::size_t>
        order;                  //!< the best order (the start order if none was faster)
    double best_ms = 0.0;       //!< its metric, <= start_ms
    double start_ms = 0.0;      //!< metric of the start order
    std::size_t iterations = 0; //!< children evaluated
    std::size_t accepted = 0;   //!< children kept
    double elapsed_s = 0.0;
    bool stopped_by_time =
        false; //!< true when max_seconds ended it before max_iterations
};

//! Seed used when the caller has no reason to choose another (the paper's year).
constexpr std::uint64_t lrei_default_seed = 2012;

/*!
 * \brief Single-parent, single-child local search with the LREI operator (paper
 * Sect. 4.5).
 *
 * Measures \p start_order once, then per iteration draws a move (lrei_draw_move with
 * an lrei_rng seeded with \p seed), measures the child and makes it the parent when its
 * metric is strictly lower. The result is therefore never worse than the start as
 * measured. Orders of fewer than 2 lines have no moves: the start is measured and
 * returned with 0 iterations.
 *
 * \p metric is called from the calling thread, once per evaluated order; a
 * non-finite or negative value for a child rejects that child, for the start order it
 * throws std::runtime_error. Exceptions from \p metric propagate.
 *
 * \p progress (may be empty) is called after the start is measured (iteration 0),
 * then after the iteration that completes each further tenth of max_iterations or when
 * progress_interval_s has passed since the last report, and finally once with
 * finished = true.
 *
 * Throws std::invalid_argument when \p start_order is not a permutation of
 * 0..n-1, \p metric is empty, or the budget is out of range.
 */
lrei_result lrei_search(const std::vector<std::size_t>& start_order,
                        const lrei_metric& metric,
                        const lrei_budget& budget,
                        const lrei_progress_callback& progress = {},
                        std::uint64_t seed = lrei_default_seed);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_LREI_H */
