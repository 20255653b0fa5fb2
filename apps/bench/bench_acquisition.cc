/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section acquisition: the PCPS acquisition engine's cold search of issue 12 (GPS L1
// C/A, all 32 PRNs, Doppler +-10 kHz in 500 Hz bins, 1 ms coherent x 10 non-coherent
// at 4 Msps: 10 ms of signal), on the CUDA backend (device time from the engine's
// events, and search() on the host clock with cf32 and ci16 input) and on the CPU
// backend, next to floors measured in the same run: a d2d copy and a pinned upload of
// the 10 ms of samples, and the bare cuFFT executions the engine makes (the same
// transform size, batch counts and number of calls, on device buffers, timed alone).
// GNSS-SDR's time per PRN is the lead's measurement on the build host, given through
// the environment; this program does not run GNSS-SDR.

#include "bench_harness.h"
#include "gnss/pcps_acquisition_cuda.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "acquisition";

// The search.
constexpr double sample_rate_hz = 4e6;
constexpr double doppler_max_hz = 10e3;
constexpr double doppler_step_hz = 500.0;
constexpr std::size_t coherent_periods = 1;
constexpr std::size_t noncoherent_dwells = 10;
constexpr int prn_count = 32;
// Device time: 10 ms of signal in at most 1 ms.
constexpr double target_real_time_factor = 10.0;
constexpr double target_cufft_ratio = 2.0;
constexpr int slow_repeats_max = 3;

// The signal: six satellites at 45 dB-Hz in unit-power noise, Doppler and code phase
// from a fixed seed, so every run searches the same samples.
constexpr int simulated_prns[] = { 3, 7, 12, 19, 25, 31 };
constexpr double simulated_cn0_dbhz = 45.0;
constexpr std::uint64_t signal_seed = 20261126;
// ci16 input: the noise's standard deviation per part becomes this many LSBs.
constexpr double ci16_noise_lsb = 200.0;

// What a detection must match: Doppler within a quarter bin of the truth and the
// code phase within half a chip; the CUDA backend's the CPU's within 1 Hz and 0.02
// chip (the same integer peak, S differing by float32 rounding).
constexpr double truth_doppler_tolerance_hz = doppler_step_hz / 4;
constexpr double truth_code_tolerance_chips = 0.5;
constexpr double cpu_doppler_tolerance_hz = 1.0;
constexpr double cpu_code_tolerance_chips = 0.02;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;
const std::string row_cufft = "floor: cuFFT, the engine's transforms";
const std::string row_device = "cuda engine, device time";
const std::string row_wall = "cuda engine, search() cf32";
const std::string row_wall_ci16 = "cuda engine, search() ci16";
const std::string row_cpu = "cpu engine, search() cf32";
const std::string row_gnss_sdr = "GNSS-SDR PCPS (lead's figure)";

//! Environment variable: GNSS-SDR's acquisition time per PRN in ms, or a file holding it.
constexpr const char* gnss_sdr_variable = "CUDADSP_BENCH_GNSS_SDR_MS_PER_PRN";

using detection = core::acquisition_detection;

core::pcps_acquisition_config make_config(const std::string& device)
{
    core::pcps_acquisition_config config;
    config.signal = core::acquisition_signal::gps_l1ca;
    config.sample_rate_hz = sample_rate_hz;
    config.doppler_max_hz = doppler_max_hz;
    config.doppler_step_hz = doppler_step_hz;
    config.coherent_periods = coherent_periods;
    config.noncoherent_dwells = noncoherent_dwells;
    config.device = device;
    return config;
}

std::vector<int> all_prns()
{
    std::vector<int> prns(prn_count);
    for (int i = 0; i < prn_count; ++i)
        prns[std::size_t(i)] = i + 1;
    return prns;
}

//! The searched signal and its truth.
struct search_input {
    std::vector<std::complex<float>> cf32;
    std::vector<std::int16_t> ci16;
    //! Per simulated PRN: Doppler (Hz) and code phase (chips) at sample 0.
    std::map<int, std::pair<double, double>> truth;
};

