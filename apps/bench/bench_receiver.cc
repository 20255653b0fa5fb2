/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section receiver: the GPS L1 C/A receiver end to end, from an int16 I/Q file to
// position fixes (acquisition, multichannel correlator, core::gps_receiver: the chain
// of cudadsp.gnss.receive and cudadsp_gnss), on the CUDA and the CPU backend, and as
// many independent receivers at once as the host has threads on one GPU. The signal is
// gps_constellation_scenario's (12 satellites above 10 degrees at 45 dB-Hz, Klobuchar
// ionosphere, no troposphere, a static receiver), so each run's fixes are checked
// against the truth.

#include "bench_harness.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_nominal_constellation.h"
#include "gnss/gps_receiver.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <gnuradio/cudadsp/core/pcps_acquisition.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

namespace core = gr::cudadsp::core;

const std::string section_name = "receiver";
const std::string row_cuda = "receiver cuda: file -> fixes";
const std::string row_cpu = "receiver cpu: file -> fixes";
const std::string row_many = "receivers cuda in parallel";

constexpr double pi = 3.14159265358979323846;
constexpr double degree = pi / 180.0;
constexpr double sample_rate_hz = 4e6;
constexpr double cn0_dbhz = 45.0;
constexpr std::size_t satellites_expected = 12;
// The scenario of tools/make-gps-recording and cudadsp.gnss.receiver_cases: the nominal
// constellation of 10-bit week 300, toe 345600 s, from 0 N, 80 W, 200 m, where 12
// satellites stand above 10 degrees (the lowest at 15.4). Sample 0 falls 0.45 s before
// subframe 1 of a frame (whose subframe 4 is page 18), so the first fix comes at
// 19.45 s, and the ionosphere is given up front as from an earlier run.
constexpr int week_10_bit = 300;
constexpr double toe_s = 345600.0;
constexpr double subframe_1_tow_s = 30.0 * 11542;
constexpr double start_tow_s = subframe_1_tow_s - 0.45;
constexpr double first_fix_s = 19.45;
const core::gnss_geodetic receiver_geodetic{ 0.0, -80.0 * degree, 200.0 };
const core::gnss_klobuchar_coefficients klobuchar{
    { 1.1176e-8, 7.4506e-9, -5.9605e-8, -5.9605e-8 },
    { 90112.0, 0.0, -196608.0, -65536.0 }
};
// The length issue 23 names (90 s of signal, 71 fixes); --samples makes it shorter (at
// least 20.45 s, for a fix).
constexpr double default_seconds = 90.0;
// int16 units per unit of noise standard deviation (receiver_cases.CI16_SCALE).
constexpr double ci16_scale = 300.0;
// The receiver's settings: those of cudadsp.gnss.receive.
const std::vector<double> tap_offsets_chips = { -0.25, 0.0, 0.25 };
constexpr double dll_bandwidth_hz = 0.25;
constexpr double fll_bandwidth_hz = 10.0; // assist until carrier lock
constexpr double chunk_s = 0.1;
// Bounds on the fixes (qa_gnss_tool's): each within 2 m horizontal and 3 m 3-D, the
// medians within 1 m and 2 m, every satellite used.
constexpr double max_horizontal_m = 2.0, max_three_d_m = 3.0;
constexpr double max_median_horizontal_m = 1.0, max_median_three_d_m = 2.0;
constexpr double target_real_time = 30.0;
constexpr int max_parallel_receivers = 16;

core::gps_scenario_config scenario_config(double seconds,
                                          const std::vector<core::gps_ephemeris>& sats,
                                          double cn0,
                                          std::uint64_t seed)
{
    core::gps_scenario_config config;
    for (const core::gps_ephemeris& e : sats)
        config.satellites.push_back({ e, cn0 });
    config.receiver.position_m = core::geodetic_to_ecef(receiver_geodetic);
    config.start_tow_s = start_tow_s;
    config.duration_s = seconds;
    config.ionosphere = core::gnss_ionosphere_model::klobuchar;
    config.klobuchar = klobuchar;
    config.signal.sample_rate_hz = sample_rate_hz;
    config.signal.seed = seed;
    return config;
}

