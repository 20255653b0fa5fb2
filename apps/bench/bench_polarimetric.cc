/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section polarimetric: the polarimetric product engine on the full antenna turn of
// Denham et al. 2017 (2242 gates x 12960 pulses x 2 polarisations, 36 pulses per
// radial, 360 radials), from device buffers (simultaneous and alternating mode, and
// with the regression and GMAP clutter filters), from pinned host buffers (with and
// without the filters) and pageable ones, on the CPU backend, and the
// polarimetric_products_cf block in a flowgraph, next to the copy floors of the same
// bytes. The engine reads 16 bytes per gate and pulse (an H and a V complex float32)
// and writes 9 floats per gate and radial (1/16 of what it reads at 36 pulses per
// radial): device-resident it is bound by reading the input, with host buffers by the
// upload of the input. A clutter filter reads every gate's pulses a second time (from
// L2) and adds float64 arithmetic per pulse; the filter rows filter every gate.

#include "bench_harness.h"
#include "pattern_source.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/cudadsp/polarimetric_products_cf.h>
#include <gnuradio/gr_complex.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
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

namespace {

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

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string& row_d2h = floor_row_d2h;
const std::string& row_concurrent = floor_row_h2d_d2h_concurrent;
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

core::polarimetric_config
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
core::polarimetric_config make_filter_config(std::size_t ngates,
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
std::array<float*, product_count> product_pointers(float* base, std::size_t per_product)
{
    std::array<float*, product_count> p;
    for (int k = 0; k < product_count; ++k)
        p[k] = base + std::size_t(k) * per_product;
    return p;
}

// Outputs are poisoned with these bytes before each checked run: 0x7f7f7f7f is a
// finite float (3.4e38) that no product takes, unlike NaN, which censored gates hold.
constexpr int poison_byte = 0x7f;

std::size_t count_unwritten(const float* products, std::size_t n)
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

double tolerance(int product, double reference, double nyquist)
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

bool product_matches(
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
void check_products(row& r,
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

polarimetric_products_cf::sptr make_block(std::size_t ngates, const std::string& device)
{
    return polarimetric_products_cf::make(int(ngates),
                                          int(turn_pulses_per_radial),
                                          wavelength_m,
                                          prt_s,
                                          first_gate_m,
                                          gate_spacing_m,
                                          zcal_db,
                                          zdr_cal_db,
                                          phidp_offset_deg,
                                          noise_power,
                                          noise_power,
                                          snr_threshold_db,
                                          "simultaneous",
                                          device);
}

/*
 * The block between a pulse source and null sinks, \p pulses pulses per run, timed on
 * the host clock around tb->run() (flowgraph start and stop included, as a user sees
 * them). Before timing, the pattern goes once through a fresh block into vector sinks
 * and is checked against the reference. \p upstream_pulses: the source's minimum
 * output buffer, in pulses.
 */
void measure_flowgraph(row& r,
                       const std::string& device,
                       const core::polarimetric_config& config,
                       const std::vector<gr_complex>& pattern_h,
                       const std::vector<gr_complex>& pattern_v,
                       const reference_products& reference,
                       std::size_t pulses,
                       int upstream_pulses,
                       int repeats)
{
    const std::size_t ngates = config.ngates;
    const std::size_t pattern_pulses = pattern_h.size() / ngates;
    const std::size_t pattern_radials_n = pattern_pulses / config.pulses_per_radial;
    {
        auto tb = gr::make_top_block("polarimetric_check");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_h),
                pattern_source::bytes_of(pattern_v) },
            ngates * sizeof(gr_complex),
            pattern_pulses);
        auto block = make_block(ngates, device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        std::vector<gr::blocks::vector_sink_f::sptr> sinks;
        for (int p = 0; p < product_count; ++p) {
            sinks.push_back(gr::blocks::vector_sink_f::make(int(ngates)));
            tb->connect(block, p, sinks.back(), 0);
        }
        tb->run();
        std::vector<float> products(product_count * pattern_radials_n * ngates);
        std::memset(products.data(), poison_byte, products.size() * sizeof(float));
        bool complete = true;
        for (int p = 0; p < product_count; ++p) {
            const auto data = sinks[p]->data();
            if (data.size() != pattern_radials_n * ngates) {
                complete = false;
                r.status = row_status::failed;
                r.note = std::string("block produced ") + std::to_string(data.size()) +
                         " values of " + core::product_name(p) + ", expected " +
                         std::to_string(pattern_radials_n * ngates);
                break;
            }
            std::copy(data.begin(),
                      data.end(),
                      products.begin() + std::ptrdiff_t(p * pattern_radials_n * ngates));
        }
        if (complete)
            check_products(r, reference, config, products.data(), pattern_radials_n);
    }

    // A fresh flowgraph for every run, built outside the timed region, as a user runs
    // one: GNU Radio 3.10.5 applies set_min_output_buffer only to a block's first run.
    auto build = [&](std::size_t run_pulses) {
        auto tb = gr::make_top_block("polarimetric_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{
                pattern_source::bytes_of(pattern_h),
                pattern_source::bytes_of(pattern_v) },
            ngates * sizeof(gr_complex),
            run_pulses);
        source->set_min_output_buffer(upstream_pulses);
        auto block = make_block(ngates, device);
        tb->connect(source, 0, block, 0);
        tb->connect(source, 1, block, 1);
        for (int p = 0; p < product_count; ++p)
            tb->connect(block, p, gr::blocks::null_sink::make(sizeof(float) * ngates), 0);
        return tb;
    };
    // Warm-up (threads, the CUDA context, first launches) on a shorter run.
    build(std::min(pulses, 16 * pattern_pulses))->run();

    // Built one at a time and released after its run: each holds large buffers.
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        auto tb = build(pulses);
        const auto begin = std::chrono::steady_clock::now();
        tb->run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }

    const std::size_t radials = pulses / config.pulses_per_radial;
    r.clock = "wall";
    r.samples = double(pulses * ngates);
    r.bytes = double(pulses * ngates * input_bytes_per_sample +
                     radials * ngates * product_count * sizeof(float));
    r.time = summarize(std::move(ms));
    if (r.note.empty())
        r.note =
            std::to_string(std::llround(double(pulses) / (r.time.median_ms * 1e-3))) +
            " pulses/s";
}

std::string megabytes(double bytes)
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

run_sizes make_run_sizes(const bench_options& options)
{
    run_sizes s;
    s.ngates = turn_gates;
    s.spr = s.ngates * turn_pulses_per_radial;
    s.nradials = std::max<std::size_t>(1, options.samples_or(default_samples) / s.spr);
    s.n = s.nradials * s.spr;
    s.input_bytes = s.n * input_bytes_per_sample;
    s.per_product = s.nradials * s.ngates;
    s.product_values = product_count * s.per_product;
    s.product_bytes = s.product_values * sizeof(float);
    s.flowgraph_cuda_radials = std::max<std::size_t>(
        1,
        options.flowgraph_samples ? options.flowgraph_samples / s.spr
                                  : default_flowgraph_radials);
    s.flowgraph_cpu_radials =
        std::min(s.flowgraph_cuda_radials, cpu_flowgraph_radials_max);
    s.repeats = options.repeats;
    s.slow_repeats = std::min(s.repeats, slow_repeats_max);
    return s;
}

void add_parameters(section_report& report, const run_sizes& s)
{
    report.add_parameter("gates", std::to_string(s.ngates));
    report.add_parameter("pulses", std::to_string(s.nradials * turn_pulses_per_radial));
    report.add_parameter("radials", std::to_string(s.nradials));
    report.add_parameter("pulses_per_radial", std::to_string(turn_pulses_per_radial));
    report.add_parameter("samples", std::to_string(s.n));
    report.add_parameter("input_bytes", std::to_string(s.input_bytes));
    report.add_parameter("product_bytes", std::to_string(s.product_bytes));
    report.add_parameter("repeats", std::to_string(s.repeats));
    report.add_parameter("cpu_repeats", std::to_string(s.slow_repeats));
    report.add_parameter(
        "flowgraph_pulses_cuda",
        std::to_string(s.flowgraph_cuda_radials * turn_pulses_per_radial));
    report.add_parameter(
        "flowgraph_pulses_cpu",
        std::to_string(s.flowgraph_cpu_radials * turn_pulses_per_radial));
    report.add_parameter(
        "input", "AR(1) echo + noise, SNR -5..30 dB, seed " + std::to_string(input_seed));
}

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

