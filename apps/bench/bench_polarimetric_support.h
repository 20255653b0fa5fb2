/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section polarimetric's shared parts: the paper's turn (sizes, radar and calibration),
// the engine configurations, the synthetic turn, the reference products and the checks
// against them, and what the rows of bench_polarimetric.cc and
// bench_polarimetric_flowgraph.cc share.

#ifndef INCLUDED_CUDADSP_BENCH_POLARIMETRIC_SUPPORT_H
#define INCLUDED_CUDADSP_BENCH_POLARIMETRIC_SUPPORT_H

#include "bench_harness.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/gr_complex.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace polarimetric_bench {

constexpr const char* section_name = "polarimetric";

constexpr double pi = 3.14159265358979323846264338327950;
constexpr int product_count = core::polarimetric_product_count;

// The paper's turn (RMA-0, Bariloche): 2242 gates, 360 one-degree radials of 36 pulses.
constexpr std::size_t turn_gates = 2242;
constexpr std::size_t turn_pulses_per_radial = 36;
constexpr std::size_t turn_radials = 360;
// A bench "sample" is one range gate of one pulse, both polarisations: an H and a V
// complex float32, 16 bytes. A turn is 29,056,320 samples (465 MB).
constexpr std::size_t input_bytes_per_sample = 2 * sizeof(std::complex<float>);
constexpr std::size_t default_samples =
    turn_gates * turn_pulses_per_radial * turn_radials;

// The CUDA flowgraph runs several turns, so that flowgraph start-up is a small part
// of the time; the CPU flowgraph at most one (it runs at a few turns per second at
// best, and time per sample is what is compared).
constexpr std::size_t default_flowgraph_radials = 4 * turn_radials;
constexpr std::size_t cpu_flowgraph_radials_max = turn_radials;
// The flowgraph source repeats the first radials of the turn: 5 MB, within the host
// cache, so that the source is not what limits the block.
constexpr std::size_t pattern_radials = 4;
// Radials whose products are compared with the reference: spread over the turn, the
// first and the last included.
constexpr std::size_t check_radial_count = 8;
constexpr int slow_repeats_max = 3;

// Radar and calibration: C band like the paper's radar, 1 ms PRT; the calibration is
// not the identity so that every term of the product formulas is exercised.
constexpr double wavelength_m = 0.0531;
constexpr double prt_s = 1e-3;
constexpr double first_gate_m = 150.0;
constexpr double gate_spacing_m = 150.0;
constexpr double zcal_db = -35.0;
constexpr double zdr_cal_db = 0.2;
constexpr double phidp_offset_deg = 25.0;
// Noise power per receiver in units of |x|^2; the generator adds exactly this much.
constexpr double noise_power = 0.01;
constexpr double snr_threshold_db = 0.0;
constexpr std::uint64_t input_seed = 20260301;

// The antenna turns once in the 12960 pulses of the turn (27.8 deg/s at 1 ms): the
// clutter filters' clutter width.
constexpr double antenna_rate_deg_s = 360.0 / (12960 * prt_s);

// Targets.
constexpr double target_device_bandwidth_fraction = 0.60;
constexpr double target_pinned_x_h2d = 1.25;
// Issue 13: a turn with the regression filter, pinned host memory to products.
constexpr double target_pinned_regression_x_h2d = 1.5;
constexpr double target_flowgraph_pulses_per_s = 100000.0;
// The paper's GPU times for this turn, transfers included (Table 4, 4x4 blocks: GTX
// 970 93.87 ms to GTX 570 158.03 ms).
constexpr double paper_best_ms = 93.87;
constexpr double paper_worst_ms = 158.03;

inline const std::string& row_d2d = floor_row_d2d;
inline const std::string& row_h2d = floor_row_h2d;
inline const std::string& row_d2h = floor_row_d2h;
inline const std::string& row_concurrent = floor_row_h2d_d2h_concurrent;
const std::string row_device = "cuda engine, device buffers";
const std::string row_device_alternating = "cuda engine, device buffers, alternating";
const std::string row_pinned = "cuda engine, pinned host buffers";
const std::string row_device_regression =
    "cuda engine, device buffers, regression filter";
const std::string row_device_gmap = "cuda engine, device buffers, gmap filter";
const std::string row_pinned_regression =
    "cuda engine, pinned host buffers, regression filter";
