/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The scene model, its constants and sources are documented in the public header.

#include "runtime/quoted_text.h"
#include "runtime/splitmix64.h"
#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double pi = 3.14159265358979323846;
constexpr double two_pi = 6.283185307179586476925286766559;
constexpr std::size_t max_pixels = std::size_t(1) << 30;

constexpr int topography_hills = 10;
// The finest lattice of the atmosphere's octaves is 2^this pixels: pixel-scale
// roughness is the decorrelation noise's part, not the atmosphere's.
constexpr std::size_t atmosphere_inner_level = 2;
constexpr double water_coherence = 0.05;
// Exponent at the patch's centre minus 1: 0.9^(ln 0.5 / ln 0.9) = 0.5.
const double vegetation_extra_exponent = std::log(0.5) / std::log(0.9) - 1.0;
// The steep peak's steepest slope, radians per pixel (aliases beyond pi).
constexpr double steep_peak_slope_rad = two_pi;

void require_amplitude(double value, const char* field)
{
    if (!std::isfinite(value) || value < 0.0)
        throw std::invalid_argument(
            std::string(field) + ": must be finite and >= 0, got " + number_text(value));
}

//! Uniform in (lo, hi).
double uniform(splitmix64& rng, double lo, double hi)
{
    return lo + (hi - lo) * rng.uniform();
}

//! exp(-((v - centre) / sigma)^2 / 2) for v = 0 .. n-1: one axis of a separable bump.
std::vector<double> gaussian_profile(std::size_t n, double centre, double sigma)
{
    std::vector<double> profile(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double t = (static_cast<double>(i) - centre) / sigma;
        profile[i] = std::exp(-0.5 * t * t);
    }
    return profile;
}

struct point {
    double x;
    double y;
};

/*!
 * Where the lake, the bowl, the steep peak and the vegetated patch sit: each near the
 * centre of its own quadrant (a seeded permutation), so that they stay apart.
 */
struct scene_layout {
    point lake, bowl, peak, vegetation;

    scene_layout(splitmix64& rng, double width, double height)
    {
        std::array<int, 4> quadrant = { 0, 1, 2, 3 };
        for (int i = 3; i > 0; --i) // Fisher-Yates
            std::swap(
                quadrant[i],
                quadrant[std::min<int>(i, static_cast<int>(rng.uniform() * (i + 1)))]);
        std::array<point, 4> centre;
        for (int i = 0; i < 4; ++i)
            centre[i] = {
                (0.25 + 0.5 * (quadrant[i] & 1) + uniform(rng, -0.1, 0.1)) * width,
                (0.25 + 0.5 * (quadrant[i] >> 1) + uniform(rng, -0.1, 0.1)) * height
            };
        lake = centre[0];
        bowl = centre[1];
        peak = centre[2];
        vegetation = centre[3];
    }
};

