/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section dense_offsets: the dense-offset estimator (PyCuAmpcor's frequency-domain
// method) on the speed case: a 4096 x 4096 complex float32 pair, window 64 x 64,
// half search 20, skip 32 (the rest PyCuAmpcor's defaults: raw oversampling 2,
// correlation oversampling 16, zoom 16, deramp 1), every window of cuDenseOffsets.py's
// grid. Next to floors measured in the same run: a d2d copy and the pinned H2D copy of
// the pair's bytes, and the bare cuFFT transforms the CUDA backend runs for that many
// windows (its own plans, launches and buffers, nothing else). Rows: the engine's
// device time (event-timed, target <= 2x the cuFFT floor) and wall time from pinned
// host images, the CPU engine on a spread sample of the windows (per window), and the
// same for the configuration compared with ISCE's PyCuAmpcor (window 64 x 32, half
// search 20, skip 32, raw oversampling 2, correlation oversampling 64, zoom 8). The
// CUDA results are checked against the CPU engine's on the sample, the CPU's against
// the planted offset.

#include "bench_harness.h"
#include "cross_correlation/dense_offsets_cuda.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "speckle_field.h"
#include <gnuradio/cudadsp/core/dense_offsets.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

constexpr const char* section_name = "dense_offsets";

using cfloat = std::complex<float>;
using core::offset_result;
using core::offset_window;

// The pair: 4096 x 4096 complex float32, the secondary the reference's speckle field
// moved by (image_dy, image_dx) at coherence 0.9, both tiling a periodic field of
// period image_tile (far longer than a search window).
constexpr int image_side = 4096;
constexpr int image_tile = 2048;
constexpr double image_dy = 1.3;
constexpr double image_dx = -0.6;
constexpr double component_std = 800.0;
constexpr double coherence = 0.9;
constexpr std::uint64_t input_seed = 20261126;

// The grid: skip 32, start at the half search, cuDenseOffsets.py's window count.
constexpr int skip = 32;

// The CPU engine runs a spread sample of the windows (first and last included).
constexpr std::size_t cpu_windows_max = 256;
constexpr int slow_repeats_max = 3;
constexpr int wall_repeats_max = 10;

// Target: the engine's device time at most 2x the bare cuFFT transforms (issue 14).
constexpr double target_cufft_ratio = 2.0;
// The checks (the engine test's tolerances): offsets within one fine step on >= 99 %
// of the sample, SNR, covariance and peak within a relative 1e-3 where they agree;
// the CPU's median offset within truth_tolerance_px of the planted one.
constexpr double stats_rel = 1e-3;
constexpr double truth_tolerance_px = 0.1;

// Outputs are poisoned with all-ones bytes (NaN) before a checked run.
constexpr int poison_byte = 0xff;

const std::string& row_d2d = floor_row_d2d;
const std::string& row_h2d = floor_row_h2d;

//! The rows of one configuration.
struct case_rows {
    std::string make, cufft, device, pinned, cpu;
};

const case_rows speed_rows{ "cuda engine make()",
                            "floor: cuFFT transforms",
                            "cuda engine, device time",
                            "cuda engine, pinned host images",
                            "cpu engine (window sample)" };
const case_rows isce_rows{ "cuda engine make(), ISCE config",
                           "floor: cuFFT transforms, ISCE config",
                           "cuda engine, device time, ISCE config",
                           "cuda engine, pinned host images, ISCE config",
                           "cpu engine (window sample), ISCE config" };

//! A configuration and its grid of windows over the pair.
struct offsets_case {
    std::string label;
    case_rows rows;
    core::dense_offsets_config config;
    std::vector<offset_window> windows;
    std::vector<std::size_t> sample; //!< the CPU engine's windows
    int repeats = 0, slow_repeats = 0, wall_repeats = 0;
};

core::dense_offsets_config make_config(int width, int height, int q, int zoom)
{
    core::dense_offsets_config c;
    c.window_width = width;
    c.window_height = height;
    c.half_search_across = 20;
    c.half_search_down = 20;
    c.raw_oversampling = 2;
    c.corr_oversampling = q;
    c.zoom_window = zoom;
    c.deramp = core::deramp_method::average;
    return c;
}

std::vector<std::size_t> spread(std::size_t n, std::size_t count)
{
    std::vector<std::size_t> out;
    count = std::min(count, n);
    for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = count > 1 ? k * (n - 1) / (count - 1) : 0;
        if (out.empty() || out.back() != i)
            out.push_back(i);
    }
    return out;
}

