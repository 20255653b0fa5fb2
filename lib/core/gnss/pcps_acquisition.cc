/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/pcps_acquisition_cpu.h"
#include "gnss/pcps_acquisition_cuda.h"
#include "gnss/pcps_acquisition_rule.h"
#include "runtime/quoted_text.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double two_pi = 6.283185307179586476925286766559;
constexpr std::size_t max_doppler_bins = 4001;
constexpr std::size_t max_dwells = 1000;
//! Bound on N, so that a 2N-point transform and its replicas stay addressable and sane.
constexpr std::size_t max_coherent_samples = std::size_t(1) << 22;
//! Fine Doppler search: values per coarse step, and the span either side in steps.
constexpr int fine_doppler_division = 8;
//! Two residues closer than this (Hz) share one replica spectrum.
constexpr double residue_tolerance_hz = 1e-6;

/*! Galileo E1-C secondary code CS25_1 (Galileo OS SIS ICD, Table 21), first chip
 *  first, logic 0 -> +1. */
constexpr char galileo_e1c_secondary_bits[] = "0011100000001010110110010";

std::string number(double value) { return number_text(value, 10); }

[[noreturn]] void invalid(const std::string& field, const std::string& rule)
{
    throw std::invalid_argument(field + ": " + rule);
}

bool finite(double v) { return std::isfinite(v); }

//! log of P(Gamma(k, 1) > x) for x >= 0: log(e^-x sum_{i<k} x^i / i!), summed in logs.
double log_gamma_tail(double x, std::size_t k)
{
    if (x <= 0.0)
        return 0.0;
    const double lx = std::log(x);
    double top = -std::numeric_limits<double>::infinity();
    std::vector<double> terms(k);
    for (std::size_t i = 0; i < k; ++i) {
        terms[i] =
            static_cast<double>(i) * lx - std::lgamma(static_cast<double>(i) + 1.0);
        top = std::max(top, terms[i]);
    }
    double sum = 0.0;
    for (double t : terms)
        sum += std::exp(t - top);
    return top + std::log(sum) - x;
}

//! Gamma(k, 1) density at y >= 0.
double gamma_density(double y, std::size_t k)
{
    if (y <= 0.0)
        return k == 1 ? 1.0 : 0.0;
    return std::exp(static_cast<double>(k - 1) * std::log(y) - y -
                    std::lgamma(static_cast<double>(k)));
}

} // namespace

double pcps_cell_mean(std::size_t k, std::size_t replicas)
{
    return replicas == 2 ? 1.5 * static_cast<double>(k) : static_cast<double>(k);
}

double pcps_cell_tail(double x, std::size_t k, std::size_t replicas)
{
    if (replicas != 2)
        return std::exp(log_gamma_tail(x, k));
    // P(G1 + G2 / 2 > x) = P(G2 > 2x) + int_0^2x f_K(y) P(G1 > x - y / 2) dy, Simpson.
    const int intervals = 4000;
    const double h = 2.0 * x / intervals;
    double sum = 0.0;
    for (int i = 0; i <= intervals; ++i) {
        const double y = i * h;
        const double w = (i == 0 || i == intervals) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        sum += w * gamma_density(y, k) * std::exp(log_gamma_tail(x - 0.5 * y, k));
    }
    return std::exp(log_gamma_tail(2.0 * x, k)) + sum * h / 3.0;
}

double
pcps_threshold(std::size_t k, std::size_t replicas, std::size_t cells, double false_alarm)
{
    const double target = false_alarm / static_cast<double>(cells);
    double lo = 0.0;
    double hi = 20.0 * static_cast<double>(k) + 100.0;
    for (int i = 0; i < 100; ++i) {
        const double mid = 0.5 * (lo + hi);
        (pcps_cell_tail(mid, k, replicas) > target ? lo : hi) = mid;
    }
    return hi / pcps_cell_mean(k, replicas);
}

