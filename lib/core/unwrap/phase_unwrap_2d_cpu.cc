/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/fftw_support.h"
#include "unwrap/mcf_tiled_unwrap.h"
#include "unwrap/phase_unwrap_2d_cpu.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;

unwrap_2d_geometry geometry_of(const phase_unwrap_2d_config& config)
{
    return { static_cast<std::int32_t>(config.width),
             static_cast<std::int32_t>(config.height),
             config.wrap_around_x,
             config.wrap_around_y };
}

//! Marks the valid pixels (unwrap_2d_pixel_valid()) and counts them.
std::size_t
mark_valid(const unwrap_2d_buffers& host, std::size_t pixels, std::uint8_t* valid)
{
    std::size_t count = 0;
    for (std::size_t i = 0; i < pixels; ++i) {
        const bool ok = unwrap_2d_pixel_valid(host.wrapped, host.weight, host.mask, i);
        valid[i] = ok ? 1 : 0;
        count += ok ? 1 : 0;
    }
    return count;
}

//! The largest weight of a valid pixel (edge_weight() divides by it); 1 without weights.
float largest_valid_weight(const float* weight, const std::vector<std::uint8_t>& valid)
{
    if (weight == nullptr)
        return 1.0f;
    float largest = 0.0f;
    for (std::size_t i = 0; i < valid.size(); ++i)
        if (valid[i] && weight[i] > largest)
            largest = weight[i];
    return largest;
}

constexpr std::size_t digit_values = std::size_t(1) << 16;
//! The two histograms sort_by_key() allocates on each call.
constexpr std::size_t sort_histogram_bytes = 2 * digit_values * sizeof(std::size_t);

/*!
 * Sorts \p count items (ordered key bits << 32 | edge index), given in ascending edge
 * index, by their key: a least-significant-digit radix sort over the key's two 16-bit
 * digits. It is stable, so equal keys stay in edge order and the result is the order
 * (key, edge index). The sorted items end up in \p items; \p scratch is clobbered.
 */
void sort_by_key(std::vector<std::uint64_t>& items,
                 std::vector<std::uint64_t>& scratch,
                 std::size_t count)
{
    constexpr int digit_shifts[2] = { 32, 48 };
    std::vector<std::size_t> histogram[2] = { std::vector<std::size_t>(digit_values, 0),
                                              std::vector<std::size_t>(digit_values, 0) };
    for (std::size_t i = 0; i < count; ++i) {
        ++histogram[0][(items[i] >> digit_shifts[0]) & 0xffffu];
        ++histogram[1][(items[i] >> digit_shifts[1]) & 0xffffu];
    }
    for (int pass = 0; pass < 2; ++pass) {
        std::vector<std::size_t>& start = histogram[pass];
        const int shift = digit_shifts[pass];
        // A digit that all items share leaves the order as it is.
        if (count == 0 || start[(items[0] >> shift) & 0xffffu] == count)
            continue;
        std::size_t sum = 0;
        for (std::size_t& s : start)
            sum += std::exchange(s, sum);
        for (std::size_t i = 0; i < count; ++i)
            scratch[start[(items[i] >> shift) & 0xffffu]++] = items[i];
        items.swap(scratch);
    }
}

} // namespace

/*!
 * window_step_sum() of every pixel at once, separably: \p row_sums[i] sums \p steps
 * along the row over the window's columns, \p sums[i] sums those over its rows, each
 * neighbour found by the rule's unwrap_2d_neighbour() as the direct sum does. Integer
 * sums, so the result is the direct sum's bit for bit, in O(window side) per pixel
 * instead of O(window area).
 */
void box_sum(const gradient_step* steps,
             gradient_step* row_sums,
             gradient_step* sums,
             std::int32_t half,
             const unwrap_2d_geometry& g)
{
    for (std::int32_t row = 0; row < g.height; ++row)
        for (std::int32_t col = 0; col < g.width; ++col) {
            gradient_step sum = { 0, 0 };
            for (std::int32_t c = -half; c <= half; ++c) {
                std::int32_t a = 0;
                if (unwrap_2d_neighbour(row, col, 0, c, g, &a)) {
                    sum.re += steps[a].re;
                    sum.im += steps[a].im;
                }
            }
            row_sums[std::size_t(row) * g.width + col] = sum;
        }
    for (std::int32_t row = 0; row < g.height; ++row)
        for (std::int32_t col = 0; col < g.width; ++col) {
            gradient_step sum = { 0, 0 };
            for (std::int32_t r = -half; r <= half; ++r) {
                std::int32_t a = 0;
                if (unwrap_2d_neighbour(row, col, r, 0, g, &a)) {
                    sum.re += row_sums[a].re;
                    sum.im += row_sums[a].im;
                }
            }
            sums[std::size_t(row) * g.width + col] = sum;
        }
}