turn_input make_turn_input(const run_sizes& s, const bench_device& device)
{
    turn_input in;
    std::complex<float>* fill_h;
    std::complex<float>* fill_v;
    if (device.cuda) {
        in.pinned_h = core::pinned_buffer<std::complex<float>>(s.n);
        in.pinned_v = core::pinned_buffer<std::complex<float>>(s.n);
        fill_h = in.pinned_h.get();
        fill_v = in.pinned_v.get();
    } else {
        in.pageable_h.resize(s.n);
        in.pageable_v.resize(s.n);
        fill_h = in.pageable_h.data();
        fill_v = in.pageable_v.data();
    }
    progress(section_name,
             "generating the turn: " + std::to_string(s.nradials) + " radials x " +
                 std::to_string(turn_pulses_per_radial) + " pulses x " +
                 std::to_string(s.ngates) + " gates x 2 (" + megabytes(s.input_bytes) +
                 ")");
    turn_generator(s.ngates, input_seed).fill(s.nradials, fill_h, fill_v);
    in.h = fill_h;
    in.v = fill_v;
    return in;
}

//! The radials checked against the reference: spread over the turn, the first and the
//! last included.
std::vector<std::size_t> spread_check_radials(std::size_t nradials)
{
    std::vector<std::size_t> check_radials;
    for (std::size_t k = 0; k < check_radial_count; ++k) {
        const std::size_t radial =
            k * (nradials - 1) / std::max<std::size_t>(1, check_radial_count - 1);
        if (check_radials.empty() || check_radials.back() != radial)
            check_radials.push_back(radial);
    }
    return check_radials;
}

//! \p check_radials and the first \p pattern_n radials (the flowgraphs' pattern).
std::vector<std::size_t> with_pattern_radials(std::vector<std::size_t> check_radials,
                                              std::size_t pattern_n)
{
    for (std::size_t radial = 0; radial < pattern_n; ++radial)
        if (std::find(check_radials.begin(), check_radials.end(), radial) ==
            check_radials.end())
            check_radials.push_back(radial);
    return check_radials;
}

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

void measure_copy_floors(section_report& report, const run_sizes& s)
{
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(s.input_bytes, double(s.n), s.repeats);
        r.note = "input, " + megabytes(s.input_bytes) + "; read + write counted";
    });
    report.measure(row_h2d, [&](row& r) {
        r = floor_h2d_pinned(s.input_bytes, double(s.n), s.repeats);
        r.note = "input, " + megabytes(s.input_bytes);
    });
    report.measure(row_d2h, [&](row& r) {
        r = floor_d2h_pinned(s.product_bytes, double(s.n), s.repeats);
        r.note = "products, " + megabytes(s.product_bytes);
    });
    report.measure(row_concurrent, [&](row& r) {
        r = floor_h2d_d2h_concurrent_pinned(
            s.input_bytes, s.product_bytes, double(s.n), s.repeats);
        r.note = "input up, products down";
    });
}

/*!
 * Device-resident: the kernels alone, inputs and products in device memory.
 * \p read_bytes: the input bytes the mode's products need.
 */
