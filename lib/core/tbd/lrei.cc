/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "tbd/lrei.h"
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

std::vector<std::size_t> lrei_sorted_order(const std::vector<lrei_line_key>& keys)
{
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!std::isfinite(keys[i].small_offset_y))
            throw std::invalid_argument("keys[" + std::to_string(i) +
                                        "].small_offset_y must be finite");
        if (!std::isfinite(keys[i].small_offset_x))
            throw std::invalid_argument("keys[" + std::to_string(i) +
                                        "].small_offset_x must be finite");
    }
    std::vector<std::size_t> order(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&keys](std::size_t a, std::size_t b) {
        const lrei_line_key& ka = keys[a];
        const lrei_line_key& kb = keys[b];
        if (ka.small_offset_y != kb.small_offset_y)
            return ka.small_offset_y < kb.small_offset_y;
        if (ka.small_offset_x != kb.small_offset_x)
            return ka.small_offset_x < kb.small_offset_x;
        return ka.plane < kb.plane;
    });
    return order;
}

bool lrei_is_permutation(const std::vector<std::size_t>& order)
{
    std::vector<bool> seen(order.size(), false);
    for (const std::size_t v : order) {
        if (v >= order.size() || seen[v])
            return false;
        seen[v] = true;
    }
    return true;
}