const std::string row_pinned_gmap = "cuda engine, pinned host buffers, gmap filter";
const std::string row_pageable = "cuda engine, pageable host buffers";
const std::string row_cpu = "cpu engine";
const std::string row_flowgraph_cuda = "flowgraph, cuda block";
const std::string row_flowgraph_cpu = "flowgraph, cpu block";
const std::string column_bandwidth = "of d2d copy bandwidth";

inline core::polarimetric_config
make_config(std::size_t ngates, core::polarimetric_mode mode, const std::string& device)
{
    core::polarimetric_config config;
    config.ngates = ngates;
    config.pulses_per_radial = turn_pulses_per_radial;
    config.wavelength_m = wavelength_m;
    config.prt_s = prt_s;
    config.first_gate_m = first_gate_m;
    config.gate_spacing_m = gate_spacing_m;
    config.calibration.zcal_db = zcal_db;
    config.calibration.zdr_cal_db = zdr_cal_db;
    config.calibration.phidp_offset_deg = phidp_offset_deg;
    config.calibration.noise_h = noise_power;
    config.calibration.noise_v = noise_power;
    config.calibration.snr_threshold_db = snr_threshold_db;
    config.mode = mode;
    config.device = device;
    config.clutter.antenna_rate_deg_s = antenna_rate_deg_s;
    return config;
}

//! make_config() with every gate clutter-filtered by \p kind.
inline core::polarimetric_config make_filter_config(std::size_t ngates,
                                                    core::clutter_filter_kind kind,
                                                    const std::string& device)
{
    auto config = make_config(ngates, core::polarimetric_mode::simultaneous, device);
    config.clutter.kind = kind;
    return config;
}

/*
 * Dual-pol I/Q of a turn: at every gate of every radial a weather echo plus receiver
 * noise, following the signal model of the spec loosely but cheaply. The echo's pulse
 * series is an AR(1) process (a finite spectrum width) rotated by a Doppler phase per
 * PRT; V is correlated with H (RhoHV 0.89 to 0.99) with a differential phase and a
 * lower power (ZDR 0 to 3 dB). SNR, velocity, width, ZDR, RhoHV and PhiDP vary over
 * range and azimuth (SNR -5 to 30 dB, so some gates are censored; PhiDP crosses
 * +-180 degrees). Noise and innovations are uniform (from xorshift64*), not Gaussian:
 * fast, and the estimators do not care. Each radial has its own generator seeded from
 * its index, so the cube is the same for any thread count.
 */
class turn_generator
{
public:
    turn_generator(std::size_t ngates, std::uint64_t seed)
        : d_ngates(ngates), d_seed(seed)
    {
    }