//! Hills and a ridge, spanning [0, 2 pi cycles] over the image.
void add_topography(std::vector<double>& phase,
                    std::size_t width,
                    std::size_t height,
                    double cycles,
                    splitmix64 rng)
{
    const double w = static_cast<double>(width);
    const double h = static_cast<double>(height);
    const double s = std::min(w, h);
    std::vector<double> relief(phase.size(), 0.0);

    // Axis-aligned hills are separable: one multiply-add per hill and pixel.
    for (int k = 0; k < topography_hills; ++k) {
        const double x0 = uniform(rng, -0.1, 1.1) * w;
        const double y0 = uniform(rng, -0.1, 1.1) * h;
        const double sigma = uniform(rng, 0.10, 0.25) * s;
        const double height_rel = uniform(rng, 0.4, 1.0);
        const std::vector<double> across = gaussian_profile(width, x0, sigma);
        const std::vector<double> down = gaussian_profile(height, y0, sigma);
        for (std::size_t y = 0; y < height; ++y) {
            const double a = height_rel * down[y];
            double* row = relief.data() + y * width;
            for (std::size_t x = 0; x < width; ++x)
                row[x] += a * across[x];
        }
    }

    const double rx = uniform(rng, 0.2, 0.8) * w;
    const double ry = uniform(rng, 0.2, 0.8) * h;
    const double angle = uniform(rng, 0.0, pi);
    const double ridge_width = uniform(rng, 0.05, 0.08) * s;
    const double ridge_length = uniform(rng, 0.3, 0.5) * std::max(w, h);
    const double ridge_height = uniform(rng, 0.8, 1.2);
    const double c = std::cos(angle);
    const double sn = std::sin(angle);
    for (std::size_t y = 0; y < height; ++y) {
        const double dy = static_cast<double>(y) - ry;
        double* row = relief.data() + y * width;
        for (std::size_t x = 0; x < width; ++x) {
            const double dx = static_cast<double>(x) - rx;
            const double along = (c * dx + sn * dy) / ridge_length;
            const double across = (-sn * dx + c * dy) / ridge_width;
            row[x] += ridge_height * std::exp(-0.5 * (along * along + across * across));
        }
    }

    const auto [lo, hi] = std::minmax_element(relief.begin(), relief.end());
    const double low = *lo;
    const double span = *hi - *lo;
    if (!(span > 0.0))
        return;
    const double scale = two_pi * cycles / span;
    for (std::size_t i = 0; i < phase.size(); ++i)
        phase[i] += scale * (relief[i] - low);
}

//! Mogi source's subsidence bowl, -2 pi cycles at its centre.
void add_deformation(std::vector<double>& phase,
                     std::size_t width,
                     std::size_t height,
                     double cycles,
                     point centre,
                     double depth)
{
    const double inv_d2 = 1.0 / (depth * depth);
    for (std::size_t y = 0; y < height; ++y) {
        const double dy = static_cast<double>(y) - centre.y;
        double* row = phase.data() + y * width;
        for (std::size_t x = 0; x < width; ++x) {
            const double dx = static_cast<double>(x) - centre.x;
            const double q = 1.0 + (dx * dx + dy * dy) * inv_d2;
            row[x] -= two_pi * cycles / (q * std::sqrt(q));
        }
    }
}

//! A Gaussian cone of width sigma whose steepest slope (at r = sigma) is
//! steep_peak_slope_rad per pixel.
void add_steep_peak(std::vector<double>& phase,
                    std::size_t width,
                    std::size_t height,
                    point centre,
                    double sigma)
{
    const double summit = steep_peak_slope_rad * sigma * std::exp(0.5);
    const std::vector<double> across = gaussian_profile(width, centre.x, sigma);
    const std::vector<double> down = gaussian_profile(height, centre.y, sigma);
    for (std::size_t y = 0; y < height; ++y) {
        const double a = summit * down[y];
        double* row = phase.data() + y * width;
        for (std::size_t x = 0; x < width; ++x)
            row[x] += a * across[x];
    }
}

//! A row-major grid of doubles.
struct grid {
    std::size_t rows = 0;
    std::size_t cols = 0;
    std::vector<double> v;
};

/*!
 * One step of cubic B-spline subdivision (Lane and Riesenfeld) along one axis of
 * \p coarse: fine point p = k + 2 of the refined sequence is (c[p/2 - 1] + 6 c[p/2] +
 * c[p/2 + 1]) / 8 for even p and (c[(p-1)/2] + c[(p+1)/2]) / 2 for odd p, k = 0 ..
 * fine_n - 1, which needs fine_n <= 2 n - 5 of the n coarse points. subdivide_rows
 * refines along each row, subdivide_columns along each column.
 */