void measure_engine_device_buffers(row& r,
                                   const engine_rows_context& c,
                                   const core::polarimetric_config& config,
                                   const reference_products& ref,
                                   double read_bytes)
{
    const run_sizes& s = c.s;
    const std::size_t n = s.n;
    auto engine = core::polarimetric_processor::make(config);
    core::device_buffer<std::complex<float>> d_h(n);
    core::device_buffer<std::complex<float>> d_v(n);
    core::device_buffer<float> d_products(s.product_values);
    const auto d_ptrs = product_pointers(d_products.get(), s.per_product);
    core::cuda_stream stream;
    // Everything on the one non-blocking stream: it does not order itself after the
    // legacy default stream that cudaMemcpy and cudaMemset would use.
    CUDADSP_CUDA(cudaMemcpyAsync(d_h.get(),
                                 c.input.h,
                                 n * sizeof(std::complex<float>),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(cudaMemcpyAsync(d_v.get(),
                                 c.input.v,
                                 n * sizeof(std::complex<float>),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    CUDADSP_CUDA(
        cudaMemsetAsync(d_products.get(), poison_byte, s.product_bytes, stream.get()));
    engine->process_device(d_h.get(), d_v.get(), s.nradials, d_ptrs.data(), stream.get());
    CUDADSP_CUDA(cudaMemcpyAsync(c.products.data(),
                                 d_products.get(),
                                 s.product_bytes,
                                 cudaMemcpyDeviceToHost,
                                 stream.get()));
    stream.synchronize();
    check_products(r, ref, config, c.products.data(), s.nradials);

    r.clock = "events";
    r.samples = double(n);
    r.bytes = read_bytes + double(s.product_bytes);
    r.time = time_cuda(stream.get(), 2, s.repeats, [&] {
        engine->process_device(
            d_h.get(), d_v.get(), s.nradials, d_ptrs.data(), stream.get());
    });
}

//! process() with host pointers returns once the products are in host memory.
void measure_engine_host_path(row& r,
                              const engine_rows_context& c,
                              const core::polarimetric_config& config,
                              const reference_products& ref,
                              const std::complex<float>* in_h,
                              const std::complex<float>* in_v,
                              float* out)
{
    const run_sizes& s = c.s;
    auto engine = core::polarimetric_processor::make(config);
    const auto out_ptrs = product_pointers(out, s.per_product);
    std::memset(out, poison_byte, s.product_bytes);
    engine->process(in_h, in_v, s.nradials, out_ptrs.data());
    check_products(r, ref, config, out, s.nradials);

    r.clock = "wall";
    r.samples = double(s.n);
    r.bytes = double(s.input_bytes + s.product_bytes);
    r.time = time_host(
        1, s.repeats, [&] { engine->process(in_h, in_v, s.nradials, out_ptrs.data()); });
}

void measure_cuda_rows(section_report& report,
                       const engine_rows_context& c,
                       const bench_device& device)
{
    const run_sizes& s = c.s;
    warn_if_cache_resident(section_name, s.input_bytes, device);

    progress(section_name, "copy floors");
    measure_copy_floors(report, s);

    progress(section_name, row_device);
    report.measure(row_device, [&](row& r) {
        measure_engine_device_buffers(
            r, c, c.simultaneous, c.reference, double(s.input_bytes));
    });
    progress(section_name, row_device_alternating);
    report.measure(row_device_alternating, [&](row& r) {
        // The products use the co-polar input only; GB/s counts what they need.
        measure_engine_device_buffers(
            r, c, c.alternating, c.reference_alternating, double(s.input_bytes) / 2);
        if (r.status == row_status::ok)
            r.note = "GB/s counts the co-polar input (the products' input) only";
    });

    progress(section_name, row_pinned);
    report.measure(row_pinned, [&](row& r) {
        core::pinned_buffer<float> out(s.product_values);
        measure_engine_host_path(
            r, c, c.simultaneous, c.reference, c.input.h, c.input.v, out.get());
    });

    progress(section_name, row_pageable);
    report.measure(row_pageable, [&](row& r) {
        const std::vector<std::complex<float>> in_h(c.input.h, c.input.h + s.n);
        const std::vector<std::complex<float>> in_v(c.input.v, c.input.v + s.n);
        measure_engine_host_path(r,
                                 c,
                                 c.simultaneous,
                                 c.reference,
                                 in_h.data(),
                                 in_v.data(),
                                 c.products.data());
    });

    const struct {
        const std::string& device_row;
        const std::string& pinned_row;
        const core::polarimetric_config& config;
        const reference_products& ref;
    } filters[] = {
        { row_device_regression,
          row_pinned_regression,
          c.regression,
          c.reference_regression },
        { row_device_gmap, row_pinned_gmap, c.gmap, c.reference_gmap },
    };
    for (const auto& f : filters) {
        progress(section_name, f.device_row);
        report.measure(f.device_row, [&](row& r) {
            measure_engine_device_buffers(r, c, f.config, f.ref, double(s.input_bytes));
        });
        progress(section_name, f.pinned_row);
        report.measure(f.pinned_row, [&](row& r) {
            core::pinned_buffer<float> out(s.product_values);
            measure_engine_host_path(
                r, c, f.config, f.ref, c.input.h, c.input.v, out.get());
        });
    }
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d,
                              row_d2h,
                              row_concurrent,
                              row_device,
                              row_device_alternating,
                              row_pinned,
                              row_pageable,
                              row_device_regression,
                              row_pinned_regression,
                              row_device_gmap,
                              row_pinned_gmap })
        report.skip(name, device.skip_reason);
}

void measure_cpu_engine(row& r, const engine_rows_context& c)
{
    const run_sizes& s = c.s;
    const auto product_ptrs = product_pointers(c.products.data(), s.per_product);
    auto engine = core::polarimetric_processor::make(
        make_config(s.ngates, c.simultaneous.mode, "cpu"));
    std::memset(c.products.data(), poison_byte, s.product_bytes);
    engine->process(c.input.h, c.input.v, s.nradials, product_ptrs.data());
    check_products(r, c.reference, c.simultaneous, c.products.data(), s.nradials);

    r.clock = "wall";
    r.samples = double(s.n);
    r.bytes = double(s.input_bytes + s.product_bytes);
    r.time = time_host(0, s.slow_repeats, [&] {
        engine->process(c.input.h, c.input.v, s.nradials, product_ptrs.data());
    });
}

void measure_flowgraph_rows(section_report& report,
                            const run_sizes& s,
                            const engine_rows_context& c,
                            std::size_t pattern_n,
                            const bench_device& device)
{
    const std::vector<gr_complex> pattern_h(c.input.h, c.input.h + pattern_n * s.spr);
    const std::vector<gr_complex> pattern_v(c.input.v, c.input.v + pattern_n * s.spr);
    // The block's CUDA backend gathers GPU batches of radials in work(); its upstream
    // buffer must hold two of them, or it warns and launches small ones (batch_gate).
    const int upstream_pulses = polarimetric_products_cf::upstream_buffer_pulses(
        int(s.ngates), int(turn_pulses_per_radial));
    report.add_parameter("flowgraph_source_min_output_buffer",
                         std::to_string(upstream_pulses) + " pulses");
    if (device.cuda) {
        progress(section_name, row_flowgraph_cuda);
        report.measure(row_flowgraph_cuda, [&](row& r) {
            measure_flowgraph(r,
                              device.device_string,
                              c.simultaneous,
                              pattern_h,
                              pattern_v,
                              c.reference,
                              s.flowgraph_cuda_radials * turn_pulses_per_radial,
                              upstream_pulses,
                              s.slow_repeats);
        });
    } else {
        report.skip(row_flowgraph_cuda, device.skip_reason);
    }
    progress(section_name, row_flowgraph_cpu);
    report.measure(row_flowgraph_cpu, [&](row& r) {
        measure_flowgraph(r,
                          "cpu",
                          c.simultaneous,
                          pattern_h,
                          pattern_v,
                          c.reference,
                          s.flowgraph_cpu_radials * turn_pulses_per_radial,
                          upstream_pulses,
                          s.slow_repeats);
    });
}

void add_ratios_and_targets(section_report& report, std::size_t ngates)
{
    for (const auto& name :
         { row_device, row_device_alternating, row_device_regression, row_device_gmap }) {
        report.ratio_to(name, row_d2d, "d2d copy");
        report.bandwidth_fraction_of(name, row_d2d, column_bandwidth);
    }
    report.target_min_ratio(
        row_device, column_bandwidth, target_device_bandwidth_fraction);
    for (const auto& name : { row_pinned,
                              row_pageable,
                              row_flowgraph_cuda,
                              row_pinned_regression,
                              row_pinned_gmap }) {
        report.ratio_to(name, row_h2d, "pinned H2D");
        report.ratio_to(name, row_concurrent, "pinned H2D||D2H");
    }
    report.target_max_ratio(row_pinned, "x pinned H2D", target_pinned_x_h2d);
    report.target_max_ratio(
        row_pinned_regression, "x pinned H2D", target_pinned_regression_x_h2d);
    report.target_min_rate(
        row_flowgraph_cuda, double(ngates), target_flowgraph_pulses_per_s, "pulses");
    // The flowgraph's cost over the bare engine: scheduler, buffers, the source.
    report.ratio_to(row_flowgraph_cpu, row_cpu, "cpu engine");
    for (const auto& name :
         { row_device, row_device_alternating, row_pinned, row_pageable })
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
    report.speedup_over(row_flowgraph_cuda, row_flowgraph_cpu, "speed-up vs cpu");
}

//! The paper's times for the turn, next to the pinned row's time per turn.
std::string paper_comparison(const section_report& report)
{
    std::ostringstream os;
    os << std::fixed << std::setprecision(2)
       << "paper (Denham et al. 2017, the same turn, 4x4 blocks, pinned memory): "
       << paper_best_ms << " to " << paper_worst_ms
       << " ms per turn including transfers (GTX 970 to GTX 570)";
    for (const auto& r : report.rows()) {
        if (r.name == row_pinned && r.status == row_status::ok && r.samples > 0) {
            const double turn_ms = r.time.median_ms * double(default_samples) / r.samples;
            os << "; cuda engine, pinned host buffers: " << turn_ms << " ms per turn, "
               << std::setprecision(1) << paper_best_ms / turn_ms
               << "x faster than their best";
        }
    }
    return os.str();
}

void add_notes(section_report& report,
               std::size_t ngates,
               const std::vector<std::size_t>& check_radials,
               std::size_t pattern_n)
{
    report.add_note(
        "a sample is one range gate of one pulse, H and V (2 complex float32, " +
        std::to_string(input_bytes_per_sample) + " bytes); a radial's " +
        std::to_string(product_count) +
        " products are float32 per gate; pulses/s = Msamples/s * 1e6 / " +
        std::to_string(ngates));
    report.add_note("'" + column_bandwidth +
                    "': (input bytes read + product bytes written) per second over the "
                    "d2d copy's (bytes read + bytes written) per second; 'x d2d copy' "
                    "compares times: the kernel's over a copy of the input bytes");
    std::string radial_list;
    for (const auto radial : check_radials)
        radial_list += (radial_list.empty() ? "" : ",") + std::to_string(radial);
    report.add_note("check: the products of radials " + radial_list +
                    " (flowgraphs: radials 0.." + std::to_string(pattern_n - 1) +
                    ") against the cpu engine run radial by radial; every product of "
                    "the turn checked for being written");
    report.add_note(paper_comparison(report));
}

void run_polarimetric(const bench_options& options,
                      const bench_device& device,
                      section_report& report)
{
    const run_sizes s = make_run_sizes(options);
    const auto simultaneous = make_config(
        s.ngates, core::polarimetric_mode::simultaneous, device.device_string);
    const auto alternating =
        make_config(s.ngates, core::polarimetric_mode::alternating, device.device_string);
    add_parameters(report, s);

    const turn_input input = make_turn_input(s, device);
    const std::vector<std::size_t> check_radials = spread_check_radials(s.nradials);
    const std::size_t pattern_n = std::min(pattern_radials, s.nradials);

    progress(section_name, "reference products (cpu engine, radial by radial)");
    const reference_products reference(
        simultaneous, input.h, input.v, with_pattern_radials(check_radials, pattern_n));
    const reference_products reference_alternating(
        alternating, input.h, input.v, check_radials);
    const auto regression = make_filter_config(
        s.ngates, core::clutter_filter_kind::regression, device.device_string);
    const auto gmap = make_filter_config(
        s.ngates, core::clutter_filter_kind::gmap, device.device_string);
    const reference_products reference_regression(
        regression, input.h, input.v, check_radials);
    const reference_products reference_gmap(gmap, input.h, input.v, check_radials);
    std::ostringstream censored;
    censored.precision(3);
    censored << 100.0 * reference.censored_fraction() << "%";
    report.add_parameter("censored", censored.str());

    std::vector<float> products(s.product_values);
    const engine_rows_context context{ s,
                                       input,
                                       simultaneous,
                                       alternating,
                                       reference,
                                       reference_alternating,
                                       regression,
                                       gmap,
                                       reference_regression,
                                       reference_gmap,
                                       products };

    if (device.cuda)
        measure_cuda_rows(report, context, device);
    else
        skip_cuda_rows(report, device);

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_engine(r, context); });

    measure_flowgraph_rows(report, s, context, pattern_n, device);
    add_ratios_and_targets(report, s.ngates);
    add_notes(report, s.ngates, check_radials, pattern_n);
}

} // namespace

CUDADSP_BENCH_SECTION(
    polarimetric,
    "polarimetric",
    "polarimetric products on the paper's turn (2242 gates x 12960 pulses x 2 pol): "
    "CUDA engine (device buffers, simultaneous and alternating, regression and GMAP "
    "clutter filters; pinned host buffers with and without the filters, pageable "
    "host buffers), CPU engine and the polarimetric_products_cf block in a flowgraph, "
    "against d2d, pinned H2D and D2H copies of the same bytes",
    run_polarimetric);

} // namespace bench
} // namespace cudadsp
} // namespace gr