    void radial(std::size_t r, std::complex<float>* h, std::complex<float>* v) const
    {
        const std::size_t ng = d_ngates;
        std::vector<gate> gates(ng);
        const double az = 2 * pi * double(r) / double(turn_radials);
        for (std::size_t g = 0; g < ng; ++g) {
            const double x = double(g);
            const double snr_db =
                -5.0 + 35.0 * 0.5 * (1.0 + std::sin(2 * pi * x / 700.0 + 4.0 * az));
            const double zdr_db = 1.5 + 1.5 * std::sin(2 * pi * x / 400.0 + az);
            const double s_h = noise_power * std::pow(10.0, snr_db / 10.0);
            const double s_v = s_h / std::pow(10.0, zdr_db / 10.0);
            const double a = 0.95 - 0.35 * 0.5 * (1.0 + std::cos(x / 150.0 + 8.0 * az));
            const double rho = 0.99 - 0.1 * 0.5 * (1.0 + std::sin(x / 200.0 - 18.0 * az));
            const double psi = 0.8 * pi * std::sin(az + x / 300.0);
            const double phidp = (-150.0 + 330.0 * x / double(ng)) * pi / 180.0;
            auto& s = gates[g];
            s.amp_h = float(std::sqrt(s_h));
            s.amp_v = float(std::sqrt(s_v));
            s.a = float(a);
            s.b = float(std::sqrt(1.0 - a * a));
            s.rho = float(rho);
            s.rho_c = float(std::sqrt(1.0 - rho * rho));
            s.step = std::polar(1.0f, float(psi));
            s.phasor = std::complex<float>(1.0f, 0.0f);
            // conj: arg(h conj(v)) = PhiDP
            s.diff = std::polar(1.0f, float(-phidp));
        }

        std::uint64_t state = splitmix64(d_seed ^ splitmix64(r + 1));
        // Uniform components with unit complex power: each in [-sqrt(1.5), sqrt(1.5)).
        const float unit = float(std::sqrt(1.5) / 2147483648.0);
        const float noise = float(std::sqrt(noise_power));
        auto uniform_pair = [&] {
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            const std::uint64_t x = state * 0x2545F4914F6CDD1DULL;
            return std::complex<float>(float(std::int32_t(std::uint32_t(x))) * unit,
                                       float(std::int32_t(std::uint32_t(x >> 32))) *
                                           unit);
        };

        for (std::size_t n = 0; n < turn_pulses_per_radial; ++n) {
            std::complex<float>* hp = h + n * ng;
            std::complex<float>* vp = v + n * ng;
            for (std::size_t g = 0; g < ng; ++g) {
                auto& s = gates[g];
                const std::complex<float> w1 = uniform_pair();
                const std::complex<float> w2 = uniform_pair();
                if (n == 0) {
                    s.x1 = w1;
                    s.x2 = w2;
                } else {
                    s.x1 = s.a * s.x1 + s.b * w1;
                    s.x2 = s.a * s.x2 + s.b * w2;
                }
                const std::complex<float> echo_h = s.x1 * s.phasor;
                const std::complex<float> echo_v =
                    (s.rho * s.x1 + s.rho_c * s.x2) * s.phasor * s.diff;
                hp[g] = s.amp_h * echo_h + noise * uniform_pair();
                vp[g] = s.amp_v * echo_v + noise * uniform_pair();
                s.phasor *= s.step;
            }
        }
    }

    //! Radials [0, nradials) into h and v, on all hardware threads.
    void fill(std::size_t nradials, std::complex<float>* h, std::complex<float>* v) const
    {
        const std::size_t spr = d_ngates * turn_pulses_per_radial;
        const std::size_t threads = std::max<std::size_t>(
            1, std::min<std::size_t>(std::thread::hardware_concurrency(), nradials));
        std::vector<std::thread> workers;
        for (std::size_t t = 0; t < threads; ++t)
            workers.emplace_back([=] {
                for (std::size_t r = t; r < nradials; r += threads)
                    radial(r, h + r * spr, v + r * spr);
            });
        for (auto& w : workers)
            w.join();
    }

private:
    struct gate {
        float amp_h, amp_v, a, b, rho, rho_c;
        std::complex<float> step, phasor, diff, x1, x2;
    };

    static std::uint64_t splitmix64(std::uint64_t x)
    {
        x += 0x9E3779B97F4A7C15ULL;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
        return x ^ (x >> 31);
    }

    const std::size_t d_ngates;
    const std::uint64_t d_seed;
};

//! Pointers to the product arrays of \p per_product floats each, in one block.
inline std::array<float*, product_count> product_pointers(float* base,
                                                          std::size_t per_product)
{
    std::array<float*, product_count> p;
    for (int k = 0; k < product_count; ++k)
        p[k] = base + std::size_t(k) * per_product;
    return p;
}

// Outputs are poisoned with these bytes before each checked run: 0x7f7f7f7f is a
// finite float (3.4e38) that no product takes, unlike NaN, which censored gates hold.
constexpr int poison_byte = 0x7f;

inline std::size_t count_unwritten(const float* products, std::size_t n)
{
    std::uint32_t poison_bits;
    std::memset(&poison_bits, poison_byte, sizeof poison_bits);
    std::size_t unwritten = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t bits;
        std::memcpy(&bits, products + i, sizeof bits);
        unwritten += bits == poison_bits;
    }
    return unwritten;
}

/*
 * Reference products of some radials: the CPU engine (float64 moment sums, the
 * formulas of the spec), one radial per call, so that a batched or CUDA run of the
 * whole turn is compared with radials computed on their own.
 */