void subdivide_rows(const grid& coarse, grid& fine, std::size_t fine_cols)
{
    fine.rows = coarse.rows;
    fine.cols = fine_cols;
    fine.v.assign(fine.rows * fine.cols, 0.0);
    for (std::size_t r = 0; r < coarse.rows; ++r) {
        const double* c = coarse.v.data() + r * coarse.cols;
        double* f = fine.v.data() + r * fine.cols;
        for (std::size_t k = 0; k < fine_cols; ++k) {
            const std::size_t p = k + 2;
            const std::size_t m = p / 2;
            f[k] = (p % 2 == 0) ? 0.125 * (c[m - 1] + 6.0 * c[m] + c[m + 1])
                                : 0.5 * (c[m] + c[m + 1]);
        }
    }
}

void subdivide_columns(const grid& coarse, grid& fine, std::size_t fine_rows)
{
    fine.rows = fine_rows;
    fine.cols = coarse.cols;
    fine.v.assign(fine.rows * fine.cols, 0.0);
    const std::size_t n = coarse.cols;
    for (std::size_t k = 0; k < fine_rows; ++k) {
        const std::size_t p = k + 2;
        const std::size_t m = p / 2;
        double* f = fine.v.data() + k * n;
        if (p % 2 == 0) {
            const double* a = coarse.v.data() + (m - 1) * n;
            const double* b = a + n;
            const double* c = b + n;
            for (std::size_t i = 0; i < n; ++i)
                f[i] = 0.125 * (a[i] + 6.0 * b[i] + c[i]);
        } else {
            const double* a = coarse.v.data() + m * n;
            const double* b = a + n;
            for (std::size_t i = 0; i < n; ++i)
                f[i] = 0.5 * (a[i] + b[i]);
        }
    }
}

//! Adds white Gaussian noise of standard deviation \p sigma to every node.
void add_white_noise(grid& g, double sigma, splitmix64& rng)
{
    // complex_normal(2) has unit variance in each part: two draws per call.
    for (std::size_t i = 0; i < g.v.size(); i += 2) {
        const std::complex<double> z = rng.complex_normal(2.0);
        g.v[i] += sigma * z.real();
        if (i + 1 < g.v.size())
            g.v[i + 1] += sigma * z.imag();
    }
}

//! Octave-summed B-spline noise with a k^(-8/3) spectrum, scaled to \p std_rad.
void add_atmosphere(std::vector<double>& phase,
                    std::size_t width,
                    std::size_t height,
                    double std_rad,
                    splitmix64 rng)
{
    // Lattice sizes from the image up: level j + 1 must refine to cover level j.
    std::vector<std::array<std::size_t, 2>> sizes = { { height, width } };
    const std::size_t longest = std::max(width, height);
    while (sizes.size() <= atmosphere_inner_level ||
           (std::size_t(1) << (sizes.size() - 1)) < longest / 2) {
        const auto [rows, cols] = sizes.back();
        sizes.push_back({ (rows + 6) / 2, (cols + 6) / 2 });
    }

    grid level, across;
    for (std::size_t j = sizes.size(); j-- > 0;) {
        if (j + 1 == sizes.size()) {
            level.rows = sizes[j][0];
            level.cols = sizes[j][1];
            level.v.assign(level.rows * level.cols, 0.0);
        } else {
            subdivide_rows(level, across, sizes[j][1]);
            subdivide_columns(across, level, sizes[j][0]);
        }
        if (j >= atmosphere_inner_level)
            add_white_noise(level, std::exp2(static_cast<double>(j) / 3.0), rng);
    }

    double sum = 0.0;
    for (double v : level.v)
        sum += v;
    const double mean = sum / static_cast<double>(level.v.size());
    double squares = 0.0;
    for (double v : level.v)
        squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / static_cast<double>(level.v.size()));
    if (!(sd > 0.0))
        return;
    const double scale = std_rad / sd;
    for (std::size_t i = 0; i < phase.size(); ++i)
        phase[i] += scale * (level.v[i] - mean);
}