/*!
 * The reliability method's arrays, one frame's worth, and the union-find forest.
 *
 * Every node of the forest holds K[node] - K[parent] (whole periods, int64: a path of
 * capped steps can pass 2^31), so find() returns a pixel's K relative to its root. A
 * join keeps the smaller of the two roots, so a tree's root is always its first pixel
 * in row-major order: the pixel whose K the canonical constant sets to 0. Path
 * compression alone keeps the trees shallow enough (Kruskal visits the edges in key
 * order, which is random with respect to position).
 *
 * bytes() counts what the constructor allocates, for the factory's memory check: it
 * changes with the arrays.
 */
struct phase_unwrapper_2d_cpu::reliability_workspace {
    reliability_workspace(std::size_t pixels, bool guided)
        : valid(pixels),
          key(pixels),
          steps(guided ? 2 * pixels : 0),
          window_sums(guided ? 2 * pixels : 0),
          row_sums(guided ? pixels : 0),
          edges(2 * pixels),
          scratch(2 * pixels),
          parent(pixels),
          offset(pixels)
    {
    }

    //! What the constructor allocates, and the sort's histograms of each frame.
    static std::size_t bytes(std::size_t pixels, bool guided)
    {
        const std::size_t per_pixel = sizeof(std::uint8_t) + sizeof(float) +
                                      (guided ? 5 * sizeof(gradient_step) : 0) +
                                      4 * sizeof(std::uint64_t) + sizeof(std::int32_t) +
                                      sizeof(std::int64_t);
        return per_pixel * pixels + sort_histogram_bytes;
    }

    //! Root of \p p's tree; *cycles = K[p] - K[root]. Compresses the path.
    std::int32_t find(std::int32_t p, std::int64_t* cycles)
    {
        std::int32_t root = p;
        std::int64_t total = 0;
        while (parent[root] != root) {
            total += offset[root];
            root = parent[root];
        }
        *cycles = total;
        for (std::int32_t q = p; q != root;) {
            const std::int32_t next = parent[q];
            const std::int64_t next_total = total - offset[q];
            parent[q] = root;
            offset[q] = total;
            q = next;
            total = next_total;
        }
        return root;
    }

    /*! Joins the trees of \p from and \p to, unless they are one, so that K[to] -
     *  K[from] = cycles_of() (asked only then: the guided rule costs a window sum). */
    template <typename CyclesOf>
    void join(std::int32_t from, std::int32_t to, CyclesOf cycles_of)
    {
        std::int64_t from_cycles = 0;
        std::int64_t to_cycles = 0;
        const std::int32_t from_root = find(from, &from_cycles);
        const std::int32_t to_root = find(to, &to_cycles);
        if (from_root == to_root)
            return;
        // K[to_root] - K[from_root]
        const std::int64_t between = from_cycles + std::int64_t(cycles_of()) - to_cycles;
        if (from_root < to_root) {
            parent[to_root] = from_root;
            offset[to_root] = between;
        } else {
            parent[from_root] = to_root;
            offset[from_root] = -between;
        }
    }

    std::vector<std::uint8_t> valid;
    std::vector<float> key;
    // Guided by the local gradient only (else empty): pair_step of each pixel and its
    // window_step_sum, right then down; row_sums: the first pass of the box sum.
    std::vector<gradient_step> steps;
    std::vector<gradient_step> window_sums;
    std::vector<gradient_step> row_sums;
    std::vector<std::uint64_t> edges; //!< edge_order_key << 32 | edge index
    std::vector<std::uint64_t> scratch;
    std::vector<std::int32_t> parent;
    std::vector<std::int64_t> offset; //!< K[p] - K[parent[p]]
};

/*!
 * The least-squares method's arrays (float32, one frame each) and FFTW plans.
 *
 * The Poisson solve is a 2-D DCT-II (FFTW_REDFT10), a division by the eigenvalues of
 * the Neumann Laplacian, and a 2-D DCT-III (FFTW_REDFT01) in place on transform; the
 * pair scales by 4 W H, folded into the stored inverse eigenvalues. bytes() counts
 * what the constructor allocates, as the reliability workspace's does.
 */