acquisition_signal parse_acquisition_signal(const std::string& name,
                                            const std::string& parameter_name)
{
    if (name == "gps_l1ca")
        return acquisition_signal::gps_l1ca;
    if (name == "galileo_e1")
        return acquisition_signal::galileo_e1;
    if (name == "glonass_l1of")
        return acquisition_signal::glonass_l1of;
    invalid(parameter_name,
            "must be \"gps_l1ca\", \"galileo_e1\" or \"glonass_l1of\", got " +
                quoted_text(name));
}

std::string to_string(acquisition_signal signal)
{
    switch (signal) {
    case acquisition_signal::gps_l1ca:
        return "gps_l1ca";
    case acquisition_signal::galileo_e1:
        return "galileo_e1";
    case acquisition_signal::glonass_l1of:
        return "glonass_l1of";
    }
    return "unknown";
}

int pcps_acquisition_config::code_length_chips() const
{
    switch (signal) {
    case acquisition_signal::galileo_e1:
        return galileo_e1_code_length;
    case acquisition_signal::glonass_l1of:
        return glonass_l1of_code_length;
    default:
        return gps_l1ca_code_length;
    }
}

double pcps_acquisition_config::chip_rate_cps() const
{
    return signal == acquisition_signal::glonass_l1of ? glonass_l1of_chip_rate_cps
                                                      : gps_l1ca_chip_rate_cps;
}

double pcps_acquisition_config::code_period_s() const
{
    return code_length_chips() / chip_rate_cps();
}

std::size_t pcps_acquisition_config::coherent_samples() const
{
    return static_cast<std::size_t>(std::llround(
        sample_rate_hz * static_cast<double>(coherent_periods) * code_period_s()));
}

std::size_t pcps_acquisition_config::doppler_bins() const
{
    const auto m =
        static_cast<std::size_t>(std::floor(doppler_max_hz / doppler_step_hz + 1e-9));
    return 2 * m + 1;
}

double pcps_acquisition_config::doppler_bin_hz(std::size_t bin) const
{
    const double m = static_cast<double>(doppler_bins() / 2);
    return doppler_center_hz + (static_cast<double>(bin) - m) * doppler_step_hz;
}

std::size_t pcps_acquisition_config::code_phase_bins() const
{
    return static_cast<std::size_t>(std::ceil(sample_rate_hz * code_period_s() - 1e-6));
}

std::vector<int> pcps_acquisition_config::signal_satellites() const
{
    int first = 1;
    int last = 32;
    if (signal == acquisition_signal::galileo_e1) {
        last = galileo_e1_prn_count;
    } else if (signal == acquisition_signal::glonass_l1of) {
        first = -7;
        last = 6;
    }
    std::vector<int> all;
    for (int s = first; s <= last; ++s)
        all.push_back(s);
    return all;
}

double pcps_acquisition_config::satellite_frequency_hz(int satellite) const
{
    return intermediate_frequency_hz + (signal == acquisition_signal::glonass_l1of
                                            ? satellite * glonass_l1_channel_spacing_hz
                                            : 0.0);
}

bool pcps_acquisition_config::satellite_in_stream(int satellite) const
{
    return std::abs(satellite_frequency_hz(satellite) + doppler_center_hz) +
               doppler_max_hz <
           0.5 * sample_rate_hz;
}

std::vector<int> pcps_acquisition_config::satellites_in_stream() const
{
    std::vector<int> held;
    for (int s : signal_satellites())
        if (satellite_in_stream(s))
            held.push_back(s);
    return held;
}

namespace {

//! "GLONASS frequency number k" or "gps_l1ca PRN n".
std::string satellite_name(acquisition_signal signal, int satellite)
{
    return (signal == acquisition_signal::glonass_l1of ? "GLONASS frequency number "
                                                       : to_string(signal) + " PRN ") +
           std::to_string(satellite);
}

} // namespace