search_input make_input(std::size_t nsamples)
{
    core::gnss_simulator_config sim;
    sim.sample_rate_hz = sample_rate_hz;
    sim.noise_power = 1.0;
    sim.seed = signal_seed;
    std::vector<core::gnss_simulated_satellite> satellites;
    search_input in;
    for (std::size_t i = 0; i < std::size(simulated_prns); ++i) {
        core::gnss_simulated_satellite s;
        s.code = core::gps_l1ca_code(simulated_prns[i]);
        // Spread over the window, off the bin centres, and over the code period.
        s.doppler_hz = -8700.0 + 3130.0 * double(i);
        s.code_phase_chips = std::fmod(97.3 + 181.7 * double(i), 1023.0);
        s.cn0_dbhz = simulated_cn0_dbhz;
        satellites.push_back(s);
        in.truth[simulated_prns[i]] = { s.doppler_hz, s.code_phase_chips };
    }
    in.cf32.resize(nsamples);
    core::gnss_signal_simulator(sim, satellites).generate(in.cf32.data(), nsamples);
    in.ci16.resize(2 * nsamples);
    core::gnss_signal_simulator(sim, satellites)
        .generate_ci16(in.ci16.data(), nsamples, ci16_noise_lsb / std::sqrt(0.5));
    return in;
}

double code_distance_chips(double a, double b)
{
    const double d = std::fabs(std::remainder(a - b, double(core::gps_l1ca_code_length)));
    return d;
}

//! Detections against the simulated truth: the six found where they are, no other.
bool matches_truth(const std::vector<detection>& found,
                   const search_input& in,
                   std::string& why)
{
    std::ostringstream os;
    for (const detection& d : found) {
        const auto t = in.truth.find(d.satellite);
        if (t == in.truth.end()) {
            if (d.detected) {
                os << "PRN " << d.satellite << " detected but absent (metric " << d.metric
                   << ", threshold " << d.threshold << ")";
                why = os.str();
                return false;
            }
            continue;
        }
        const double doppler_error = std::fabs(d.doppler_hz - t->second.first);
        const double code_error =
            code_distance_chips(d.code_phase_chips, t->second.second);
        if (!d.detected || doppler_error > truth_doppler_tolerance_hz ||
            code_error > truth_code_tolerance_chips) {
            os << "PRN " << d.satellite << (d.detected ? " detected" : " missed")
               << " at " << d.doppler_hz << " Hz, " << d.code_phase_chips
               << " chips; truth " << t->second.first << " Hz, " << t->second.second
               << " chips";
            why = os.str();
            return false;
        }
    }
    return true;
}

//! The CUDA backend's detections against the CPU backend's.
bool matches_cpu(const std::vector<detection>& found,
                 const std::vector<detection>& cpu,
                 std::string& why)
{
    std::ostringstream os;
    for (std::size_t i = 0; i < found.size(); ++i) {
        const detection& a = found[i];
        const detection& b = cpu[i];
        if (a.satellite != b.satellite || a.detected != b.detected) {
            os << "PRN " << a.satellite << ": detected " << a.detected << ", cpu "
               << b.detected;
        } else if (a.detected &&
                   (std::fabs(a.doppler_hz - b.doppler_hz) > cpu_doppler_tolerance_hz ||
                    code_distance_chips(a.code_phase_chips, b.code_phase_chips) >
                        cpu_code_tolerance_chips)) {
            os << "PRN " << a.satellite << ": " << a.doppler_hz << " Hz, "
               << a.code_phase_chips << " chips; cpu " << b.doppler_hz << " Hz, "
               << b.code_phase_chips << " chips";
        } else {
            continue;
        }
        why = os.str();
        return false;
    }
    return true;
}

/*!
 * Row status from a search's detections: poisoned (NaN) fields not written, the truth,
 * and, when \p cpu is given, the CPU backend's detections.
 */
void check_detections(row& r,
                      const std::vector<detection>& found,
                      const search_input& in,
                      const std::vector<detection>* cpu)
{
    std::string why;
    if (found.size() != std::size_t(prn_count)) {
        r.status = row_status::failed;
        r.note = std::to_string(found.size()) + " results for " +
                 std::to_string(prn_count) + " PRNs";
    } else if (std::any_of(found.begin(), found.end(), [](const detection& d) {
                   return std::isnan(d.metric) || std::isnan(d.threshold);
               })) {
        r.status = row_status::failed;
        r.note = "a result's metric was not written";
    } else if (!matches_truth(found, in, why)) {
        r.status = row_status::failed;
        r.note = why;
    } else if (cpu && !matches_cpu(found, *cpu, why)) {
        r.status = row_status::failed;
        r.note = "differs from the cpu engine: " + why;
    } else {
        r.status = row_status::ok;
    }
}