struct phase_unwrapper_2d_cpu::least_squares_workspace {
    least_squares_workspace(std::size_t width, std::size_t height)
        : pixels(width * height),
          transform(fftw_allocate<float>(pixels)),
          inverse_eigenvalue(pixels),
          valid(pixels),
          weight_x(pixels),
          weight_y(pixels),
          solution(pixels),
          residual(pixels),
          direction(pixels),
          product(pixels)
    {
        const double pi = 0.5 * two_pi;
        const double normalisation = 4.0 * double(width) * double(height);
        for (std::size_t m = 0; m < height; ++m)
            for (std::size_t n = 0; n < width; ++n) {
                const double eigenvalue =
                    2.0 * std::cos(pi * double(m) / double(height)) +
                    2.0 * std::cos(pi * double(n) / double(width)) - 4.0;
                // The constant mode is the free constant of the solution: set to 0.
                inverse_eigenvalue[m * width + n] =
                    m == 0 && n == 0
                        ? 0.0f
                        : static_cast<float>(1.0 / (normalisation * eigenvalue));
            }
        const auto lock = fftw_planner_lock();
        // ESTIMATE plans do not touch the array; fftwf_malloc fixes its alignment.
        const int rows = static_cast<int>(height);
        const int columns = static_cast<int>(width);
        forward = fftwf_plan_r2r_2d(rows,
                                    columns,
                                    transform.get(),
                                    transform.get(),
                                    FFTW_REDFT10,
                                    FFTW_REDFT10,
                                    FFTW_ESTIMATE);
        inverse = fftwf_plan_r2r_2d(rows,
                                    columns,
                                    transform.get(),
                                    transform.get(),
                                    FFTW_REDFT01,
                                    FFTW_REDFT01,
                                    FFTW_ESTIMATE);
        if (forward == nullptr || inverse == nullptr) {
            destroy_plans();
            throw std::runtime_error("phase_unwrapper_2d: FFTW could not plan a " +
                                     std::to_string(height) + " x " +
                                     std::to_string(width) + " DCT");
        }
    }
    //! What the constructor allocates (FFTW's plans themselves are small: in place,
    //! FFTW_ESTIMATE).
    static std::size_t bytes(std::size_t pixels)
    {
        return pixels * (sizeof(std::uint8_t) + 8 * sizeof(float));
    }

    ~least_squares_workspace()
    {
        const auto lock = fftw_planner_lock();
        destroy_plans();
    }
    void destroy_plans()
    {
        if (forward)
            fftwf_destroy_plan(forward);
        if (inverse)
            fftwf_destroy_plan(inverse);
        forward = inverse = nullptr;
    }

    //! transform <- the unweighted Neumann Poisson solution for the divergence in
    //! transform (zero mean).
    void poisson_solve_in_place()
    {
        fftwf_execute(forward);
        float* t = transform.get();
        const float* s = inverse_eigenvalue.data();
        for (std::size_t i = 0; i < pixels; ++i)
            t[i] *= s[i];
        fftwf_execute(inverse);
    }

    std::size_t pixels;
    fftw_array<float> transform;
    std::vector<float> inverse_eigenvalue; //!< 1 / (4 W H (2cos + 2cos - 4)), 0 at (0,0)
    std::vector<std::uint8_t> valid;
    //! U of the difference to the right (lower) neighbour; 0 at the last column (row)
    //! and where either pixel is not valid.
    std::vector<float> weight_x, weight_y;
    std::vector<float> solution, residual, direction, product;
    fftwf_plan forward = nullptr;
    fftwf_plan inverse = nullptr;
};