offsets_case make_case(const std::string& label,
                       const case_rows& rows,
                       const core::dense_offsets_config& config,
                       const bench_options& options)
{
    offsets_case c;
    c.label = label;
    c.rows = rows;
    c.config = config;
    core::offset_grid grid;
    grid.start_down = config.half_search_down;
    grid.start_across = config.half_search_across;
    grid.skip_down = skip;
    grid.skip_across = skip;
    grid.number_down =
        (image_side - 2 * config.half_search_down - config.window_height) / skip;
    grid.number_across =
        (image_side - 2 * config.half_search_across - config.window_width) / skip;
    c.windows = core::make_offset_windows(grid, { 0 }, { 0 });
    c.sample = spread(c.windows.size(), cpu_windows_max);
    c.repeats = std::max(1, options.repeats);
    c.slow_repeats = std::min(c.repeats, slow_repeats_max);
    c.wall_repeats = std::min(c.repeats, wall_repeats_max);
    return c;
}

// ---------------------------------------------------------------------------------
// Input
// ---------------------------------------------------------------------------------

/*!
 * The pair, complex float32, in pinned memory when a device is used (the rows then go
 * up by DMA): the reference is the speckle field, the secondary the field moved by
 * (image_dy, image_dx) with decorrelation noise at the coherence, so a feature at
 * reference (y, x) lies in the secondary at (y + image_dy, x + image_dx).
 */
struct image_pair {
    core::pinned_buffer<cfloat> pinned[2];
    std::vector<cfloat> pageable[2];
    core::image_view view[2];

    std::size_t bytes() const
    {
        return 2 * std::size_t(image_side) * image_side * sizeof(cfloat);
    }
};

void make_pair(image_pair& pair, const bench_device& device)
{
    const std::size_t samples = std::size_t(image_side) * image_side;
    cfloat* images[2];
    for (int img = 0; img < 2; ++img) {
        if (device.cuda) {
            pair.pinned[img] = core::pinned_buffer<cfloat>(samples);
            images[img] = pair.pinned[img].get();
        } else {
            pair.pageable[img].resize(samples);
            images[img] = pair.pageable[img].data();
        }
        pair.view[img] = { images[img],
                           core::slc_sample_type::complex_float32,
                           std::size_t(image_side),
                           std::size_t(image_side) };
    }
    const int P = image_tile;
    const auto tiles = speckle_tile_pair(
        P, input_seed, input_seed + 1000, component_std, image_dy, image_dx, coherence);
    parallel_for(std::size_t(image_side), [&](std::size_t y) {
        for (int img = 0; img < 2; ++img) {
            const cfloat* src = tiles[img].data() + (y % P) * P;
            cfloat* dst = images[img] + y * std::size_t(image_side);
            for (int x = 0; x < image_side; ++x)
                dst[x] = src[x % P];
        }
    });
}

// ---------------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------------

bool unwritten(const offset_result& r)
{
    return std::isnan(r.offset_down) || std::isnan(r.offset_across) || std::isnan(r.peak);
}