//! Results poisoned with NaN, so that a field the engine does not write shows.
std::vector<detection> poisoned_results()
{
    detection d;
    d.metric = d.threshold = d.doppler_hz = d.code_phase_chips = std::nan("");
    return std::vector<detection>(std::size_t(prn_count), d);
}

core::pcps_acquisition_cuda& cuda_backend(core::pcps_acquisition& engine)
{
    auto* cuda = dynamic_cast<core::pcps_acquisition_cuda*>(&engine);
    if (!cuda)
        throw std::runtime_error("the engine made for device \"cuda\" is not the CUDA "
                                 "backend");
    return *cuda;
}

/*!
 * The engine's cuFFT executions for a search of every PRN, alone: the same transform
 * size and, call by call, the same batch counts and directions, in place on a device
 * buffer of the largest batch, each batch count with a plan of its own.
 */
void measure_cufft_floor(row& r, core::pcps_acquisition_cuda& engine, int repeats)
{
    const auto calls = engine.search_transforms(std::size_t(prn_count));
    const std::size_t points = engine.transform_points();
    std::size_t largest = 0;
    std::size_t transforms = 0;
    std::map<std::size_t, core::cufft_plan> plans;
    core::cuda_stream stream;
    for (const auto& call : calls) {
        largest = std::max(largest, call.batch);
        transforms += call.batch;
        if (!plans.count(call.batch)) {
            core::cufft_plan plan(int(points), CUFFT_C2C, int(call.batch));
            plan.set_stream(stream.get());
            plans.emplace(call.batch, std::move(plan));
        }
    }
    core::device_buffer<cufftComplex> data(largest * points);
    CUDADSP_CUDA(cudaMemsetAsync(data.get(), 0, data.bytes(), stream.get()));
    r.clock = "events";
    r.samples = double(noncoherent_dwells * engine.config().coherent_samples());
    // Each transform reads and writes its points once at least.
    r.bytes = 2.0 * double(transforms * points * sizeof(cufftComplex));
    r.time = time_cuda(stream.get(), 2, repeats, [&] {
        for (const auto& call : calls)
            CUDADSP_CUFFT(cufftExecC2C(plans.at(call.batch).get(),
                                       data.get(),
                                       data.get(),
                                       call.inverse ? CUFFT_INVERSE : CUFFT_FORWARD));
    });
    r.note = std::to_string(calls.size()) + " calls, " + std::to_string(transforms) +
             " transforms of " + std::to_string(points) + " points";
}

//! What the CUDA rows share: the engine, the input, the CPU's detections.
struct cuda_context {
    core::pcps_acquisition& engine;
    const search_input& input;
    const std::vector<detection>* cpu;
    std::size_t nsamples;
    int repeats;
};

void measure_device_time(row& r, const cuda_context& c)
{
    auto& cuda = cuda_backend(c.engine);
    const std::vector<int> prns = all_prns();
    std::vector<detection> found = poisoned_results();
    c.engine.search(c.input.cf32.data(), c.nsamples, 0, prns, found);
    check_detections(r, found, c.input, c.cpu);
    c.engine.search(c.input.cf32.data(), c.nsamples, 0, prns, found); // warm-up
    std::vector<double> ms;
    for (int i = 0; i < c.repeats; ++i) {
        c.engine.search(c.input.cf32.data(), c.nsamples, 0, prns, found);
        ms.push_back(cuda.last_timing().compute_ms);
    }
    r.clock = "events";
    r.samples = double(c.nsamples);
    r.time = summarize(ms);
    r.note = "conversion, transforms, products, powers, peaks; " +
             std::to_string(cuda.search_transforms(prns.size()).size()) +
             " cuFFT calls, batches of at most " +
             std::to_string(cuda.batch_transforms()) + " transforms";
}

/*!
 * search() on the host clock, after one checked call whose detections it returns
 * (\p warmup more untimed calls before the \p repeats timed ones).
 */
template <typename Sample>
std::vector<detection> measure_search_wall(row& r,
                                           core::pcps_acquisition& engine,
                                           const Sample* samples,
                                           const search_input& input,
                                           const std::vector<detection>* cpu,
                                           std::size_t nsamples,
                                           int warmup,
                                           int repeats)
{
    const std::vector<int> prns = all_prns();
    std::vector<detection> checked = poisoned_results();
    engine.search(samples, nsamples, 0, prns, checked);
    check_detections(r, checked, input, cpu);
    std::vector<detection> found;
    r.clock = "wall";
    r.samples = double(nsamples);
    r.time = time_host(
        warmup, repeats, [&] { engine.search(samples, nsamples, 0, prns, found); });
    return checked;
}