namespace {

double dot(const float* a, const float* b, std::size_t n)
{
    // Four partial sums: one running sum would wait on every addition.
    std::array<double, 4> partial = { 0.0, 0.0, 0.0, 0.0 };
    std::size_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (std::size_t k = 0; k < 4; ++k)
            partial[k] += double(a[i + k]) * double(b[i + k]);
    for (; i < n; ++i)
        partial[0] += double(a[i]) * double(b[i]);
    return (partial[0] + partial[1]) + (partial[2] + partial[3]);
}

/*!
 * out = Q v, the weighted Neumann Laplacian: per pixel, the sum over its differences of
 * U * (v[neighbour] - v[pixel]). Zero wherever every U is zero (pixels not valid).
 */
void apply_weighted_laplacian(const std::vector<float>& weight_x,
                              const std::vector<float>& weight_y,
                              const std::vector<float>& v,
                              std::size_t width,
                              std::size_t height,
                              std::vector<float>& out)
{
    for (std::size_t row = 0; row < height; ++row) {
        const std::size_t base = row * width;
        for (std::size_t col = 0; col < width; ++col) {
            const std::size_t i = base + col;
            float q = 0.0f;
            if (col + 1 < width)
                q += weight_x[i] * (v[i + 1] - v[i]);
            if (col > 0)
                q -= weight_x[i - 1] * (v[i] - v[i - 1]);
            if (row + 1 < height)
                q += weight_y[i] * (v[i + width] - v[i]);
            if (row > 0)
                q -= weight_y[i - width] * (v[i] - v[i - width]);
            out[i] = q;
        }
    }
}

} // namespace

phase_unwrapper_2d_cpu::phase_unwrapper_2d_cpu(const phase_unwrap_2d_config& config,
                                               const device_selection& device)
    : phase_unwrapper_2d(config, device)
{
    switch (config.method) {
    case unwrap_2d_method::reliability:
        d_reliability = std::make_unique<reliability_workspace>(
            config.pixels(), config.gradient_window > 1);
        break;
    case unwrap_2d_method::least_squares:
        d_least_squares =
            std::make_unique<least_squares_workspace>(config.width, config.height);
        break;
    case unwrap_2d_method::mcf:
        d_mcf = std::make_unique<mcf_tiled_unwrap>(config);
        break;
    }
}

phase_unwrapper_2d_cpu::~phase_unwrapper_2d_cpu() = default;

memory_need phase_unwrapper_2d_cpu::memory_needed(const phase_unwrap_2d_config& config)
{
    memory_need need;
    switch (config.method) {
    case unwrap_2d_method::reliability:
        need.host_bytes =
            reliability_workspace::bytes(config.pixels(), config.gradient_window > 1);
        break;
    case unwrap_2d_method::least_squares:
        need.host_bytes = least_squares_workspace::bytes(config.pixels());
        break;
    case unwrap_2d_method::mcf:
        need.host_bytes = mcf_tiled_unwrap::bytes(config);
        break;
    }
    return need;
}

unwrap_2d_report phase_unwrapper_2d_cpu::unwrap_host(const unwrap_2d_buffers& host)
{
    switch (d_config.method) {
    case unwrap_2d_method::reliability:
        return unwrap_reliability(host);
    case unwrap_2d_method::least_squares:
        return unwrap_least_squares(host);
    case unwrap_2d_method::mcf:
        break;
    }
    return d_mcf->unwrap(host);
}

unwrap_2d_report phase_unwrapper_2d_cpu::unwrap_on_device(const unwrap_2d_buffers&,
                                                          cuda_stream_t)
{
    // unwrap_device() refuses the CPU backend before it gets here.
    throw std::logic_error(
        "phase_unwrapper_2d: unwrap_device needs the CUDA backend; this engine runs on "
        "the CPU");
}

