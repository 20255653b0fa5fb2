/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_unwrap_2d_reference.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace gr {
namespace cudadsp {
namespace qa {

namespace {

const double two_pi = 6.283185307179586476925286766559;

//! d reduced to [-P/2, P/2), as documented: d - P * floor(d / P + 1/2).
double wrapped_difference(double d, double P) { return d - P * std::floor(d / P + 0.5); }

/*!
 * Whole periods K[b] - K[a] between consecutive samples a and b: the k with
 * |d + k P| <= P/2 of smallest |k| (numpy.unwrap's rule, a step of exactly P/2 kept).
 */
std::int64_t step_cycles(float a, float b, double P)
{
    const double d = double(b) - double(a);
    if (std::fabs(d) <= P / 2)
        return 0;
    const auto k = static_cast<std::int64_t>(std::ceil((std::fabs(d) - P / 2) / P));
    return d > 0 ? -k : k;
}

//! The pixel at (row + dr, col + dc), through the wrap-around edges where asked (any
//! offset: a window may reach further than one frame); false when it is off the frame.
bool neighbour(long row,
               long col,
               long dr,
               long dc,
               long width,
               long height,
               bool wrap_x,
               bool wrap_y,
               long* index)
{
    long r = row + dr;
    long c = col + dc;
    if (r < 0 || r >= height) {
        if (!wrap_y)
            return false;
        r = ((r % height) + height) % height;
    }
    if (c < 0 || c >= width) {
        if (!wrap_x)
            return false;
        c = ((c % width) + width) % width;
    }
    *index = r * width + c;
    return true;
}

//! A non-negative float32's bits, which order as the float does.
std::uint32_t float_bits(float f)
{
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

} // namespace

std::vector<std::uint8_t> reference_valid_pixels(const unwrap_2d_frame& frame)
{
    const std::size_t n = frame.width * frame.height;
    std::vector<std::uint8_t> valid(n);
    for (std::size_t i = 0; i < n; ++i) {
        bool ok = std::isfinite(frame.wrapped[i]);
        if (!frame.mask.empty() && frame.mask[i] == 0)
            ok = false;
        if (!frame.weight.empty() &&
            !(std::isfinite(frame.weight[i]) && frame.weight[i] > 0))
            ok = false;
        valid[i] = ok;
    }
    return valid;
}

namespace {

//! Reliability: the sum of the squared second differences along the row, the column
//! and both diagonals (in that order); +infinity unless all four terms have both
//! their neighbours, valid.
std::vector<float> pixel_reliability(const unwrap_2d_frame& frame,
                                     const std::vector<std::uint8_t>& valid,
                                     double period,
                                     bool wrap_x,
                                     bool wrap_y)
{
    const long W = static_cast<long>(frame.width);
    const long H = static_cast<long>(frame.height);
    const std::vector<float>& x = frame.wrapped;
    std::vector<float> reliability(W * H, std::numeric_limits<float>::infinity());
    const long directions[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 1, -1 } };
    for (long row = 0; row < H; ++row)
        for (long col = 0; col < W; ++col) {
            const long i = row * W + col;
            if (!valid[i])
                continue;
            double sum = 0.0;
            int terms = 0;
            for (const auto& dir : directions) {
                long before = 0, after = 0;
                if (!neighbour(
                        row, col, -dir[0], -dir[1], W, H, wrap_x, wrap_y, &before) ||
                    !neighbour(row, col, dir[0], dir[1], W, H, wrap_x, wrap_y, &after) ||
                    !valid[before] || !valid[after])
                    continue;
                const double second =
                    wrapped_difference(double(x[before]) - double(x[i]), period) -
                    wrapped_difference(double(x[i]) - double(x[after]), period);
                sum += second * second;
                ++terms;
            }
            if (terms == 4)
                reliability[i] = static_cast<float>(sum);
        }
    return reliability;
}

//! Numbers the groups 1.. in row-major order of their first pixel (out.components,
//! out.component_count) and makes each group's first pixel K = 0 (out.cycles).
void number_components(const std::vector<std::uint8_t>& valid,
                       const std::vector<long>& group,
                       reliability_reference& out)
{
    const long n = static_cast<long>(valid.size());
    out.components.assign(n, 0);
    std::vector<std::int32_t> number(n, 0);
    std::vector<std::int64_t> first_cycles(n, 0);
    for (long i = 0; i < n; ++i) {
        if (!valid[i])
            continue;
        const long g = group[i];
        if (number[g] == 0) {
            number[g] = static_cast<std::int32_t>(++out.component_count);
            first_cycles[g] = out.cycles[i];
        }
        out.cycles[i] -= first_cycles[g];
        out.components[i] = number[g];
    }
}

} // namespace

reliability_reference reference_reliability_unwrap(const unwrap_2d_frame& frame,
                                                   double period,
                                                   bool wrap_x,
                                                   bool wrap_y,
                                                   std::size_t gradient_window)
{
    if (gradient_window % 2 == 0)
        throw std::invalid_argument("reference_reliability_unwrap: even gradient_window");
    const long W = static_cast<long>(frame.width);
    const long H = static_cast<long>(frame.height);
    const long n = W * H;
    const long half = static_cast<long>(gradient_window / 2);
    const std::vector<float>& x = frame.wrapped;
    const auto valid = reference_valid_pixels(frame);
    reliability_reference out;

    out.reliability = pixel_reliability(frame, valid, period, wrap_x, wrap_y);

    // The order: unranked ends first (fewer first), then the float32 sum of the ranked
    // ends' keys with its lowest mantissa bit dropped (sums one ulp apart tie), then
    // the edge index.
    struct edge {
        int unranked;
        std::uint32_t sum_bits;
        long index;
        long a, b;
        int direction;
    };
    auto make_edge = [&](long a, long b, int direction) {
        int unranked = 0;
        float sum = 0.0f;
        for (long p : { a, b }) {
            if (std::isinf(out.reliability[p]))
                ++unranked;
            else
                sum += out.reliability[p];
        }
        return edge{ unranked, float_bits(sum) >> 1, 2 * a + direction, a, b, direction };
    };
    std::vector<edge> edges;
    for (long i = 0; i < n; ++i) {
        if (!valid[i])
            continue;
        const long row = i / W, col = i % W;
        long right = 0, below = 0;
        if (neighbour(row, col, 0, 1, W, H, wrap_x, wrap_y, &right) && valid[right])
            edges.push_back(make_edge(i, right, 0));
        if (neighbour(row, col, 1, 0, W, H, wrap_x, wrap_y, &below) && valid[below])
            edges.push_back(make_edge(i, below, 1));
    }
    std::sort(edges.begin(), edges.end(), [](const edge& u, const edge& v) {
        return std::tie(u.unranked, u.sum_bits, u.index) <
               std::tie(v.unranked, v.sum_bits, v.index);
    });

    // K[b] - K[a] across an edge: numpy.unwrap's rule for a window of one; otherwise
    // the k with d + k P nearest to G, the angle of the window's summed unit phasor
    // steps exp(i 2 pi (x[q] - x[p]) / P) over the valid pairs (p, q = p's neighbour
    // in the edge's direction), p in the window centred on a.
    const double to_radians = two_pi / period;
    auto edge_step = [&](const edge& e) -> std::int64_t {
        if (half == 0)
            return step_cycles(x[e.a], x[e.b], period);
        const long row = e.a / W, col = e.a % W;
        const long drow = e.direction == 1 ? 1 : 0;
        const long dcol = e.direction == 0 ? 1 : 0;
        std::complex<double> sum = 0.0;
        long pairs = 0;
        for (long r = -half; r <= half; ++r)
            for (long c = -half; c <= half; ++c) {
                long p = 0, q = 0;
                if (!neighbour(row, col, r, c, W, H, wrap_x, wrap_y, &p) || !valid[p] ||
                    !neighbour(row, col, r + drow, c + dcol, W, H, wrap_x, wrap_y, &q) ||
                    !valid[q])
                    continue;
                sum += std::polar(1.0, to_radians * double(x[q])) *
                       std::conj(std::polar(1.0, to_radians * double(x[p])));
                ++pairs;
            }
        // A (nearly) vanishing sum has no direction: the pair rule, and a join the
        // engine's float32 phasors may decide otherwise.
        if (std::abs(sum) < 1e-6 * double(pairs)) {
            ++out.near_half_period_joins;
            return step_cycles(x[e.a], x[e.b], period);
        }
        const double gradient = std::atan2(sum.imag(), sum.real()) / to_radians;
        // d = w + P n with w in [-P/2, P/2); then k = -n + round((G - w) / P).
        const double d = double(x[e.b]) - double(x[e.a]);
        const double n_turns = std::floor(d / period + 0.5);
        const double w = d - period * n_turns;
        const double turns = (gradient - w) / period;
        const double correction = std::floor(turns + 0.5);
        if (std::fabs(std::fabs(turns - correction) - 0.5) < 1e-6)
            ++out.near_half_period_joins;
        return static_cast<std::int64_t>(correction - n_turns);
    };

    // Herraez's groups: each valid pixel in a group of its own at first.
    std::vector<long> group(n, -1);
    std::vector<std::vector<long>> members(n);
    out.cycles.assign(n, 0);
    for (long i = 0; i < n; ++i)
        if (valid[i]) {
            group[i] = i;
            members[i].push_back(i);
        }
    for (const edge& e : edges) {
        const long ga = group[e.a];
        const long gb = group[e.b];
        if (ga == gb)
            continue;
        // Periods to add to b's group so that K[b] - K[a] is the step's.
        const std::int64_t increment = out.cycles[e.a] + edge_step(e) - out.cycles[e.b];
        long keep = ga, move = gb;
        std::int64_t shift = increment;
        if (members[ga].size() < members[gb].size()) {
            std::swap(keep, move);
            shift = -increment;
        }
        for (long m : members[move]) {
            out.cycles[m] += shift;
            group[m] = keep;
        }
        members[keep].insert(
            members[keep].end(), members[move].begin(), members[move].end());
        members[move].clear();
    }

    number_components(valid, group, out);
    return out;
}

least_squares_reference reference_least_squares_unwrap(const unwrap_2d_frame& frame,
                                                       double period)
{
    const long W = static_cast<long>(frame.width);
    const long H = static_cast<long>(frame.height);
    const long n = W * H;
    const std::vector<float>& x = frame.wrapped;
    const auto valid = reference_valid_pixels(frame);
    auto w2 = [&](long i) {
        const double w = frame.weight.empty() ? 1.0 : double(frame.weight[i]);
        return w * w;
    };

    // Differences to the right (ux, gx) and below (uy, gy); U = 0 off the frame or
    // where a pixel is not valid.
    std::vector<double> ux(n, 0.0), uy(n, 0.0), gx(n, 0.0), gy(n, 0.0);
    for (long r = 0; r < H; ++r)
        for (long c = 0; c < W; ++c) {
            const long i = r * W + c;
            if (!valid[i])
                continue;
            if (c + 1 < W && valid[i + 1]) {
                ux[i] = std::min(w2(i), w2(i + 1));
                gx[i] = wrapped_difference(double(x[i + 1]) - double(x[i]), period);
            }
            if (r + 1 < H && valid[i + W]) {
                uy[i] = std::min(w2(i), w2(i + W));
                gy[i] = wrapped_difference(double(x[i + W]) - double(x[i]), period);
            }
        }

    // A v: the weighted sum of squares' Hessian / 2, positive semidefinite:
    // (A v)_p = sum over the differences of p of U (v_p - v_q).
    auto apply = [&](const std::vector<double>& v, std::vector<double>& av) {
        std::fill(av.begin(), av.end(), 0.0);
        for (long i = 0; i < n; ++i) {
            if (i % W + 1 < W) {
                const double f = ux[i] * (v[i + 1] - v[i]);
                av[i] -= f;
                av[i + 1] += f;
            }
            if (i / W + 1 < H) {
                const double f = uy[i] * (v[i + W] - v[i]);
                av[i] -= f;
                av[i + W] += f;
            }
        }
    };
    // b: minus the weighted divergence of the wrapped differences.
    std::vector<double> b(n, 0.0);
    for (long i = 0; i < n; ++i) {
        if (i % W + 1 < W) {
            b[i] -= ux[i] * gx[i];
            b[i + 1] += ux[i] * gx[i];
        }
        if (i / W + 1 < H) {
            b[i] -= uy[i] * gy[i];
            b[i + W] += uy[i] * gy[i];
        }
    }

    least_squares_reference out;
    std::vector<double> phi(n, 0.0), r = b, p = b, ap(n);
    auto dot = [](const std::vector<double>& u, const std::vector<double>& v) {
        double s = 0.0;
        for (std::size_t i = 0; i < u.size(); ++i)
            s += u[i] * v[i];
        return s;
    };
    const double b_norm = std::sqrt(dot(b, b));
    double rr = dot(r, r);
    const std::size_t limit = 50 * static_cast<std::size_t>(n) + 100;
    while (std::sqrt(rr) > 1e-12 * b_norm) {
        if (++out.iterations > limit)
            throw std::runtime_error("reference_least_squares_unwrap: no convergence");
        apply(p, ap);
        const double alpha = rr / dot(p, ap);
        for (long i = 0; i < n; ++i) {
            phi[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        const double rr_next = dot(r, r);
        for (long i = 0; i < n; ++i)
            p[i] = r[i] + (rr_next / rr) * p[i];
        rr = rr_next;
    }

    double sum_cos = 0.0, sum_sin = 0.0;
    for (long i = 0; i < n; ++i)
        if (valid[i]) {
            const double angle = two_pi / period * (double(x[i]) - phi[i]);
            sum_cos += std::cos(angle);
            sum_sin += std::sin(angle);
        }
    const double constant = period / two_pi * std::atan2(sum_sin, sum_cos);

    out.solution.assign(n, std::numeric_limits<double>::quiet_NaN());
    out.cycles.assign(n, 0);
    for (long i = 0; i < n; ++i)
        if (valid[i]) {
            out.solution[i] = phi[i] + constant;
            out.cycles[i] = static_cast<std::int64_t>(
                std::floor((out.solution[i] - double(x[i])) / period + 0.5));
        }
    return out;
}

float reference_apply_cycles(float wrapped, std::int64_t cycles, double period)
{
    return static_cast<float>(double(wrapped) + period * double(cycles));
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