/*!
 * GNSS-SDR's time per PRN from the environment (a number of ms, or the name of a file
 * whose first word is one) as a row for the 32 PRNs: the lead measures it on the build
 * host (Debian's gnss-sdr), over the \p nsamples of one search. Called only when the
 * variable is set.
 */
void gnss_sdr_figure(row& r, std::size_t nsamples)
{
    const std::string value = std::getenv(gnss_sdr_variable);
    double ms_per_prn = 0.0;
    std::istringstream direct(value);
    if (!(direct >> ms_per_prn) || !direct.eof()) {
        std::ifstream file(value);
        if (!(file >> ms_per_prn))
            throw std::runtime_error(std::string(gnss_sdr_variable) + "=\"" + value +
                                     "\" is neither a number of ms nor a file "
                                     "starting with one");
    }
    if (!(ms_per_prn > 0.0) || !std::isfinite(ms_per_prn))
        throw std::runtime_error(std::string(gnss_sdr_variable) +
                                 " must be a positive number of ms per PRN");
    const double ms = ms_per_prn * prn_count;
    r.clock = "given";
    r.samples = double(nsamples);
    r.time = timing{ ms, ms, ms, 1 };
    r.status = row_status::unchecked;
    std::ostringstream note;
    note << ms_per_prn << " ms per PRN from " << gnss_sdr_variable << ", times "
         << prn_count << " PRNs; not run here";
    r.note = note.str();
}

void add_ratios_and_targets(section_report& report)
{
    report.ratio_to(row_device, row_cufft, "cuFFT floor");
    report.target_max_ratio(row_device, "x cuFFT floor", target_cufft_ratio);
    // 10 x real time: the signal's 4 Msps times ten.
    report.target_min_msamples(row_device,
                               target_real_time_factor * sample_rate_hz / 1e6);
    for (const auto& name : { row_wall, row_wall_ci16 })
        report.ratio_to(name, row_h2d, "pinned H2D");
    for (const auto& name : { row_device, row_wall, row_wall_ci16 }) {
        report.speedup_over(name, row_cpu, "speed-up vs cpu");
        report.speedup_over(name, row_gnss_sdr, "speed-up vs GNSS-SDR");
    }
    report.speedup_over(row_cpu, row_gnss_sdr, "speed-up vs GNSS-SDR");
}

void add_notes(section_report& report)
{
    report.add_note("real time: the search covers 10 ms of signal, so >= " +
                    std::to_string(int(target_real_time_factor * sample_rate_hz / 1e6)) +
                    " Msamples/s is >= 10 x real time (10 ms in <= 1 ms)");
    report.add_note("'x cuFFT floor': the engine's device time over that of its cuFFT "
                    "executions alone (the forward transforms of the 10 zero-padded "
                    "integrations and the inverse transforms of every PRN x bin x "
                    "integration, 2N = 8000 points, batched as the engine batches them)");
    report.add_note("check: the 6 simulated satellites (PRN 3 7 12 19 25 31, 45 dB-Hz) "
                    "detected within a quarter bin and half a chip of the truth, no "
                    "other PRN detected; CUDA rows also against the cpu engine's "
                    "detections (same set, 1 Hz, 0.02 chip)");
    report.add_note("search() rows: host clock around the whole call (upload, device "
                    "work, download of the peaks, refinement of the detections on the "
                    "host); the device-time row is the engine's own events from the "
                    "first kernel to the peaks");
    std::ostringstream os;
    os.precision(4);
    os << "time per PRN (median / " << prn_count << "):";
    bool any = false;
    for (const row& r : report.rows())
        if (r.measured() &&
            (r.name == row_device || r.name == row_wall || r.name == row_wall_ci16 ||
             r.name == row_cpu || r.name == row_gnss_sdr)) {
            os << (any ? ";" : "") << " " << r.name << " " << r.time.median_ms / prn_count
               << " ms";
            any = true;
        }
    if (any)
        report.add_note(os.str());
}