void pcps_acquisition_config::check_satellites(const std::vector<int>& satellites,
                                               const std::string& parameter) const
{
    if (satellites.empty())
        invalid(parameter, "must list at least one satellite");
    const std::vector<int> all = signal_satellites();
    const std::string rule = signal == acquisition_signal::glonass_l1of
                                 ? "a GLONASS frequency number in [-7, 6]"
                                 : "a " + to_string(signal) + " PRN in [" +
                                       std::to_string(all.front()) + ", " +
                                       std::to_string(all.back()) + "]";
    std::set<int> seen;
    for (std::size_t i = 0; i < satellites.size(); ++i) {
        const int s = satellites[i];
        const std::string field = parameter + "[" + std::to_string(i) + "]";
        if (s < all.front() || s > all.back())
            invalid(field, "must be " + rule + ", got " + std::to_string(s));
        if (!seen.insert(s).second)
            invalid(field, std::to_string(s) + " is listed twice");
        if (!satellite_in_stream(s))
            invalid(field,
                    satellite_name(signal, s) + " lies at " +
                        number(satellite_frequency_hz(s)) +
                        " Hz in the stream: with its Doppler window (centre " +
                        number(doppler_center_hz) + " Hz +- " + number(doppler_max_hz) +
                        " Hz) it is outside +-sample_rate_hz / 2 at sample_rate_hz " +
                        number(sample_rate_hz) + " (the stream holds " +
                        integers_text(satellites_in_stream()) + ")");
    }
}

void pcps_acquisition_config::validate() const
{
    if (signal != acquisition_signal::gps_l1ca &&
        signal != acquisition_signal::galileo_e1 &&
        signal != acquisition_signal::glonass_l1of)
        invalid("signal", "must be gps_l1ca, galileo_e1 or glonass_l1of");
    const double chip_rate = chip_rate_cps();
    if (!finite(sample_rate_hz) || sample_rate_hz < 2.0 * chip_rate ||
        sample_rate_hz > 100e6)
        invalid("sample_rate_hz",
                "must be finite, >= 2 x the chip rate (" + number(2.0 * chip_rate) +
                    " Hz for " + to_string(signal) + ") and <= 1e8, got " +
                    number(sample_rate_hz));
    if (!finite(intermediate_frequency_hz) ||
        std::abs(intermediate_frequency_hz) >= 0.5 * sample_rate_hz)
        invalid("intermediate_frequency_hz",
                "must be finite with |IF| < sample_rate_hz / 2 = " +
                    number(0.5 * sample_rate_hz) + ", got " +
                    number(intermediate_frequency_hz));
    if (!finite(doppler_center_hz) || std::abs(doppler_center_hz) > 1e6)
        invalid("doppler_center_hz",
                "must be finite, |centre| <= 1e6, got " + number(doppler_center_hz));
    if (!finite(doppler_max_hz) || doppler_max_hz < 0.0 || doppler_max_hz > 1e6)
        invalid("doppler_max_hz",
                "must be finite, 0 .. 1e6, got " + number(doppler_max_hz));
    if (!finite(doppler_step_hz) || doppler_step_hz <= 0.0)
        invalid("doppler_step_hz",
                "must be finite and > 0, got " + number(doppler_step_hz));
    if (doppler_max_hz / doppler_step_hz > (max_doppler_bins - 1) / 2)
        invalid("doppler_step_hz",
                "gives more than " + std::to_string(max_doppler_bins) +
                    " Doppler bins for doppler_max_hz " + number(doppler_max_hz) +
                    ", got " + number(doppler_step_hz));
    if (galileo_pilot && signal != acquisition_signal::galileo_e1)
        invalid("galileo_pilot",
                "only for signal galileo_e1, got signal " + to_string(signal));
    std::size_t most = 20;
    std::string why = "1 .. 20 code periods of GPS L1 C/A (20 ms: one data bit)";
    if (signal == acquisition_signal::glonass_l1of) {
        most = 10;
        why = "1 .. 10 code periods of GLONASS L1OF (10 ms: the meander)";
    } else if (signal == acquisition_signal::galileo_e1) {
        most = galileo_pilot ? galileo_e1c_secondary_length : 1;
        why = galileo_pilot
                  ? "1 .. 25 code periods (4 ms each) of the Galileo E1-C pilot"
                  : "1 code period (4 ms) for Galileo E1 B/C (set galileo_pilot "
                    "for longer coherent times)";
    }
    if (coherent_periods < 1 || coherent_periods > most)
        invalid("coherent_periods",
                "the coherent time must be a whole number of code periods, " + why +
                    ", got " + std::to_string(coherent_periods));
    if (noncoherent_dwells < 1 || noncoherent_dwells > max_dwells)
        invalid("noncoherent_dwells",
                "must be 1 .. " + std::to_string(max_dwells) + ", got " +
                    std::to_string(noncoherent_dwells));
    if (!(false_alarm > 0.0 && false_alarm < 1.0))
        invalid("false_alarm", "must be in (0, 1), got " + number(false_alarm));
    const double exact =
        sample_rate_hz * static_cast<double>(coherent_periods) * code_period_s();
    if (coherent_samples() > max_coherent_samples)
        invalid("sample_rate_hz",
                "a coherent integration of " + std::to_string(coherent_periods) +
                    " code periods takes " + number(exact) + " samples, more than " +
                    std::to_string(max_coherent_samples));
    // The K integrations are consecutive N-sample blocks: where fs T_coh is not a
    // whole number, the code slips against them by N - fs T_coh samples per block.
    const double slip = static_cast<double>(noncoherent_dwells) *
                        std::abs(static_cast<double>(coherent_samples()) - exact);
    if (slip > 0.5)
        invalid("sample_rate_hz",
                "the coherent time holds " + number(exact) +
                    " samples, not a whole number: over noncoherent_dwells = " +
                    std::to_string(noncoherent_dwells) + " integrations of " +
                    std::to_string(coherent_samples()) + " samples the code slips " +
                    number(slip) + " samples (at most 0.5 allowed)");
}