//! Coherence of land, lowered in the vegetated patch (temporal decorrelation).
void fill_land_coherence(std::vector<float>& coherence,
                         std::size_t width,
                         std::size_t height,
                         double land,
                         const point* patch,
                         double sigma)
{
    if (!patch) {
        std::fill(coherence.begin(), coherence.end(), static_cast<float>(land));
        return;
    }
    const double log_land = std::log(land);
    const std::vector<double> across = gaussian_profile(width, patch->x, sigma);
    const std::vector<double> down = gaussian_profile(height, patch->y, sigma);
    for (std::size_t y = 0; y < height; ++y) {
        float* row = coherence.data() + y * width;
        for (std::size_t x = 0; x < width; ++x) {
            const double bump = down[y] * across[x];
            row[x] = static_cast<float>(
                std::exp(log_land * (1.0 + vegetation_extra_exponent * bump)));
        }
    }
}

//! A lake with a wavy shore: mask 0 and coherence water_coherence inside.
void add_lake(interferogram_scene& scene, point centre, splitmix64& rng, double s)
{
    const double a = uniform(rng, 0.08, 0.14) * s;
    const double b = uniform(rng, 0.05, 0.10) * s;
    const double angle = uniform(rng, 0.0, pi);
    const double phase3 = uniform(rng, 0.0, two_pi);
    const double phase5 = uniform(rng, 0.0, two_pi);
    const double c = std::cos(angle);
    const double sn = std::sin(angle);
    // The shore's radius factor is at most 1 + 0.12 + 0.06.
    const double reach = 1.18 * std::max(a, b) + 1.0;
    const auto first = [](double v) {
        return static_cast<std::size_t>(std::max(0.0, std::ceil(v)));
    };
    const std::size_t x0 = first(centre.x - reach);
    const std::size_t y0 = first(centre.y - reach);
    const std::size_t x1 = std::min(scene.width, first(centre.x + reach));
    const std::size_t y1 = std::min(scene.height, first(centre.y + reach));
    for (std::size_t y = y0; y < y1; ++y)
        for (std::size_t x = x0; x < x1; ++x) {
            const double dx = static_cast<double>(x) - centre.x;
            const double dy = static_cast<double>(y) - centre.y;
            const double u = (c * dx + sn * dy) / a;
            const double v = (-sn * dx + c * dy) / b;
            const double theta = std::atan2(v, u);
            const double shore = 1.0 + 0.12 * std::cos(3.0 * theta + phase3) +
                                 0.06 * std::cos(5.0 * theta + phase5);
            if (u * u + v * v < shore * shore) {
                const std::size_t i = y * scene.width + x;
                scene.mask[i] = 0;
                scene.coherence[i] = static_cast<float>(water_coherence);
            }
        }
}

/*!
 * float32 of \p phase reduced to [-pi, pi) in float64, kept inside [-pi, pi): the
 * float32 nearest to +-pi lies outside, so values that round to it take the largest
 * float32 below pi in magnitude. The reduction is exact (IEEE remainder), so the
 * result does not depend on how it is computed.
 */
float wrap_to_float(double phase)
{
    double w = std::remainder(phase, two_pi);
    if (w >= pi) // remainder gives [-pi, pi]; pi is two_pi / 2 exactly
        w -= two_pi;
    const float f = static_cast<float>(w);
    if (std::fabs(static_cast<double>(f)) <= pi)
        return f;
    return std::copysign(std::nextafter(static_cast<float>(pi), 0.0f), f);
}

/*!
 * Adds single-look decorrelation noise of each pixel's coherence to the truth and
 * wraps it. Two uniforms per pixel, drawn whatever the coherence.
 */
void draw_wrapped(interferogram_scene& scene, splitmix64 rng)
{
    const std::size_t n = scene.true_phase.size();
    for (std::size_t i = 0; i < n; ++i) {
        const double gamma = scene.coherence[i];
        const double u = rng.uniform();
        const double c = two_pi * rng.uniform();
        const double q = std::sqrt((1.0 - gamma) * (1.0 + gamma));
        const double rho = std::sqrt(u / (1.0 - u));
        const double noise =
            std::atan2(q * rho * std::sin(c), gamma + q * rho * std::cos(c));
        scene.wrapped[i] = wrap_to_float(scene.true_phase[i] + noise);
    }
}