bool close_rel(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

//! The statistics of a window that agrees in offset: the engine test's rule.
bool stats_agree(const offset_result& a, const offset_result& b)
{
    if (!close_rel(a.snr, b.snr, stats_rel) || !close_rel(a.peak, b.peak, stats_rel))
        return false;
    if ((a.cov_down == 99.0f) != (b.cov_down == 99.0f))
        return false;
    if (b.cov_down == 99.0f)
        return true;
    const double scale = std::max(std::fabs(b.cov_down), std::fabs(b.cov_across));
    return std::fabs(a.cov_down - b.cov_down) <= stats_rel * scale &&
           std::fabs(a.cov_across - b.cov_across) <= stats_rel * scale &&
           std::fabs(a.cov_cross - b.cov_cross) <= stats_rel * scale;
}

/*!
 * The CUDA results against the CPU engine's on the sample: every result written,
 * offsets within one fine step on >= 99 % of the sample, statistics as the engine
 * test where the offsets agree.
 */
void check_results(row& r,
                   const offsets_case& c,
                   const std::vector<offset_result>& got,
                   const std::vector<offset_result>& reference)
{
    std::size_t missing = 0;
    for (const auto& x : got)
        missing += unwritten(x);
    const double step =
        1.0 / (double(c.config.corr_oversampling) * c.config.raw_oversampling);
    std::size_t beyond = 0, stats = 0;
    std::string first;
    for (std::size_t i = 0; i < c.sample.size(); ++i) {
        const offset_result& a = got[c.sample[i]];
        const offset_result& b = reference[i];
        if (std::fabs(a.offset_down - b.offset_down) > 1.01 * step ||
            std::fabs(a.offset_across - b.offset_across) > 1.01 * step) {
            ++beyond;
            continue;
        }
        if (!stats_agree(a, b)) {
            if (!stats) {
                std::ostringstream os;
                os << "window " << c.sample[i] << ": snr " << a.snr << " peak " << a.peak
                   << " cov " << a.cov_down << ", cpu " << b.snr << " " << b.peak << " "
                   << b.cov_down;
                first = os.str();
            }
            ++stats;
        }
    }
    if (missing) {
        r.status = row_status::failed;
        r.note = std::to_string(missing) + " of " + std::to_string(got.size()) +
                 " windows were not written";
    } else if (beyond * 100 > c.sample.size()) {
        r.status = row_status::failed;
        r.note = std::to_string(beyond) + " of " + std::to_string(c.sample.size()) +
                 " checked windows beyond one fine step of the cpu engine";
    } else if (stats) {
        r.status = row_status::failed;
        r.note =
            std::to_string(stats) + " checked windows' statistics differ, first " + first;
    } else {
        r.status = row_status::ok;
        r.note = std::to_string(beyond) + " of " + std::to_string(c.sample.size()) +
                 " checked windows beyond one fine step";
    }
}

//! Median of the sample's offsets minus the planted one, pixels (down, across).
std::pair<double, double> median_error(const std::vector<offset_result>& results)
{
    std::vector<double> d, a;
    for (const auto& x : results) {
        d.push_back(double(x.offset_down) - image_dy);
        a.push_back(double(x.offset_across) - image_dx);
    }
    auto median = [](std::vector<double>& v) {
        if (v.empty())
            return std::nan("");
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    return { median(d), median(a) };
}

std::string format(double v, int precision = 3)
{
    std::ostringstream os;
    os.precision(precision);
    os << v;
    return os.str();
}

std::string per_window(const row& r, std::size_t windows)
{
    char text[64];
    std::snprintf(
        text, sizeof text, "%.2f us/window", r.time.median_ms * 1e3 / double(windows));
    return text;
}

// ---------------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------------

//! The CPU engine of a case and the windows of its sample.
std::unique_ptr<core::dense_offsets_estimator>
cpu_engine(const offsets_case& c, std::vector<offset_window>& windows)
{
    core::dense_offsets_config config = c.config;
    config.device = "cpu";
    windows.clear();
    for (const std::size_t k : c.sample)
        windows.push_back(c.windows[k]);
    return core::dense_offsets_estimator::make(config);
}

//! The CPU engine on the sample, one call: the reference of the CUDA rows.
std::vector<offset_result> cpu_reference(const offsets_case& c, const image_pair& pair)
{
    progress(section_name,
             "reference: cpu engine on " + std::to_string(c.sample.size()) +
                 " windows, " + c.label);
    std::vector<offset_window> windows;
    auto engine = cpu_engine(c, windows);
    std::vector<offset_result> out(windows.size());
    std::memset(out.data(), poison_byte, out.size() * sizeof(offset_result));
    engine->estimate(
        pair.view[0], pair.view[1], windows.data(), windows.size(), out.data());
    return out;
}

void measure_cpu(row& r,
                 const offsets_case& c,
                 const image_pair& pair,
                 const std::vector<offset_result>& reference)
{
    std::vector<offset_window> windows;
    auto engine = cpu_engine(c, windows);
    std::vector<offset_result> out(windows.size());
    r.clock = "wall";
    r.samples = double(windows.size());
    r.time = time_host(1, c.slow_repeats, [&] {
        engine->estimate(
            pair.view[0], pair.view[1], windows.data(), windows.size(), out.data());
    });
    const auto error = median_error(reference);
    const bool truth = std::fabs(error.first) <= truth_tolerance_px &&
                       std::fabs(error.second) <= truth_tolerance_px;
    r.status = truth ? row_status::ok : row_status::failed;
    r.note = per_window(r, windows.size()) + "; median error vs planted (" +
             format(error.first) + ", " + format(error.second) + ") px";
}

//! The CUDA rows of one configuration: make(), the cuFFT floor, device time, wall time.
void measure_cuda(section_report& report,
                  const offsets_case& c,
                  const image_pair& pair,
                  const std::vector<offset_result>& reference,
                  const bench_device& device)
{
    core::dense_offsets_config config = c.config;
    config.device = device.device_string;
    std::unique_ptr<core::dense_offsets_estimator> engine;
    const std::size_t n = c.windows.size();

    progress(section_name, c.rows.make);
    report.measure(c.rows.make, [&](row& r) {
        const auto t0 = std::chrono::steady_clock::now();
        engine = core::dense_offsets_estimator::make(config);
        const auto t1 = std::chrono::steady_clock::now();
        r.clock = "wall";
        r.time =
            summarize({ std::chrono::duration<double, std::milli>(t1 - t0).count() });
        const auto& cuda = static_cast<const core::dense_offsets_cuda&>(*engine);
        r.note = "buffers and cuFFT plans, batch " +
                 std::to_string(cuda.batch_windows()) +
                 " windows (the device context exists already)";
    });
    if (!engine) {
        for (const auto& name : { c.rows.cufft, c.rows.device, c.rows.pinned })
            report.error(name, "no engine (row '" + c.rows.make + "')");
        return;
    }
    auto& cuda = static_cast<core::dense_offsets_cuda&>(*engine);
    std::vector<offset_result> out(n);

    // The checked run first: it also leaves the engine's buffers holding real data for
    // the transform floor.
    progress(section_name, c.rows.pinned);
    report.measure(c.rows.pinned, [&](row& r) {
        std::memset(out.data(), poison_byte, n * sizeof(offset_result));
        engine->estimate(pair.view[0], pair.view[1], c.windows.data(), n, out.data());
        check_results(r, c, out, reference);
        r.clock = "wall";
        r.samples = double(n);
        r.bytes = double(pair.bytes());
        r.time = time_host(1, c.wall_repeats, [&] {
            engine->estimate(pair.view[0], pair.view[1], c.windows.data(), n, out.data());
        });
        const core::offsets_timing& t = engine->last_timing();
        r.note += "; " + per_window(r, n) + "; upload " + format(t.upload_ms) +
                  " ms, compute " + format(t.compute_ms) + " ms (events)";
    });

    report.measure(c.rows.device, [&](row& r) {
        std::vector<double> ms;
        for (int i = 0; i < c.repeats; ++i) {
            engine->estimate(pair.view[0], pair.view[1], c.windows.data(), n, out.data());
            ms.push_back(engine->last_timing().compute_ms);
        }
        r.clock = "events";
        r.samples = double(n);
        r.time = summarize(ms);
        r.note = per_window(r, n) + "; every batch's kernels and transforms, the row "
                                    "uploads excluded";
    });

    report.measure(c.rows.cufft, [&](row& r) {
        r.clock = "events";
        r.samples = double(n);
        r.time =
            time_cuda(cuda.stream(), 2, c.repeats, [&] { cuda.enqueue_transforms(n); });
        r.note = cuda.transform_summary();
    });
}

void add_parameters(section_report& report,
                    const offsets_case& speed,
                    const offsets_case& isce,
                    const bench_device& device)
{
    report.add_parameter("image",
                         std::to_string(image_side) + " x " + std::to_string(image_side) +
                             " complex float32 pair" +
                             (device.cuda ? ", pinned" : ", pageable"));
    report.add_parameter("planted offset (down, across)",
                         "(" + format(image_dy) + ", " + format(image_dx) + ") px");
    auto describe = [](const offsets_case& c) {
        const core::dense_offsets_config& k = c.config;
        std::ostringstream os;
        os << "window " << k.window_width << " x " << k.window_height
           << " (across x down), half search " << k.half_search_down << ", skip " << skip
           << ", raw ovs " << k.raw_oversampling << ", corr ovs " << k.corr_oversampling
           << ", zoom " << k.zoom_window << ", deramp 1, " << c.windows.size()
           << " windows";
        return os.str();
    };
    report.add_parameter("speed case", describe(speed));
    report.add_parameter("ISCE config", describe(isce));
    report.add_parameter("cpu sample",
                         std::to_string(speed.sample.size()) + " windows spread over "
                                                               "the grid");
}

void add_ratios_and_targets(section_report& report)
{
    for (const case_rows* rows : { &speed_rows, &isce_rows }) {
        report.ratio_to(rows->device, rows->cufft, "cuFFT floor");
        report.speedup_over(rows->pinned, rows->cpu, "speed-up vs cpu");
    }
    report.target_max_ratio(speed_rows.device, "x cuFFT floor", target_cufft_ratio);
    report.ratio_to(speed_rows.device, row_d2d, "d2d copy");
    report.ratio_to(speed_rows.pinned, row_h2d, "pinned H2D");
}

void add_notes(section_report& report)
{
    report.add_note("a sample is one window: ratios compare time per window; the "
                    "floors are timed on the speed case's window count");
    report.add_note(
        "'floor: cuFFT transforms': the engine's own plans, launches and buffers for "
        "all windows of the call (enqueue_transforms()), nothing else; the engine adds "
        "the window loads and amplitudes, the window sums of the normalisation, the "
        "cross spectra, the peak and statistics kernels, the spectrum placements and "
        "the fine peak");
    report.add_note("check: cuda against the cpu engine on the sample (offsets within "
                    "one fine step on >= 99 %, SNR, covariance and peak within a "
                    "relative 1e-3 where they agree, every window written); the cpu "
                    "rows against the planted offset (median error <= " +
                    format(truth_tolerance_px) + " px)");
}

void run_dense_offsets(const bench_options& options,
                       const bench_device& device,
                       section_report& report)
{
    const offsets_case speed =
        make_case("speed case", speed_rows, make_config(64, 64, 16, 16), options);
    const offsets_case isce =
        make_case("ISCE config", isce_rows, make_config(64, 32, 64, 8), options);
    add_parameters(report, speed, isce, device);

    progress(section_name, "synthetic pair");
    image_pair pair;
    make_pair(pair, device);
    const double n = double(speed.windows.size());

    if (device.cuda) {
        report.measure(row_d2d, [&](row& r) {
            r = floor_d2d_copy(pair.bytes(), n, speed.repeats);
            r.note = "the pair's bytes";
        });
        report.measure(row_h2d, [&](row& r) {
            r = floor_h2d_pinned(pair.bytes(), n, speed.repeats);
            r.note = "the pair's bytes";
        });
    } else {
        progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
        for (const auto& name : { row_d2d, row_h2d })
            report.skip(name, device.skip_reason);
    }

    for (const offsets_case* c : { &speed, &isce }) {
        const std::vector<offset_result> reference = cpu_reference(*c, pair);
        if (device.cuda) {
            measure_cuda(report, *c, pair, reference, device);
        } else {
            for (const auto& name :
                 { c->rows.make, c->rows.cufft, c->rows.device, c->rows.pinned })
                report.skip(name, device.skip_reason);
        }
        progress(section_name, c->rows.cpu);
        report.measure(c->rows.cpu, [&](row& r) { measure_cpu(r, *c, pair, reference); });
    }

    add_ratios_and_targets(report);
    add_notes(report);
}

} // namespace

CUDADSP_BENCH_SECTION(
    dense_offsets,
    "dense_offsets",
    "dense offsets (PyCuAmpcor's method) on a 4096 x 4096 complex float32 pair, window "
    "64 x 64, half search 20, skip 32: CUDA engine device time (target <= 2x the bare "
    "cuFFT transforms it runs) and wall time from pinned images next to the pair's "
    "copy floors, CPU engine on a sample of windows; the same for ISCE's comparison "
    "configuration (window 64 x 32, corr ovs 64, zoom 8)",
    run_dense_offsets);

} // namespace bench
} // namespace cudadsp
} // namespace gr