/*
 * The scenario's samples as int16 I/Q in \p path. Made in groups of satellites, one
 * scenario per group on its own thread, and summed: each group carries unit-power noise
 * and its satellites at C/N0 + 10 log10(groups), so the sum is the scenario at C/N0 in
 * noise of power `groups` (as tools/make-gps-recording does). Returns the PRNs.
 */
std::vector<int> write_signal(const std::string& path, double seconds)
{
    const auto all = core::gps_nominal_constellation(week_10_bit, toe_s);
    const core::gps_constellation_scenario visible(
        scenario_config(seconds, all, cn0_dbhz, 1));
    std::vector<core::gps_ephemeris> sats;
    std::vector<int> prns;
    for (std::size_t s = 0; s < visible.satellite_count(); ++s) {
        sats.push_back(visible.satellite(s).ephemeris);
        prns.push_back(sats.back().prn);
    }
    if (sats.size() != satellites_expected)
        throw std::logic_error("the scenario holds " + std::to_string(sats.size()) +
                               " satellites, not " + std::to_string(satellites_expected));
    const std::size_t groups = std::max<std::size_t>(
        1, std::min<std::size_t>(sats.size(), std::thread::hardware_concurrency()));
    std::vector<std::unique_ptr<core::gps_constellation_scenario>> parts;
    for (std::size_t g = 0; g < groups; ++g) {
        std::vector<core::gps_ephemeris> group;
        for (std::size_t s = g; s < sats.size(); s += groups)
            group.push_back(sats[s]);
        parts.push_back(
            std::make_unique<core::gps_constellation_scenario>(scenario_config(
                seconds, group, cn0_dbhz + 10.0 * std::log10(double(groups)), 100 + g)));
    }
    const double scale = ci16_scale / std::sqrt(double(groups));
    const std::size_t total =
        static_cast<std::size_t>(std::llround(seconds * sample_rate_hz));
    const std::size_t block = static_cast<std::size_t>(sample_rate_hz);
    std::vector<std::vector<std::complex<float>>> x(
        groups, std::vector<std::complex<float>>(block));
    std::vector<std::int16_t> iq(2 * block);
    std::ofstream out(path, std::ios::binary);
    for (std::size_t start = 0; start < total; start += block) {
        const std::size_t n = std::min(block, total - start);
        std::vector<std::thread> threads;
        for (std::size_t g = 0; g < groups; ++g)
            threads.emplace_back([&, g] { parts[g]->signal().generate(x[g].data(), n); });
        for (std::thread& t : threads)
            t.join();
        for (std::size_t i = 0; i < n; ++i) {
            std::complex<float> sum = 0.0f;
            for (std::size_t g = 0; g < groups; ++g)
                sum += x[g][i];
            const auto quantize = [scale](float v) {
                return static_cast<std::int16_t>(
                    std::clamp(std::nearbyint(v * scale), -32768.0, 32767.0));
            };
            iq[2 * i] = quantize(sum.real());
            iq[2 * i + 1] = quantize(sum.imag());
        }
        out.write(reinterpret_cast<const char*>(iq.data()),
                  static_cast<std::streamsize>(2 * n * sizeof(std::int16_t)));
    }
    if (!out)
        throw std::runtime_error("could not write " + path);
    return prns;
}

//! One receiver's run: every epoch with a valid fix.
struct reception {
    std::vector<core::gps_receiver_epoch> fixes;
    std::size_t satellites_detected = 0;
};