void run_acquisition(const bench_options& options,
                     const bench_device& device,
                     section_report& report)
{
    const core::pcps_acquisition_config cpu_config = make_config("cpu");
    const std::size_t nsamples = cpu_config.search_samples();
    const int repeats = options.repeats;
    const int slow_repeats = std::min(repeats, slow_repeats_max);
    report.add_parameter("signal", "gps_l1ca, PRN 1 .. " + std::to_string(prn_count));
    report.add_parameter("sample_rate", "4 Msps");
    report.add_parameter("doppler",
                         "+-10 kHz in 500 Hz bins (" +
                             std::to_string(cpu_config.doppler_bins()) + " bins)");
    report.add_parameter("integration",
                         "1 ms coherent x " + std::to_string(noncoherent_dwells) +
                             " non-coherent");
    report.add_parameter("search_samples", std::to_string(nsamples) + " (10 ms)");
    report.add_parameter("repeats", std::to_string(repeats));
    report.add_parameter("cpu_repeats", std::to_string(slow_repeats));

    progress(section_name, "simulated signal");
    const search_input input = make_input(nsamples);

    progress(section_name, row_cpu);
    std::vector<detection> cpu_found;
    report.measure(row_cpu, [&](row& r) {
        auto engine = core::pcps_acquisition::make(cpu_config);
        auto found = measure_search_wall(
            r, *engine, input.cf32.data(), input, nullptr, nsamples, 0, slow_repeats);
        if (r.status == row_status::ok)
            cpu_found = std::move(found);
    });
    const std::vector<detection>* cpu = cpu_found.empty() ? nullptr : &cpu_found;

    if (device.cuda) {
        const std::size_t input_bytes = nsamples * sizeof(std::complex<float>);
        progress(section_name, "floors");
        report.measure(row_d2d, [&](row& r) {
            r = floor_d2d_copy(input_bytes, double(nsamples), repeats);
            r.note = "10 ms of cf32 samples; read + write counted";
        });
        report.measure(row_h2d, [&](row& r) {
            r = floor_h2d_pinned(input_bytes, double(nsamples), repeats);
            r.note = "10 ms of cf32 samples";
        });
        std::unique_ptr<core::pcps_acquisition> engine;
        report.measure(row_cufft, [&](row& r) {
            engine = core::pcps_acquisition::make(make_config(device.device_string));
            measure_cufft_floor(r, cuda_backend(*engine), repeats);
        });
        if (engine) {
            const cuda_context context{ *engine, input, cpu, nsamples, repeats };
            progress(section_name, row_device);
            report.measure(row_device, [&](row& r) { measure_device_time(r, context); });
            progress(section_name, row_wall);
            report.measure(row_wall, [&](row& r) {
                measure_search_wall(
                    r, *engine, input.cf32.data(), input, cpu, nsamples, 1, repeats);
            });
            report.measure(row_wall_ci16, [&](row& r) {
                measure_search_wall(
                    r, *engine, input.ci16.data(), input, cpu, nsamples, 1, repeats);
            });
        } else {
            for (const auto& name : { row_device, row_wall, row_wall_ci16 })
                report.error(name, "the CUDA engine could not be made");
        }
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        for (const auto& name :
             { row_d2d, row_h2d, row_cufft, row_device, row_wall, row_wall_ci16 })
            report.skip(name, device.skip_reason);
    }

    const char* gnss_sdr = std::getenv(gnss_sdr_variable);
    if (gnss_sdr && *gnss_sdr)
        report.measure(row_gnss_sdr, [&](row& r) { gnss_sdr_figure(r, nsamples); });
    else
        report.skip(row_gnss_sdr,
                    std::string("not measured here (") + gnss_sdr_variable + " unset)");

    add_ratios_and_targets(report);
    add_notes(report);
}

} // namespace

CUDADSP_BENCH_SECTION(
    acquisition,
    "acquisition",
    "PCPS acquisition, GPS L1 C/A cold search (32 PRNs, +-10 kHz in 500 Hz bins, 1 ms x "
    "10 at 4 Msps): CUDA engine (device time; search() with cf32 and ci16 input), CPU "
    "engine and GNSS-SDR's time per PRN (CUDADSP_BENCH_GNSS_SDR_MS_PER_PRN), against a "
    "d2d copy and a pinned H2D of the 10 ms of samples and the engine's bare cuFFT "
    "transforms",
    run_acquisition);

} // namespace bench
} // namespace cudadsp
} // namespace gr