std::uint64_t lrei_rng::next()
{
    std::uint64_t z = (d_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

std::uint64_t lrei_rng::below(std::uint64_t k)
{
    if (k == 0)
        throw std::invalid_argument("lrei_rng::below: k must be >= 1, got 0");
    // (-k) % k is 2^64 mod k in unsigned arithmetic; rejecting the draws under it leaves
    // a multiple of k equally likely values, so the reduction mod k is exactly uniform.
    const std::uint64_t threshold = (0 - k) % k;
    for (;;) {
        const std::uint64_t x = next();
        if (x >= threshold)
            return x % k;
    }
}

namespace {

constexpr int max_run = 5;
constexpr int max_offset = 5;

// P(d) = (6 - |d|) / 30 for d = -5..-1, 1..5, as cumulative integer weights.
int draw_offset(lrei_rng& rng)
{
    static constexpr int offsets[10] = { -5, -4, -3, -2, -1, 1, 2, 3, 4, 5 };
    static constexpr int weights[10] = { 1, 2, 3, 4, 5, 5, 4, 3, 2, 1 };
    std::uint64_t u = rng.below(30);
    for (int i = 0; i < 10; ++i) {
        if (u < static_cast<std::uint64_t>(weights[i]))
            return offsets[i];
        u -= static_cast<std::uint64_t>(weights[i]);
    }
    return offsets[9]; // unreachable: the weights sum to 30
}

} // namespace

lrei_move lrei_draw_move(std::size_t n, lrei_rng& rng)
{
    if (n < 2)
        throw std::invalid_argument("n must be >= 2 for an LREI move, got " +
                                    std::to_string(n));
    lrei_move move;
    for (;;) {
        move.length = 1 + static_cast<std::size_t>(rng.below(max_run));
        move.offset = draw_offset(rng);
        const std::size_t shift = static_cast<std::size_t>(std::abs(move.offset));
        if (move.length + shift <= n)
            break;
    }
    const std::size_t lo = move.offset < 0 ? static_cast<std::size_t>(-move.offset) : 0;
    const std::size_t hi =
        n - move.length - (move.offset > 0 ? static_cast<std::size_t>(move.offset) : 0);
    move.position = lo + static_cast<std::size_t>(rng.below(hi - lo + 1));
    return move;
}

std::vector<std::size_t> lrei_apply(const std::vector<std::size_t>& order,
                                    const lrei_move& move)
{
    const std::size_t n = order.size();
    const std::string where =
        "lrei_apply: move (position " + std::to_string(move.position) + ", length " +
        std::to_string(move.length) + ", offset " + std::to_string(move.offset) +
        ") on " + std::to_string(n) + " lines: ";
    if (move.length == 0)
        throw std::invalid_argument(where + "length must be >= 1");
    if (move.offset == 0)
        throw std::invalid_argument(where + "offset must not be 0");
    if (move.position > n || move.length > n - move.position)
        throw std::invalid_argument(where + "the run reaches past the end");
    const std::size_t shift = static_cast<std::size_t>(std::abs(move.offset));
    if (move.offset < 0 ? shift > move.position : shift > n - move.position - move.length)
        throw std::invalid_argument(where + "the reinserted run reaches past the end");

    std::vector<std::size_t> child = order;
    const auto run_begin = child.begin() + static_cast<std::ptrdiff_t>(move.position);
    const auto run_end = run_begin + static_cast<std::ptrdiff_t>(move.length);
    // Moving the run by d is rotating it with the |d| lines it jumps over.
    if (move.offset > 0)
        std::rotate(run_begin, run_end, run_end + static_cast<std::ptrdiff_t>(shift));
    else
        std::rotate(run_begin - static_cast<std::ptrdiff_t>(shift), run_begin, run_end);
    return child;
}

lrei_result lrei_search(const std::vector<std::size_t>& start_order,
                        const lrei_metric& metric,
                        const lrei_budget& budget,
                        const lrei_progress_callback& progress,
                        std::uint64_t seed)
{
    if (!lrei_is_permutation(start_order))
        throw std::invalid_argument("start_order must be a permutation of 0..n-1 (n = " +
                                    std::to_string(start_order.size()) + ")");
    if (!metric)
        throw std::invalid_argument("metric must be callable");
    if (budget.max_iterations < 1)
        throw std::invalid_argument("budget.max_iterations must be >= 1, got 0");
    if (!(budget.max_seconds > 0.0))
        throw std::invalid_argument("budget.max_seconds must be > 0, got " +
                                    std::to_string(budget.max_seconds));
    if (!(budget.progress_interval_s > 0.0))
        throw std::invalid_argument("budget.progress_interval_s must be > 0, got " +
                                    std::to_string(budget.progress_interval_s));

    using clock = std::chrono::steady_clock;
    const clock::time_point t0 = clock::now();
    const auto elapsed = [t0] {
        return std::chrono::duration<double>(clock::now() - t0).count();
    };

    lrei_result result;
    result.order = start_order;
    result.start_ms = metric(start_order);
    if (!std::isfinite(result.start_ms) || result.start_ms < 0.0)
        throw std::runtime_error("lrei_search: the metric of the start order is " +
                                 std::to_string(result.start_ms) +
                                 " ms; it must be finite and >= 0");
    result.best_ms = result.start_ms;

    double last_report_s = elapsed();
    const auto report = [&](bool finished) {
        last_report_s = elapsed();
        if (!progress)
            return;
        lrei_progress p;
        p.iteration = result.iterations;
        p.max_iterations = budget.max_iterations;
        p.elapsed_s = last_report_s;
        p.best_ms = result.best_ms;
        p.start_ms = result.start_ms;
        p.accepted = result.accepted;
        p.finished = finished;
        progress(p);
    };
    report(false);

    const std::size_t n = start_order.size();
    if (n >= 2) {
        const std::size_t tenth = (budget.max_iterations + 9) / 10;
        std::size_t next_report_iteration = tenth;
        lrei_rng rng(seed);
        while (result.iterations < budget.max_iterations) {
            if (elapsed() >= budget.max_seconds) {
                result.stopped_by_time = true;
                break;
            }
            std::vector<std::size_t> child =
                lrei_apply(result.order, lrei_draw_move(n, rng));
            const double child_ms = metric(child);
            ++result.iterations;
            // Strictly faster only: an equal time is noise, and the parent stays (paper
            // Sect. 4.5: "New parent is established if the child is faster").
            if (std::isfinite(child_ms) && child_ms >= 0.0 && child_ms < result.best_ms) {
                result.order = std::move(child);
                result.best_ms = child_ms;
                ++result.accepted;
            }
            if (result.iterations >= next_report_iteration ||
                elapsed() - last_report_s >= budget.progress_interval_s) {
                while (next_report_iteration <= result.iterations)
                    next_report_iteration += tenth;
                if (result.iterations < budget.max_iterations)
                    report(false);
            }
        }
    }
    result.elapsed_s = elapsed();
    report(true);
    return result;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