void flag_aliased(interferogram_scene& scene)
{
    const std::size_t w = scene.width;
    const std::vector<double>& t = scene.true_phase;
    for (std::size_t y = 0; y < scene.height; ++y)
        for (std::size_t x = 0; x < w; ++x) {
            const std::size_t i = y * w + x;
            if (x + 1 < w && std::fabs(t[i + 1] - t[i]) > pi)
                scene.aliased[i] = scene.aliased[i + 1] = 1;
            if (y + 1 < scene.height && std::fabs(t[i + w] - t[i]) > pi)
                scene.aliased[i] = scene.aliased[i + w] = 1;
        }
}

} // namespace

void interferogram_scene_config::validate() const
{
    if (width < 2)
        throw std::invalid_argument("width: must be >= 2, got " + std::to_string(width));
    if (height < 2)
        throw std::invalid_argument("height: must be >= 2, got " +
                                    std::to_string(height));
    if (width > max_pixels / height)
        throw std::invalid_argument("width, height: at most 2^30 pixels, got " +
                                    std::to_string(width) + " x " +
                                    std::to_string(height));
    require_amplitude(topography_cycles, "topography_cycles");
    require_amplitude(deformation_cycles, "deformation_cycles");
    require_amplitude(atmosphere_rad, "atmosphere_rad");
    if (!(coherence > 0.0 && coherence <= 1.0))
        throw std::invalid_argument("coherence: must be in (0, 1], got " +
                                    number_text(coherence));
}

interferogram_scene simulate_interferogram(const interferogram_scene_config& config)
{
    config.validate();
    const std::size_t width = config.width;
    const std::size_t height = config.height;
    const std::size_t n = width * height;
    const double s = static_cast<double>(std::min(width, height));

    // One stream per part, so that a part switched off moves nothing else.
    splitmix64 seeds(config.seed);
    splitmix64 layout_rng(seeds.next());
    const splitmix64 topography_rng(seeds.next());
    const splitmix64 atmosphere_rng(seeds.next());
    const splitmix64 noise_rng(seeds.next());

    const scene_layout layout(
        layout_rng, static_cast<double>(width), static_cast<double>(height));
    const double bowl_depth = uniform(layout_rng, 0.06, 0.10) * s;
    const double peak_sigma = std::clamp(0.02 * s, 3.0, 24.0);
    const double vegetation_sigma = uniform(layout_rng, 0.08, 0.12) * s;

    interferogram_scene scene;
    scene.width = width;
    scene.height = height;
    scene.true_phase.assign(n, 0.0);
    scene.wrapped.assign(n, 0.0f);
    scene.coherence.assign(n, 0.0f);
    scene.mask.assign(n, 1);
    scene.aliased.assign(n, 0);

    if (config.topography_cycles > 0.0)
        add_topography(
            scene.true_phase, width, height, config.topography_cycles, topography_rng);
    if (config.deformation_cycles > 0.0)
        add_deformation(scene.true_phase,
                        width,
                        height,
                        config.deformation_cycles,
                        layout.bowl,
                        bowl_depth);
    if (config.atmosphere_rad > 0.0)
        add_atmosphere(
            scene.true_phase, width, height, config.atmosphere_rad, atmosphere_rng);
    if (config.steep)
        add_steep_peak(scene.true_phase, width, height, layout.peak, peak_sigma);

    fill_land_coherence(scene.coherence,
                        width,
                        height,
                        config.coherence,
                        config.vegetation ? &layout.vegetation : nullptr,
                        vegetation_sigma);
    if (config.water)
        add_lake(scene, layout.lake, layout_rng, s);

    draw_wrapped(scene, noise_rng);
    flag_aliased(scene);
    return scene;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