std::unique_ptr<pcps_acquisition>
pcps_acquisition::make(const pcps_acquisition_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<pcps_acquisition_cuda>(config, device);
    return std::make_unique<pcps_acquisition_cpu>(config, device);
}

pcps_acquisition::pcps_acquisition(const pcps_acquisition_config& config,
                                   const device_selection& device)
    : d_config(config), d_device(device)
{
    d_threshold = pcps_threshold(
        config.noncoherent_dwells, replicas_per_grid(), cells(), config.false_alarm);
}

pcps_acquisition::~pcps_acquisition() = default;

std::size_t pcps_acquisition::grids() const
{
    return d_config.galileo_pilot && d_config.coherent_periods > 1
               ? galileo_e1c_secondary_length
               : 1;
}

std::size_t pcps_acquisition::replicas_per_grid() const
{
    return d_config.signal == acquisition_signal::galileo_e1 && !d_config.galileo_pilot
               ? 2
               : 1;
}

std::size_t pcps_acquisition::cells() const
{
    return grids() * d_config.doppler_bins() * d_config.code_phase_bins();
}

namespace {

double nominal_carrier_hz(const pcps_acquisition_config& c, int satellite)
{
    return c.signal == acquisition_signal::glonass_l1of
               ? glonass_l1_base_frequency_hz + satellite * glonass_l1_channel_spacing_hz
               : gps_l1_frequency_hz;
}

//! One period of the code of \p satellite as table entries (BOC: 2 per chip).
std::vector<std::int8_t> code_table(const pcps_acquisition_config& c,
                                    int satellite,
                                    galileo_e1_component component)
{
    switch (c.signal) {
    case acquisition_signal::galileo_e1:
        return boc11_expand(galileo_e1_code(satellite, component));
    case acquisition_signal::glonass_l1of:
        return glonass_l1of_code();
    default:
        return gps_l1ca_code(satellite);
    }
}

std::int64_t floor_div(std::int64_t a, std::int64_t b)
{
    const std::int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/*!
 * The code values of one replica: value(m) for a chip position chi = m chip_rate / fs
 * (m signed, fractional allowed), as the table entry of floor(chi epc), times the
 * secondary chip of its period for the pilot's grid g.
 */
struct replica_code {
    std::vector<float> table; //!< one period of entries (B + C, B - C, or one code)
    int entries_per_chip = 1;
    int entries = 0;
    bool secondary = false;
    std::size_t grid = 0;
    double entries_per_sample = 0.0;

    replica_code(const pcps_acquisition_config& c,
                 int satellite,
                 std::size_t grid_index,
                 std::size_t replica,
                 bool with_secondary)
        : secondary(with_secondary), grid(grid_index)
    {
        if (c.signal == acquisition_signal::galileo_e1) {
            entries_per_chip = 2;
            const auto cc = code_table(c, satellite, galileo_e1_component::c);
            if (c.galileo_pilot) {
                table.assign(cc.begin(), cc.end());
            } else {
                const auto b = code_table(c, satellite, galileo_e1_component::b);
                const float sign = replica == 0 ? 1.0f : -1.0f;
                table.resize(b.size());
                for (std::size_t i = 0; i < b.size(); ++i)
                    table[i] = b[i] + sign * cc[i];
            }
        } else {
            const auto t = code_table(c, satellite, galileo_e1_component::b);
            table.assign(t.begin(), t.end());
        }
        entries = static_cast<int>(table.size());
        entries_per_sample = c.chip_rate_cps() * entries_per_chip / c.sample_rate_hz;
    }

    float value(double m) const
    {
        const auto e = static_cast<std::int64_t>(std::floor(m * entries_per_sample));
        const std::int64_t period = floor_div(e, entries);
        const std::int64_t entry = e - period * entries;
        float v = table[static_cast<std::size_t>(entry)];
        if (secondary) {
            const std::int64_t chip =
                (static_cast<std::int64_t>(grid) + period) % galileo_e1c_secondary_length;
            const std::size_t s = static_cast<std::size_t>(
                chip < 0 ? chip + galileo_e1c_secondary_length : chip);
            if (galileo_e1c_secondary_bits[s] == '1')
                v = -v;
        }
        return v;
    }
};

} // namespace

void pcps_acquisition::make_replica(int satellite,
                                    std::size_t grid,
                                    std::size_t replica,
                                    double frequency_hz,
                                    std::complex<float>* out) const
{
    const replica_code code(d_config, satellite, grid, replica, grids() > 1);
    const auto n = static_cast<std::int64_t>(d_config.coherent_samples());
    for (std::int64_t m = -n; m < n; ++m) {
        // The phase reduced in whole cycles first keeps it exact for large m.
        const double cycles =
            frequency_hz * static_cast<double>(m) / d_config.sample_rate_hz;
        const double phase = two_pi * (cycles - std::floor(cycles));
        const float v = code.value(static_cast<double>(m));
        out[m < 0 ? m + 2 * n : m] =
            std::complex<float>(static_cast<float>(v * std::cos(phase)),
                                static_cast<float>(v * std::sin(phase)));
    }
}

pcps_acquisition::doppler_plan pcps_acquisition::replica_plan(int satellite) const
{
    doppler_plan plan;
    const std::size_t bins = d_config.doppler_bins();
    const double spacing = d_config.sample_rate_hz /
                           (2.0 * static_cast<double>(d_config.coherent_samples()));
    const auto size = static_cast<std::int64_t>(2 * d_config.coherent_samples());
    for (std::size_t b = 0; b < bins; ++b) {
        const double f =
            d_config.satellite_frequency_hz(satellite) + d_config.doppler_bin_hz(b);
        const auto q = static_cast<std::int64_t>(std::llround(f / spacing));
        const double residue = f - static_cast<double>(q) * spacing;
        std::size_t r = 0;
        while (r < plan.residue_hz.size() &&
               std::abs(plan.residue_hz[r] - residue) > residue_tolerance_hz)
            ++r;
        if (r == plan.residue_hz.size())
            plan.residue_hz.push_back(residue);
        plan.bin_residue.push_back(r);
        plan.bin_shift.push_back(static_cast<std::size_t>(((q % size) + size) % size));
    }
    return plan;
}

void pcps_acquisition::search(const std::complex<float>* samples,
                              std::size_t nsamples,
                              std::uint64_t first_sample,
                              const std::vector<int>& satellites,
                              std::vector<acquisition_detection>& results)
{
    search_impl(
        samples, sample_format::cf32, nsamples, first_sample, satellites, results);
}

void pcps_acquisition::search(const std::int16_t* iq,
                              std::size_t nsamples,
                              std::uint64_t first_sample,
                              const std::vector<int>& satellites,
                              std::vector<acquisition_detection>& results)
{
    search_impl(iq, sample_format::ci16, nsamples, first_sample, satellites, results);
}

namespace {

std::complex<double> sample_at(const std::complex<float>* x, std::size_t n)
{
    return std::complex<double>(x[n].real(), x[n].imag());
}

std::complex<double> sample_at(const std::int16_t* x, std::size_t n)
{
    return std::complex<double>(x[2 * n], x[2 * n + 1]);
}

} // namespace

template <typename Sample>
void pcps_acquisition::search_impl(const Sample* samples,
                                   sample_format format,
                                   std::size_t nsamples,
                                   std::uint64_t first_sample,
                                   const std::vector<int>& satellites,
                                   std::vector<acquisition_detection>& results)
{
    const std::size_t expected = d_config.search_samples();
    if (nsamples != expected)
        invalid("nsamples",
                "must be noncoherent_dwells x coherent_samples() = " +
                    std::to_string(expected) + ", got " + std::to_string(nsamples));
    if (samples == nullptr)
        invalid("samples", "nullptr");
    d_config.check_satellites(satellites);

    std::vector<pcps_grid_peak> peaks(satellites.size());
    compute_grids(samples, format, satellites, peaks.data());

    const std::size_t k_dwells = d_config.noncoherent_dwells;
    const std::size_t n = d_config.coherent_samples();
    const std::size_t replicas = replicas_per_grid();
    const double fs = d_config.sample_rate_hz;
    const double t_coh = static_cast<double>(n) / fs;
    const double period_samples = fs * d_config.code_period_s();
    const double pilot_db = d_config.galileo_pilot ? 10.0 * std::log10(2.0) : 0.0;
    const double chips = d_config.code_length_chips();

    results.assign(satellites.size(), acquisition_detection());
    for (std::size_t i = 0; i < satellites.size(); ++i) {
        const pcps_grid_peak& p = peaks[i];
        acquisition_detection& r = results[i];
        const int sat = satellites[i];
        r.satellite = sat;
        r.start_sample = first_sample;
        r.threshold = d_threshold;
        r.metric = p.mean_power > 0.0 ? p.peak_power / p.mean_power : 0.0;
        r.second_peak_ratio = p.second_power > 0.0
                                  ? p.peak_power / p.second_power
                                  : std::numeric_limits<double>::infinity();
        r.detected = r.metric > d_threshold;
        r.secondary_code_phase = static_cast<int>(p.grid);
        const double noise = p.mean_power / pcps_cell_mean(k_dwells, replicas);

        // Code phase: the triangle through the amplitudes around the peak lag.
        const double offset = pcps_triangle_offset(
            std::sqrt(p.early_power), std::sqrt(p.peak_power), std::sqrt(p.late_power));
        double delay = static_cast<double>(p.lag) + offset;
        double doppler = d_config.doppler_bin_hz(p.doppler_bin);
        double peak_power = p.peak_power;

        if (r.detected) {
            // Doppler: direct correlation at that code phase over a finer grid.
            // Each integration's replicas at the refined code phase (the pilot's
            // secondary code moves on P periods per integration).
            const int span = fine_doppler_division;
            const double step = d_config.doppler_step_hz / fine_doppler_division;
            std::vector<double> power(2 * span + 1, 0.0);
            const bool other = replicas == 2;
            std::vector<std::vector<float>> code_a(k_dwells), code_b(k_dwells);
            for (std::size_t k = 0; k < k_dwells; ++k) {
                const std::size_t g = (p.grid + k * d_config.coherent_periods) % grids();
                const replica_code first(d_config, sat, g, 0, grids() > 1);
                code_a[k].resize(n);
                for (std::size_t m = 0; m < n; ++m)
                    code_a[k][m] = first.value(static_cast<double>(m) - delay);
                if (other) {
                    const replica_code second(d_config, sat, g, 1, false);
                    code_b[k].resize(n);
                    for (std::size_t m = 0; m < n; ++m)
                        code_b[k][m] = second.value(static_cast<double>(m) - delay);
                }
            }
            for (int j = -span; j <= span; ++j) {
                const double f =
                    d_config.satellite_frequency_hz(sat) + doppler + j * step;
                const std::complex<double> rot = std::polar(1.0, -two_pi * f / fs);
                double total = 0.0;
                for (std::size_t k = 0; k < k_dwells; ++k) {
                    std::complex<double> sa = 0.0, sb = 0.0;
                    std::complex<double> ph = 1.0;
                    for (std::size_t m = 0; m < n; ++m) {
                        const std::complex<double> x = sample_at(samples, k * n + m) * ph;
                        sa += x * static_cast<double>(code_a[k][m]);
                        if (other)
                            sb += x * static_cast<double>(code_b[k][m]);
                        ph *= rot;
                        if ((m & 1023) == 1023)
                            ph /= std::abs(ph);
                    }
                    total += std::max(std::norm(sa), other ? std::norm(sb) : 0.0);
                }
                power[j + span] = total;
            }
            const auto best = static_cast<int>(
                std::max_element(power.begin(), power.end()) - power.begin());
            double d = 0.0;
            if (best > 0 && best < 2 * span)
                d = pcps_parabola_offset(power[best - 1], power[best], power[best + 1]);
            doppler += (best - span + d) * step;
            peak_power = power[best];
        }
        if (delay < 0.0)
            delay += period_samples;
        if (delay >= period_samples)
            delay -= period_samples;
        const double code_rate = d_config.chip_rate_cps() *
                                 (1.0 + doppler / nominal_carrier_hz(d_config, sat));
        r.doppler_hz = doppler;
        r.delay_samples = delay;
        r.code_rate_cps = code_rate;
        double phase = std::fmod(chips - delay * code_rate / fs, chips);
        if (phase < 0.0)
            phase += chips;
        r.code_phase_chips = phase;
        const double snr =
            noise > 0.0 ? peak_power / (static_cast<double>(k_dwells) * noise) - 1.0
                        : 0.0;
        r.cn0_dbhz = snr > 0.0 ? 10.0 * std::log10(snr / t_coh) + pilot_db
                               : std::numeric_limits<double>::quiet_NaN();
    }
}

acquisition_channel_fields
pcps_acquisition::channel_fields(const acquisition_detection& detection) const
{
    acquisition_channel_fields f;
    f.code_phase_chips = detection.code_phase_chips;
    f.doppler_hz = detection.doppler_hz;
    f.start_sample = detection.start_sample;
    f.intermediate_frequency_hz = d_config.satellite_frequency_hz(detection.satellite);
    f.nominal_carrier_frequency_hz = nominal_carrier_hz(d_config, detection.satellite);
    f.nominal_code_rate_cps = d_config.chip_rate_cps();
    switch (d_config.signal) {
    case acquisition_signal::galileo_e1:
        f.system = "galileo_e1c";
        f.prn = detection.satellite;
        f.boc = true;
        break;
    case acquisition_signal::glonass_l1of:
        f.system = "glonass_l1of";
        f.frequency_number = detection.satellite;
        break;
    default:
        f.system = "gps_l1ca";
        f.prn = detection.satellite;
        break;
    }
    return f;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