class reference_products
{
public:
    reference_products(const core::polarimetric_config& config,
                       const std::complex<float>* h,
                       const std::complex<float>* v,
                       std::vector<std::size_t> radials)
        : d_ngates(config.ngates),
          d_radials(std::move(radials)),
          d_values(d_radials.size() * product_count * config.ngates)
    {
        core::polarimetric_config cpu_config = config;
        cpu_config.device = "cpu";
        cpu_config.chunk_radials = 0;
        auto cpu = core::polarimetric_processor::make(cpu_config);
        const std::size_t spr = config.samples_per_radial();
        for (std::size_t i = 0; i < d_radials.size(); ++i) {
            const auto out = product_pointers(radial_values(i), d_ngates);
            cpu->process(h + d_radials[i] * spr, v + d_radials[i] * spr, 1, out.data());
        }
    }

    const std::vector<std::size_t>& radials() const { return d_radials; }
    //! Product p of the i-th reference radial, ngates values.
    const float* product(std::size_t i, int p) const
    {
        return d_values.data() + (i * product_count + std::size_t(p)) * d_ngates;
    }
    //! Fraction of reference gates censored (products 0 to 5 NaN).
    double censored_fraction() const
    {
        std::size_t censored = 0;
        for (std::size_t i = 0; i < d_radials.size(); ++i) {
            const float* zh = product(i, core::product_zh);
            for (std::size_t g = 0; g < d_ngates; ++g)
                censored += std::isnan(zh[g]);
        }
        return double(censored) / double(d_radials.size() * d_ngates);
    }

private:
    float* radial_values(std::size_t i)
    {
        return d_values.data() + i * product_count * d_ngates;
    }

    const std::size_t d_ngates;
    const std::vector<std::size_t> d_radials;
    std::vector<float> d_values;
};

// Two backends that sum in the same order in float64 differ by the rounding of the
// final functions (log10, atan2, sqrt; FMA contraction), far under these: 1e-5
// relative in linear power for the dB products, 1e-5 of the Nyquist velocity for V
// and W, 1e-3 degree for PhiDP, 1e-5 for RhoHV and CPA, plus two float32 ulps of the
// value. With a clutter filter, ten times these (the filters' own transcendental
// functions), and a decision (order, notch) that rounds the other way at a few gates.
constexpr double filter_tolerance_scale = 10.0;
constexpr double filter_mismatch_fraction = 1e-3;

inline double tolerance(int product, double reference, double nyquist)
{
    const double ulps = 2.4e-7 * std::fabs(reference);
    switch (product) {
    case core::product_zh:
    case core::product_zdr:
    case core::product_snr_h:
    case core::product_clutter_removed_db:
        return 4.4e-5 + ulps; // 10 log10(1 + 1e-5) dB
    case core::product_velocity:
    case core::product_width:
        return 1e-5 * nyquist + ulps;
    case core::product_phidp:
        return 1e-3 + ulps;
    default:
        return 1e-5 + ulps;
    }
}

inline bool product_matches(
    int product, float value, float reference, double nyquist, double tolerance_scale)
{
    if (std::isnan(value) || std::isnan(reference))
        return std::isnan(value) && std::isnan(reference);
    if (std::isinf(value) || std::isinf(reference))
        return value == reference;
    double diff = double(value) - double(reference);
    // Angles compare on the circle: -179.9999 and 180 degrees are neighbours.
    if (product == core::product_phidp)
        diff = std::remainder(diff, 360.0);
    return std::fabs(diff) <= tolerance_scale * tolerance(product, reference, nyquist);
}

/*
 * Compare \p products (the whole run, product p of radial r at
 * products[p * per_product + r * ngates + g]) with the reference on the reference
 * radials, offset by \p first_radial (the radial index of products' radial 0), and
 * check that nothing is left poisoned. Sets the row's status and note. With a clutter
 * filter, the tolerances are filter_tolerance_scale wider and a fraction
 * filter_mismatch_fraction of the values may differ more.
 */