unwrap_2d_report phase_unwrapper_2d_cpu::unwrap_reliability(const unwrap_2d_buffers& host)
{
    reliability_workspace& ws = *d_reliability;
    const unwrap_2d_geometry g = geometry_of(d_config);
    const unwrap_period p = make_unwrap_period(d_config.period);
    const std::size_t pixels = d_config.pixels();
    const float* x = host.wrapped;
    const std::int32_t half_window =
        static_cast<std::int32_t>(d_config.gradient_window / 2);
    unwrap_2d_report report;
    report.valid_pixels = mark_valid(host, pixels, ws.valid.data());

    for (std::int32_t row = 0; row < g.height; ++row)
        for (std::int32_t col = 0; col < g.width; ++col) {
            const std::size_t i = std::size_t(row) * g.width + col;
            if (!ws.valid[i])
                continue;
            ws.key[i] = pixel_reliability_key(x, ws.valid.data(), row, col, g, p);
        }
    if (half_window > 0)
        for (std::int32_t direction = 0; direction < 2; ++direction) {
            gradient_step* steps = ws.steps.data() + direction * pixels;
            for (std::size_t i = 0; i < pixels; ++i)
                steps[i] = pair_step(
                    x, ws.valid.data(), static_cast<std::int32_t>(i), direction, g, p);
            box_sum(steps,
                    ws.row_sums.data(),
                    ws.window_sums.data() + direction * pixels,
                    half_window,
                    g);
        }

    // Edges in ascending index, each with its key above it; the sort is stable.
    std::size_t edge_count = 0;
    for (std::size_t i = 0; i < pixels; ++i) {
        if (!ws.valid[i])
            continue;
        for (std::int32_t direction = 0; direction < 2; ++direction) {
            const std::uint32_t edge =
                unwrap_2d_edge_index(static_cast<std::int32_t>(i), direction);
            std::int32_t from = 0;
            std::int32_t to = 0;
            if (!unwrap_2d_edge_ends(edge, g, &from, &to) || !ws.valid[to])
                continue;
            ws.edges[edge_count++] =
                std::uint64_t(edge_order_key(ws.key[from], ws.key[to])) << 32 | edge;
        }
    }
    sort_by_key(ws.edges, ws.scratch, edge_count);

    // Kruskal: an edge whose ends are already joined is not in the forest.
    for (std::size_t i = 0; i < pixels; ++i) {
        ws.parent[i] = static_cast<std::int32_t>(i);
        ws.offset[i] = 0;
    }
    for (std::size_t k = 0; k < edge_count; ++k) {
        std::int32_t from = 0;
        std::int32_t to = 0;
        const std::uint32_t edge = static_cast<std::uint32_t>(ws.edges[k]);
        unwrap_2d_edge_ends(edge, g, &from, &to);
        const std::size_t direction_offset = (edge & 1u) * pixels;
        ws.join(from, to, [&] {
            if (half_window == 0)
                return edge_cycles(x[from], x[to], p);
            return guided_edge_cycles(x[from],
                                      x[to],
                                      ws.steps[direction_offset + from],
                                      ws.window_sums[direction_offset + from],
                                      p);
        });
    }

    // Row-major, so that a component's root (its first pixel) is numbered before its
    // other pixels read that number back from the output.
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::int32_t components = 0;
    for (std::size_t i = 0; i < pixels; ++i) {
        if (!ws.valid[i]) {
            host.unwrapped[i] = nan;
            if (host.cycles)
                host.cycles[i] = 0;
            if (host.components)
                host.components[i] = 0;
            continue;
        }
        std::int64_t cycles = 0;
        const std::int32_t root = ws.find(static_cast<std::int32_t>(i), &cycles);
        if (root == static_cast<std::int32_t>(i))
            ++components;
        if (host.components)
            host.components[i] =
                root == static_cast<std::int32_t>(i) ? components : host.components[root];
        if (host.cycles)
            host.cycles[i] = saturate_cycles(cycles);
        host.unwrapped[i] = apply_cycles(x[i], cycles, p);
    }
    report.components = static_cast<std::size_t>(components);
    return report;
}