//! cudadsp.gnss.receive's chain over the file: the first 10 ms searched for PRN 1 to
//! 32, a channel per detection, then 0.1-s chunks read, correlated and decoded.
reception receive_file(const std::string& path, const std::string& device)
{
    core::pcps_acquisition_config ac;
    ac.sample_rate_hz = sample_rate_hz;
    ac.device = device;
    auto acquisition = core::pcps_acquisition::make(ac);
    core::multichannel_correlator_config cc;
    cc.sample_rate_hz = sample_rate_hz;
    cc.input_format = core::gnss_sample_format::ci16;
    cc.taps = tap_offsets_chips.size();
    cc.max_channels = 32;
    cc.device = device;
    auto correlator = core::multichannel_correlator::make(cc);
    core::gps_receiver_config rc;
    rc.observables.sample_rate_hz = sample_rate_hz;
    rc.pvt.troposphere = core::gnss_troposphere_model::none;
    rc.has_iono_utc = true;
    for (int k = 0; k < 4; ++k) {
        rc.iono_utc.alpha[k] = klobuchar.alpha[k];
        rc.iono_utc.beta[k] = klobuchar.beta[k];
    }
    rc.prompt_tap = 1;
    core::gps_receiver receiver(rc);

    std::ifstream in(path, std::ios::binary);
    const std::size_t chunk = static_cast<std::size_t>(chunk_s * sample_rate_hz);
    std::vector<std::int16_t> iq(2 * chunk);
    reception result;
    core::gnss_correlator_results results;
    bool searched = false;
    while (in) {
        in.read(reinterpret_cast<char*>(iq.data()),
                static_cast<std::streamsize>(iq.size() * sizeof(std::int16_t)));
        const std::size_t n =
            static_cast<std::size_t>(in.gcount()) / (2 * sizeof(std::int16_t));
        if (n == 0)
            break;
        if (!searched) {
            std::vector<int> prns;
            for (int prn = 1; prn <= 32; ++prn)
                prns.push_back(prn);
            std::vector<core::acquisition_detection> found;
            acquisition->search(iq.data(), ac.search_samples(), 0, prns, found);
            for (const core::acquisition_detection& d : found) {
                if (!d.detected)
                    continue;
                core::gnss_channel ch;
                ch.id = static_cast<std::uint32_t>(d.satellite);
                ch.code = core::gps_l1ca_code(d.satellite);
                ch.code_rate_cps = d.code_rate_cps;
                ch.code_phase_chips = d.code_phase_chips;
                ch.carrier_frequency_hz = d.doppler_hz;
                ch.start_sample = d.start_sample;
                ch.tap_offsets_chips = tap_offsets_chips;
                ch.loop.dll_bandwidth_hz = dll_bandwidth_hz;
                ch.loop.fll_bandwidth_hz = fll_bandwidth_hz;
                correlator->add_channel(ch);
                receiver.assign_channel(ch.id, d.satellite);
                ++result.satellites_detected;
            }
            searched = true;
        }
        results.clear();
        correlator->process(iq.data(), n, results);
        for (core::gps_receiver_epoch& e :
             receiver.process(results, correlator->samples_processed()))
            if (e.fix.valid)
                result.fixes.push_back(std::move(e));
    }
    return result;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/*! Checks \p got against the truth; fills the row's status and note. The first fix
 *  must come at the first epoch after the ephemerides (19.45 s, within one epoch of
 *  the receiver clock's offset), every satellite detected and used. */
void check(row& r, const reception& got, double seconds)
{
    const core::gnss_vec3 truth = core::geodetic_to_ecef(receiver_geodetic);
    std::vector<double> horizontal, three_d;
    std::string problem;
    for (const core::gps_receiver_epoch& e : got.fixes) {
        core::gnss_vec3 d;
        for (int k = 0; k < 3; ++k)
            d[k] = e.fix.position_m[k] - truth[k];
        const core::gnss_vec3 enu = core::ecef_to_enu(d, receiver_geodetic);
        horizontal.push_back(std::hypot(enu[0], enu[1]));
        three_d.push_back(std::sqrt(enu[0] * enu[0] + enu[1] * enu[1] + enu[2] * enu[2]));
        if (static_cast<std::size_t>(e.fix.satellites_used) != satellites_expected)
            problem = "a fix used " + std::to_string(e.fix.satellites_used) +
                      " satellites, not " + std::to_string(satellites_expected);
    }
    const double first =
        got.fixes.empty() ? 0.0
                          : got.fixes.front().observations.sample_index / sample_rate_hz;
    const std::size_t fixes_due =
        static_cast<std::size_t>(std::floor(seconds - first_fix_s - 0.1)) + 1;
    if (got.satellites_detected != satellites_expected)
        problem = std::to_string(got.satellites_detected) + " satellites detected, not " +
                  std::to_string(satellites_expected);
    else if (got.fixes.size() < fixes_due)
        problem = std::to_string(got.fixes.size()) + " fixes, " +
                  std::to_string(fixes_due) + " due";
    else if (std::abs(first - first_fix_s) > 0.05)
        problem = "first fix at " + std::to_string(first) + " s, due at 19.45 s";
    else if (*std::max_element(horizontal.begin(), horizontal.end()) > max_horizontal_m ||
             *std::max_element(three_d.begin(), three_d.end()) > max_three_d_m ||
             median(horizontal) > max_median_horizontal_m ||
             median(three_d) > max_median_three_d_m)
        problem = "fix errors beyond 2 m / 3 m (medians 1 m / 2 m)";
    std::ostringstream note;
    note << std::fixed << std::setprecision(2);
    if (!got.fixes.empty())
        note << got.fixes.size() << " fixes from " << first << " s, "
             << got.fixes.back().fix.satellites_used << " sats, median error "
             << median(horizontal) << " m horiz " << median(three_d) << " m 3-D";
    if (!problem.empty())
        note << (got.fixes.empty() ? "" : "; ") << problem;
    r.note = note.str();
    r.status = problem.empty() ? row_status::ok : row_status::failed;
}

//! One receiver over the file, timed on the wall clock and checked.
void measure_receiver(row& r,
                      const std::string& path,
                      const std::string& device,
                      double seconds,
                      int repeats)
{
    r.clock = "wall";
    r.samples = seconds * sample_rate_hz;
    reception got;
    r.time = time_host(0, repeats, [&] { got = receive_file(path, device); });
    check(r, got, seconds);
}

/*! \p count receivers at once, each on its own thread over the file on \p device; the
 *  row's time is the wall time until the last ends, its samples all receivers'. */
void measure_parallel(
    row& r, const std::string& path, const std::string& device, double seconds, int count)
{
    r.clock = "wall";
    r.samples = count * seconds * sample_rate_hz;
    std::vector<reception> got(count);
    std::vector<std::string> errors(count);
    r.time = time_host(0, 1, [&] {
        std::vector<std::thread> threads;
        for (int k = 0; k < count; ++k)
            threads.emplace_back([&, k] {
                try {
                    got[k] = receive_file(path, device);
                } catch (const std::exception& e) {
                    errors[k] = e.what();
                }
            });
        for (std::thread& t : threads)
            t.join();
    });
    for (int k = 0; k < count; ++k) {
        if (!errors[k].empty())
            throw std::runtime_error("receiver " + std::to_string(k) + ": " + errors[k]);
        check(r, got[k], seconds);
        if (r.status != row_status::ok) {
            r.note = "receiver " + std::to_string(k) + ": " + r.note;
            return;
        }
    }
    const double real_time = r.samples / sample_rate_hz / (r.time.median_ms / 1e3);
    std::ostringstream note;
    note << count << " at once: " << static_cast<int>(std::floor(real_time))
         << " receivers' worth of real time; each " << r.note;
    r.note = note.str();
}

void run_receiver(const bench_options& options,
                  const bench_device& device,
                  section_report& report)
{
    const double seconds = options.samples
                               ? static_cast<double>(options.samples) / sample_rate_hz
                               : default_seconds;
    if (seconds < first_fix_s + 1.0)
        throw std::invalid_argument(
            "--samples: the receiver section needs at least " +
            std::to_string(first_fix_s + 1.0) + " s (" +
            std::to_string(static_cast<long long>((first_fix_s + 1.0) * sample_rate_hz)) +
            " samples) for a fix");
    const int repeats = std::max(1, std::min(options.repeats, 3));
    const int parallel = std::max(
        2, std::min<int>(max_parallel_receivers, std::thread::hardware_concurrency()));
    std::ostringstream length;
    length << std::fixed << std::setprecision(1) << seconds << " s ("
           << static_cast<long long>(seconds * sample_rate_hz) << " samples)";
    report.add_parameter("signal",
                         "GPS L1 C/A, 12 satellites at 45 dB-Hz, int16 I/Q, 4 Msps");
    report.add_parameter("length", length.str());
    report.add_parameter(
        "receiver",
        "acquisition of PRN 1-32 on the first 10 ms, 3 taps +-0.25 chip, "
        "DLL 0.25 Hz, FLL 10 Hz until lock, fixes at 1 Hz, troposphere off");
    report.add_parameter("repeats", std::to_string(repeats) + " (cpu: 1)");

    const std::string path =
        (std::filesystem::temp_directory_path() /
         ("cudadsp_bench_receiver_" + std::to_string(::getpid()) + ".ci16"))
            .string();
    struct remove_at_exit {
        std::string path;
        ~remove_at_exit() { std::remove(path.c_str()); }
    } cleanup{ path };
    progress(section_name, "writing " + length.str() + " of signal to " + path);
    write_signal(path, seconds);

    if (device.cuda) {
        progress(section_name, row_cuda);
        report.measure(row_cuda, [&](row& r) {
            measure_receiver(r, path, device.device_string, seconds, repeats);
        });
        progress(section_name, row_many + " (" + std::to_string(parallel) + ")");
        report.measure(row_many, [&](row& r) {
            measure_parallel(r, path, device.device_string, seconds, parallel);
        });
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        report.skip(row_cuda, device.skip_reason);
        report.skip(row_many, device.skip_reason);
    }
    progress(section_name, row_cpu);
    report.measure(row_cpu,
                   [&](row& r) { measure_receiver(r, path, "cpu", seconds, 1); });

    // Time per sample over real time's: signal seconds processed per second.
    report.speedup_over(row_cuda, row_cpu, "speed-up vs cpu");
    report.target_min_rate(row_cuda, sample_rate_hz, target_real_time, "signal s");
    report.add_note("Msamples/s / 4 = the real-time factor (signal seconds per second) "
                    "of one receiver; target >= 30x on the GPU host");
    report.add_note("'" + row_many + "': " + std::to_string(parallel) +
                    " receivers (one per host thread, at most 16) on one GPU, each its "
                    "own acquisition, correlator and host pipeline; the floor of its "
                    "real-time factor is the number of 4-Msps 12-channel receivers the "
                    "GPU and host run at real time (a lower bound when the host threads, "
                    "not the GPU, are the limit)");
    report.add_note("check: every fix within 2 m horizontal / 3 m 3-D of the truth "
                    "(medians 1 m / 2 m), the first at 19.45 s, all 12 satellites used; "
                    "FAIL otherwise");
}

} // namespace

CUDADSP_BENCH_SECTION(
    receiver,
    "receiver",
    "GPS L1 C/A receiver end to end: an int16 file of 12 satellites at 4 Msps to "
    "position fixes (acquisition, multichannel correlator, LNAV, PVT), CUDA and CPU, "
    "real-time factor and receivers per GPU at real time, fixes checked against the "
    "truth",
    run_receiver);

} // namespace bench
} // namespace cudadsp
} // namespace gr