inline void check_products(row& r,
                           const reference_products& reference,
                           const core::polarimetric_config& config,
                           const float* products,
                           std::size_t nradials,
                           std::size_t first_radial = 0)
{
    const bool filtered = config.clutter.kind != core::clutter_filter_kind::none;
    const double tolerance_scale = filtered ? filter_tolerance_scale : 1.0;
    const double allowed_fraction = filtered ? filter_mismatch_fraction : 0.0;
    const std::size_t ngates = config.ngates;
    const std::size_t per_product = nradials * ngates;
    const double nyquist = config.nyquist_velocity();
    const double threshold = config.calibration.snr_threshold_db;

    std::size_t mismatches = 0;
    std::size_t compared = 0;
    std::string first;
    for (std::size_t i = 0; i < reference.radials().size(); ++i) {
        const std::size_t radial = reference.radials()[i];
        if (radial < first_radial || radial >= first_radial + nradials)
            continue;
        const std::size_t at = (radial - first_radial) * ngates;
        const float* ref_snr = reference.product(i, core::product_snr_h);
        for (int p = 0; p < product_count; ++p) {
            const float* out = products + std::size_t(p) * per_product + at;
            const float* ref = reference.product(i, p);
            for (std::size_t g = 0; g < ngates; ++g) {
                ++compared;
                if (product_matches(p, out[g], ref[g], nyquist, tolerance_scale))
                    continue;
                // A gate whose SNR sits on the threshold may be censored by one
                // backend and not the other: not a mismatch.
                if (p != core::product_snr_h &&
                    std::isnan(out[g]) != std::isnan(ref[g]) &&
                    std::fabs(double(ref_snr[g]) - threshold) < 1e-4)
                    continue;
                if (!mismatches) {
                    std::ostringstream os;
                    os << core::product_name(p) << " at radial " << radial << " gate "
                       << g << ": " << out[g] << ", reference " << ref[g];
                    first = os.str();
                }
                ++mismatches;
            }
        }
    }
    const std::size_t unwritten = count_unwritten(products, product_count * per_product);
    if (compared == 0) {
        r.status = row_status::failed;
        r.note = "no reference radial in the output";
    } else if (unwritten) {
        r.status = row_status::failed;
        r.note = std::to_string(unwritten) + " of " +
                 std::to_string(product_count * per_product) +
                 " product values were not written";
    } else if (double(mismatches) > allowed_fraction * double(compared)) {
        r.status = row_status::failed;
        r.note = std::to_string(mismatches) + " of " + std::to_string(compared) +
                 " values differ from the reference, first " + first;
    } else {
        r.status = row_status::ok;
        if (mismatches)
            r.note = std::to_string(mismatches) + " of " + std::to_string(compared) +
                     " values beyond the tolerance (allowed), first " + first;
    }
}

inline std::string megabytes(double bytes)
{
    std::ostringstream os;
    os.precision(4);
    os << bytes / 1e6 << " MB";
    return os.str();
}

//! The run's sizes, from the options.
struct run_sizes {
    std::size_t ngates;
    std::size_t spr; // samples per radial
    std::size_t nradials;
    std::size_t n; // samples of the turn: gates x pulses
    std::size_t input_bytes;
    std::size_t per_product;
    std::size_t product_values;
    std::size_t product_bytes;
    std::size_t flowgraph_cuda_radials;
    std::size_t flowgraph_cpu_radials;
    int repeats;
    int slow_repeats;
};

/*!
 * The turn, in pinned memory where a device is there (the pinned rows use it as is);
 * the CPU rows read the same buffers.
 */
struct turn_input {
    core::pinned_buffer<std::complex<float>> pinned_h, pinned_v;
    std::vector<std::complex<float>> pageable_h, pageable_v;
    const std::complex<float>* h = nullptr;
    const std::complex<float>* v = nullptr;
};

//! What the engine rows run, check against and write into.
struct engine_rows_context {
    const run_sizes& s;
    const turn_input& input;
    const core::polarimetric_config& simultaneous;
    const core::polarimetric_config& alternating;
    const reference_products& reference;
    const reference_products& reference_alternating;
    const core::polarimetric_config& regression;
    const core::polarimetric_config& gmap;
    const reference_products& reference_regression;
    const reference_products& reference_gmap;
    std::vector<float>& products;
};

/*!
 * The polarimetric_products_cf block in a flowgraph, on the CUDA backend (when there is
 * one) and the CPU's, fed the first \p pattern_n radials of the turn over and over
 * (bench_polarimetric_flowgraph.cc).
 */
void measure_flowgraph_rows(section_report& report,
                            const run_sizes& s,
                            const engine_rows_context& c,
                            std::size_t pattern_n,
                            const bench_device& device);

} // namespace polarimetric_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr

#endif // INCLUDED_CUDADSP_BENCH_POLARIMETRIC_SUPPORT_H