unwrap_2d_report
phase_unwrapper_2d_cpu::unwrap_least_squares(const unwrap_2d_buffers& host)
{
    least_squares_workspace& ws = *d_least_squares;
    const std::size_t width = d_config.width;
    const std::size_t height = d_config.height;
    const std::size_t pixels = ws.pixels;
    const unwrap_period p = make_unwrap_period(d_config.period);
    const float* x = host.wrapped;
    unwrap_2d_report report;
    report.valid_pixels = mark_valid(host, pixels, ws.valid.data());
    const bool weighted =
        host.weight != nullptr || host.mask != nullptr || report.valid_pixels != pixels;

    // U of every difference; without a weight input a valid pixel weighs 1.
    auto pixel_weight = [&](std::size_t i) {
        return host.weight != nullptr ? host.weight[i] : 1.0f;
    };
    const float largest = largest_valid_weight(host.weight, ws.valid);
    for (std::size_t row = 0; row < height; ++row)
        for (std::size_t col = 0; col < width; ++col) {
            const std::size_t i = row * width + col;
            const bool right = col + 1 < width && ws.valid[i] && ws.valid[i + 1];
            const bool below = row + 1 < height && ws.valid[i] && ws.valid[i + width];
            ws.weight_x[i] =
                right ? edge_weight(pixel_weight(i), pixel_weight(i + 1), largest) : 0.0f;
            ws.weight_y[i] =
                below ? edge_weight(pixel_weight(i), pixel_weight(i + width), largest)
                      : 0.0f;
        }

    // The weighted divergence of the wrapped differences: U * g flowing out of a pixel
    // to its right and lower neighbours, minus what flows in from the left and above.
    auto flux = [&](std::size_t i, std::size_t neighbour, float weight) {
        if (weight == 0.0f)
            return 0.0f;
        const float g =
            static_cast<float>(wrap_difference(double(x[neighbour]) - double(x[i]), p));
        return weight * g;
    };
    float* divergence = weighted ? ws.residual.data() : ws.transform.get();
    for (std::size_t row = 0; row < height; ++row)
        for (std::size_t col = 0; col < width; ++col) {
            const std::size_t i = row * width + col;
            float rho = 0.0f;
            if (col + 1 < width)
                rho += flux(i, i + 1, ws.weight_x[i]);
            if (col > 0)
                rho -= flux(i - 1, i, ws.weight_x[i - 1]);
            if (row + 1 < height)
                rho += flux(i, i + width, ws.weight_y[i]);
            if (row > 0)
                rho -= flux(i - width, i, ws.weight_y[i - width]);
            divergence[i] = rho;
        }

    const float* phi = ws.transform.get();
    if (!weighted) {
        ws.poisson_solve_in_place();
    } else {
        // Preconditioned conjugate gradients (Ghiglia and Romero 1994, section 4) on
        // Q phi = rho from phi = 0, the unweighted Poisson solve as preconditioner. Q
        // and the preconditioner are both negative semidefinite, so the usual formulas
        // hold with both signs flipped.
        std::vector<float>& r = ws.residual;
        std::vector<float>& d = ws.direction;
        std::vector<float>& q = ws.product;
        std::vector<float>& solution = ws.solution;
        std::fill(solution.begin(), solution.end(), 0.0f);
        const double initial_norm = std::sqrt(dot(r.data(), r.data(), pixels));
        double norm = initial_norm;
        double previous_rz = 0.0;
        for (std::size_t k = 1; k <= d_config.max_iterations; ++k) {
            if (norm <= d_config.tolerance * initial_norm)
                break;
            std::copy(r.begin(), r.end(), ws.transform.get());
            ws.poisson_solve_in_place();
            const float* z = ws.transform.get();
            const double rz = dot(r.data(), z, pixels);
            if (k == 1) {
                std::copy(z, z + pixels, d.begin());
            } else {
                const float beta = static_cast<float>(rz / previous_rz);
                for (std::size_t i = 0; i < pixels; ++i)
                    d[i] = z[i] + beta * d[i];
            }
            apply_weighted_laplacian(ws.weight_x, ws.weight_y, d, width, height, q);
            const double curvature = dot(d.data(), q.data(), pixels);
            // A direction Q cannot see: the residual is down to rounding.
            if (curvature == 0.0)
                break;
            const float alpha = static_cast<float>(rz / curvature);
            for (std::size_t i = 0; i < pixels; ++i) {
                solution[i] += alpha * d[i];
                r[i] -= alpha * q[i];
            }
            previous_rz = rz;
            norm = std::sqrt(dot(r.data(), r.data(), pixels));
            report.iterations = k;
        }
        report.relative_residual = initial_norm > 0.0 ? norm / initial_norm : 0.0;
        phi = solution.data();
    }

    // The free constant: the circular mean of wrapped - solution over the valid pixels.
    const double to_radians = two_pi * p.inverse_period;
    double sum_cos = 0.0;
    double sum_sin = 0.0;
    for (std::size_t i = 0; i < pixels; ++i)
        if (ws.valid[i]) {
            const double angle = (double(x[i]) - double(phi[i])) * to_radians;
            sum_cos += std::cos(angle);
            sum_sin += std::sin(angle);
        }
    const double constant = std::atan2(sum_sin, sum_cos) / to_radians;

    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < pixels; ++i) {
        if (!ws.valid[i]) {
            host.unwrapped[i] = nan;
            if (host.cycles)
                host.cycles[i] = 0;
            continue;
        }
        const float wrapped = x[i];
        const double solution = double(phi[i]) + constant;
        const std::int32_t cycles = congruent_cycles(solution, wrapped, p);
        host.unwrapped[i] = d_config.congruent ? apply_cycles(wrapped, cycles, p)
                                               : static_cast<float>(solution);
        if (host.cycles)
            host.cycles[i] = cycles;
    }
    return report;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
