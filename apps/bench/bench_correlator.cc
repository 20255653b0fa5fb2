/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Section correlator: the multichannel GNSS correlator at the rate of Xu et al. 2016
// (9.75 Msps complex, 3 taps: early, prompt, late), in channels kept in real time.
//
// The baseline is the paper's GPU design (gnss_paper_baseline.cu: one thread block per
// channel, per-sample sincosf and float code index, shared-memory block reduction),
// launched once per 1 ms epoch for all channels as the paper's receiver does, without
// tracking. Our engine runs its channels with the tracking loops on (DLL and Costas
// PLL per epoch on the GPU), on complex float32, int16 and int8 input. Every row
// processes one buffer of default 20 ms; a row's "samples" are channel-samples
// (channels x buffer samples), so Msamples/s is channel-samples per second and the
// real-time channel count is that rate over 9.75 Msps. Target: the engine's cf32
// tracking row at >= 4x the baseline's real-time channels.
//
// Input: GPS L1 C/A channels (PRNs cycling), a few matched to simulated satellites at
// 50 dB-Hz in noise, the others at random code phases and Dopplers within +-5 kHz.

#include "bench_harness.h"
#include "correlator_bench_input.h"
#include "gnss/multichannel_correlator_cuda.h"
#include "gnss_paper_baseline.h"
#include "pattern_source.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/splitmix64.h"
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/top_block.h>
#include <algorithm>
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

using namespace correlator_bench;

constexpr const char* section_name = "correlator";

constexpr std::size_t default_samples = 20 * epoch_samples;
constexpr double half_spacing_chips = 0.5;
// Channels: enough to fill the GPU many times over (the paper's kernel loops its 256
// blocks over them; ours runs 8 per block, tens of waves).
constexpr std::size_t baseline_channels = 32768;
constexpr std::size_t engine_channels = 3 * 32768;
constexpr std::size_t cpu_channels_per_thread = 4;
constexpr double target_x_baseline = 4.0;
constexpr int slow_repeats = 3;

const std::string row_d2d = "floor: d2d copy, cf32 buffer";
const std::string row_h2d_cf32 = "floor: pinned H2D, cf32 buffer";
const std::string row_h2d_ci16 = "floor: pinned H2D, ci16 buffer";
const std::string row_h2d_ci8 = "floor: pinned H2D, ci8 buffer";
const std::string row_baseline = "paper baseline (Xu 2016), cf32, no tracking";
const std::string row_kernel_cf32 = "cuda engine, device input, tracking, cf32";
const std::string row_kernel_ci16 = "cuda engine, device input, tracking, ci16";
const std::string row_kernel_ci8 = "cuda engine, device input, tracking, ci8";
const std::string row_kernel_open = "cuda engine, device input, open loop, cf32";
const std::string row_call_device = "cuda engine call, device input, tracking, cf32";
const std::string row_call_cf32 = "cuda engine call, pinned input, tracking, cf32";
const std::string row_call_ci16 = "cuda engine call, pinned input, tracking, ci16";
const std::string row_call_ci8 = "cuda engine call, pinned input, tracking, ci8";
const std::string row_cpu = "cpu engine, tracking, cf32";
const std::string row_flowgraph = "flowgraph, cuda block, 1024 tracking channels, cf32";

// The block's target: 1000 tracking channels on a 9.75 Msps stream in real time.
constexpr std::size_t flowgraph_channels = 1024;
// The source repeats one simulated second; the timed run is two (flowgraph start-up
// and the block's page-locking of its buffers are part of what a user sees).
constexpr double flowgraph_pattern_s = 1.0;
constexpr double flowgraph_run_s = 2.0;
const std::string column_baseline = "x paper channels";

core::multichannel_correlator_config engine_config(const std::string& device,
                                                   core::gnss_sample_format f)
{
    core::multichannel_correlator_config config;
    config.sample_rate_hz = sample_rate_hz;
    config.input_format = f;
    config.taps = taps;
    config.max_channels = engine_channels;
    config.device = device;
    return config;
}

std::unique_ptr<core::multichannel_correlator>
make_engine(const std::string& device,
            core::gnss_sample_format f,
            const std::vector<channel_plan>& plan,
            std::size_t channels,
            bool tracking)
{
    auto engine = core::multichannel_correlator::make(engine_config(device, f));
    for (std::size_t i = 0; i < channels; ++i) {
        core::gnss_channel c;
        c.id = static_cast<std::uint32_t>(i);
        c.code = core::gps_l1ca_code(plan[i].prn);
        c.code_phase_chips = plan[i].code_phase_chips;
        c.carrier_frequency_hz = plan[i].doppler_hz;
        c.code_rate_cps = code_rate_of(plan[i].doppler_hz);
        c.mode = tracking ? core::gnss_channel_mode::tracking
                          : core::gnss_channel_mode::open_loop;
        engine->add_channel(c);
    }
    return engine;
}

/*!
 * The first call's records: every channel completes the epochs the buffer holds (one
 * fewer or more for the first, partial one), and the matched channels' first epochs
 * agree with the float64 reference within 1e-4 of max(|reference|, scale), the prompt
 * standing well above the noise.
 */
void check_engine_records(row& r,
                          const core::gnss_correlator_results& results,
                          const std::vector<std::complex<double>>& x,
                          const std::vector<channel_plan>& plan,
                          std::size_t channels)
{
    const std::size_t n = x.size();
    const std::size_t least = n / (epoch_samples + 1) - 1;
    std::vector<std::size_t> count(channels, 0), first(channels, results.records.size());
    for (std::size_t i = 0; i < results.records.size(); ++i) {
        const auto id = results.records[i].channel_id;
        if (id >= channels) {
            r.status = row_status::failed;
            r.note = "record of an unknown channel " + std::to_string(id);
            return;
        }
        if (count[id]++ == 0)
            first[id] = i;
    }
    for (std::size_t id = 0; id < channels; ++id)
        if (count[id] < least || count[id] > least + 3) {
            r.status = row_status::failed;
            r.note = "channel " + std::to_string(id) + " completed " +
                     std::to_string(count[id]) + " epochs, expected about " +
                     std::to_string(n / epoch_samples);
            return;
        }
    for (int s = 0; s < satellite_count; ++s) {
        const auto [ref, scale] = reference_first_epoch(x, plan[s]);
        for (std::size_t k = 0; k < taps; ++k) {
            const std::complex<double> got(results.taps_of(first[s])[k]);
            const double tol = 1e-4 * std::max(std::abs(ref[k]), scale);
            if (!(std::abs(got - ref[k]) <= tol)) {
                std::ostringstream os;
                os << "channel " << s << " tap " << k << ": " << got << " against "
                   << ref[k] << " (tolerance " << tol << ")";
                r.status = row_status::failed;
                r.note = os.str();
                return;
            }
        }
        if (!(std::abs(ref[1]) > 5.0 * scale)) {
            r.status = row_status::failed;
            r.note = "satellite " + std::to_string(s) + " not above the noise";
            return;
        }
    }
    r.status = row_status::ok;
}

std::string channels_text(const row& r)
{
    if (!r.measured() || r.samples <= 0 || r.time.median_ms <= 0)
        return "-";
    const double rate = r.samples / (r.time.median_ms * 1e-3);
    std::ostringstream os;
    os << std::llround(rate / sample_rate_hz) << " channels in real time, "
       << std::setprecision(3) << rate / 1e9 << " G channel-samples/s";
    return os.str();
}

//! The channels of \p plan as the block's channel dicts
//! (docs/blocks/multichannel_correlator_cc.md).
pmt::pmt_t channel_dicts(const std::vector<channel_plan>& plan, std::size_t channels)
{
    pmt::pmt_t v = pmt::make_vector(channels, pmt::PMT_NIL);
    for (std::size_t i = 0; i < channels; ++i) {
        pmt::pmt_t d = pmt::make_dict();
        d = pmt::dict_add(d, pmt::intern("id"), pmt::from_long(long(i)));
        d = pmt::dict_add(d, pmt::intern("prn"), pmt::from_long(plan[i].prn));
        d = pmt::dict_add(d,
                          pmt::intern("code_phase_chips"),
                          pmt::from_double(plan[i].code_phase_chips));
        d = pmt::dict_add(
            d, pmt::intern("doppler_hz"), pmt::from_double(plan[i].doppler_hz));
        d = pmt::dict_add(d,
                          pmt::intern("code_rate_cps"),
                          pmt::from_double(code_rate_of(plan[i].doppler_hz)));
        d = pmt::dict_add(d, pmt::intern("mode"), pmt::intern("tracking"));
        d = pmt::dict_add(d, pmt::intern("start_sample"), pmt::from_long(0));
        pmt::vector_set(v, i, d);
    }
    return v;
}

/*
 * multichannel_correlator_cc with flowgraph_channels tracking channels between a
 * pattern source of simulated signal and null sinks, timed on the host clock around
 * tb->run(). Checked: every input sample consumed, and as many records as the
 * channels' 1 ms epochs in the run (each channel one fewer or more at the ends).
 */
void measure_block_flowgraph(row& r,
                             const std::string& device,
                             const std::vector<std::complex<float>>& pattern,
                             const std::vector<channel_plan>& plan,
                             int repeats)
{
    const auto items = static_cast<std::size_t>(flowgraph_run_s * sample_rate_hz);
    const std::vector<double> tap_offsets = { -0.5, 0.0, 0.5 };
    std::vector<double> ms;
    for (int i = 0; i < repeats + 1; ++i) {
        auto tb = gr::make_top_block("correlator_bench");
        auto source = gnuradio::make_block_sptr<pattern_source>(
            std::vector<std::vector<unsigned char>>{ pattern_source::bytes_of(pattern) },
            sizeof(gr_complex),
            items);
        multichannel_correlator_block_config config;
        config.sample_rate_hz = sample_rate_hz;
        config.tap_offsets_chips = tap_offsets;
        config.max_channels = flowgraph_channels;
        config.channels = channel_dicts(plan, flowgraph_channels);
        config.device = device;
        // A constant channel set: most channels follow no satellite and would time out.
        config.lock_loss_windows = 0;
        config.lock_timeout_windows = 0;
        auto block = multichannel_correlator_cc::make(config);
        // Room for two of the block's 10 ms batches upstream.
        source->set_min_output_buffer(int(2 * 0.010 * sample_rate_hz));
        tb->connect(source, 0, block, 0);
        tb->connect(block,
                    0,
                    gr::blocks::null_sink::make(sizeof(gr_complex) * tap_offsets.size()),
                    0);
        tb->connect(block,
                    1,
                    gr::blocks::null_sink::make(sizeof(double) * gnss_state_field_count),
                    0);
        const auto begin = std::chrono::steady_clock::now();
        tb->run();
        const auto end = std::chrono::steady_clock::now();
        if (i == 0) { // warm-up (CUDA context, first launches) and the check
            const std::uint64_t records = block->nitems_written(0);
            const double epochs = flowgraph_run_s * 1000.0 * double(flowgraph_channels);
            if (block->samples_processed() != items ||
                std::fabs(double(records) - epochs) > double(flowgraph_channels)) {
                r.status = row_status::failed;
                r.note = std::to_string(block->samples_processed()) + " of " +
                         std::to_string(items) + " samples consumed, " +
                         std::to_string(records) + " records (expected about " +
                         std::to_string(std::llround(epochs)) + ")";
                return;
            }
            r.status = row_status::ok;
            continue;
        }
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }
    r.clock = "wall";
    r.samples = double(flowgraph_channels) * double(items);
    r.bytes = double(items) * sizeof(gr_complex);
    r.time = summarize(std::move(ms));
    std::ostringstream note;
    note.precision(3);
    note << flowgraph_run_s * 1e3 / r.time.median_ms << " x real time ("
         << flowgraph_channels << " channels, 9.75 Msps stream)";
    r.note = note.str();
}

//! What the rows share: the buffer in its three formats, the channels and the cf32
//! buffer in float64 for the checks.
struct section_input {
    std::size_t n;
    int repeats;
    input_buffers in;
    std::vector<channel_plan> plan;
    std::vector<std::complex<double>> x_cf32;
};

void add_parameters(section_report& report, std::size_t n, std::size_t cpu_channels)
{
    report.add_parameter("sample_rate", "9.75 Msps complex (the paper's)");
    report.add_parameter("buffer",
                         std::to_string(n) + " samples (" +
                             std::to_string(double(n) / sample_rate_hz * 1e3) + " ms)");
    report.add_parameter("taps", "3 (early, prompt, late, 0.5 chip spacing)");
    report.add_parameter("channels",
                         "baseline " + std::to_string(baseline_channels) +
                             ", cuda engine " + std::to_string(engine_channels) +
                             ", cpu engine " + std::to_string(cpu_channels));
    report.add_parameter("input",
                         std::to_string(satellite_count) +
                             " GPS satellites at 50 dB-Hz in unit noise, seed " +
                             std::to_string(input_seed));
}

void measure_copy_floors(section_report& report, std::size_t n, int repeats)
{
    report.measure(row_d2d, [&](row& r) {
        r = floor_d2d_copy(n * 8, double(n), repeats);
        r.note = "the cf32 buffer; read + write counted";
    });
    report.measure(row_h2d_cf32, [&](row& r) {
        r = floor_h2d_pinned(n * 8, double(n), repeats);
        r.note = "the cf32 buffer";
    });
    report.measure(row_h2d_ci16, [&](row& r) {
        r = floor_h2d_pinned(n * 4, double(n), repeats);
        r.note = "the ci16 buffer";
    });
    report.measure(row_h2d_ci8, [&](row& r) {
        r = floor_h2d_pinned(n * 2, double(n), repeats);
        r.note = "the ci8 buffer";
    });
}

//! The 32 GPS L1 C/A codes as the paper's kernel reads them, one row of 1023 chips
//! per PRN.
std::vector<float> paper_code_table()
{
    std::vector<float> codes(32 * 1023);
    for (int prn = 1; prn <= 32; ++prn) {
        const auto c = core::gps_l1ca_code(prn);
        for (int k = 0; k < 1023; ++k)
            codes[(prn - 1) * 1023 + k] = float(c[k]);
    }
    return codes;
}

//! The paper's per-launch channel parameters for every epoch of the buffer, each
//! channel's code and carrier phases advanced to the epoch's start.
std::vector<paper_channel> paper_channels(const std::vector<channel_plan>& plan,
                                          std::size_t epochs,
                                          std::size_t nch,
                                          const float* d_codes)
{
    std::vector<paper_channel> channels(epochs * nch);
    for (std::size_t e = 0; e < epochs; ++e)
        for (std::size_t i = 0; i < nch; ++i) {
            const channel_plan& p = plan[i];
            const double t = double(e * epoch_samples) / sample_rate_hz;
            paper_channel& c = channels[e * nch + i];
            c.code = d_codes + (p.prn - 1) * 1023;
            c.code_length = 1023;
            c.code_phase_chips = float(
                std::fmod(p.code_phase_chips + code_rate_of(p.doppler_hz) * t, 1023.0));
            c.code_rate_cps = float(code_rate_of(p.doppler_hz));
            c.carrier_hz = float(p.doppler_hz);
            c.carrier_phase_rad = float(std::fmod(2.0 * pi * p.doppler_hz * t, 2.0 * pi));
            c.sample_base = int(e * epoch_samples);
            c.sample_count = int(epoch_samples);
        }
    return channels;
}

/*!
 * The matched channels' first epoch of the baseline's output (6 floats per channel:
 * early, prompt, late) against the float64 reference of the same (continuous) model;
 * the paper's float code index picks other chips near chip edges now and then, so 1 %
 * of the scale.
 */
void check_paper_prompts(row& r,
                         const std::vector<float>& out,
                         const section_input& input)
{
    r.status = row_status::ok;
    for (int s = 0; s < satellite_count; ++s) {
        const auto [ref, scale] = reference_first_epoch(input.x_cf32, input.plan[s]);
        const std::complex<double> prompt(out[6 * s + 2], out[6 * s + 3]);
        if (!(std::abs(prompt - ref[1]) <= 1e-2 * std::max(std::abs(ref[1]), scale)) ||
            !(std::abs(prompt) > 5.0 * scale)) {
            std::ostringstream os;
            os << "satellite " << s << ": prompt " << prompt << ", reference " << ref[1];
            r.status = row_status::failed;
            r.note = os.str();
        }
    }
}

/*!
 * The paper's kernel: one launch per 1 ms epoch for all channels (the paper's receiver
 * loop), channel parameters for every epoch prepared beforehand.
 */
void measure_paper_baseline(row& r, const section_input& input)
{
    const std::size_t n = input.n;
    const std::size_t epochs = n / epoch_samples;
    if (epochs == 0)
        throw std::invalid_argument("--samples must hold at least one 1 ms epoch");
    const std::size_t nch = baseline_channels;
    core::cuda_stream stream;
    core::device_buffer<float2> d_if(n);
    CUDADSP_CUDA(cudaMemcpyAsync(
        d_if.get(), input.in.cf32.data(), n * 8, cudaMemcpyHostToDevice, stream.get()));
    const std::vector<float> codes = paper_code_table();
    core::device_buffer<float> d_codes(codes.size());
    CUDADSP_CUDA(cudaMemcpyAsync(d_codes.get(),
                                 codes.data(),
                                 codes.size() * 4,
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    const std::vector<paper_channel> channels =
        paper_channels(input.plan, epochs, nch, d_codes.get());
    core::device_buffer<paper_channel> d_channels(channels.size());
    CUDADSP_CUDA(cudaMemcpyAsync(d_channels.get(),
                                 channels.data(),
                                 channels.size() * sizeof(paper_channel),
                                 cudaMemcpyHostToDevice,
                                 stream.get()));
    core::device_buffer<float> d_out(epochs * nch * 6);
    auto run_all = [&] {
        for (std::size_t e = 0; e < epochs; ++e)
            launch_paper_correlator(d_if.get(),
                                    d_channels.get() + e * nch,
                                    int(nch),
                                    float(sample_rate_hz),
                                    float(half_spacing_chips),
                                    d_out.get() + e * nch * 6,
                                    stream.get());
    };
    run_all();
    std::vector<float> out(6 * nch);
    CUDADSP_CUDA(cudaMemcpyAsync(
        out.data(), d_out.get(), out.size() * 4, cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    check_paper_prompts(r, out, input);
    r.clock = "events";
    r.samples = double(nch) * double(epochs * epoch_samples);
    r.bytes = double(epochs * epoch_samples) * 8.0;
    r.time = time_cuda(stream.get(), 1, input.repeats, run_all);
    if (r.status == row_status::ok)
        r.note = channels_text(r) + "; " + std::to_string(epochs) + " launches of " +
                 std::to_string(nch) + " channels";
}

/*!
 * Device-resident input: the kernel's time (with the conversion of integer input and
 * the gathering of the records on the device, from the engine's events), or with
 * \p whole_call the process_device() call on the host clock, over repeated calls on
 * the same engine (the loops go on).
 */
void measure_engine_device_input(row& r,
                                 const section_input& input,
                                 const bench_device& device,
                                 core::gnss_sample_format f,
                                 bool tracking,
                                 bool whole_call)
{
    const std::size_t n = input.n;
    const auto x = as_double(input.in, f);
    const std::size_t bytes = n * core::bytes_per_sample(f);
    core::device_buffer<unsigned char> d_in(bytes);
    CUDADSP_CUDA(
        cudaMemcpy(d_in.get(), host_data(input.in, f), bytes, cudaMemcpyHostToDevice));
    auto engine =
        make_engine(device.device_string, f, input.plan, engine_channels, tracking);
    auto& cuda = dynamic_cast<core::multichannel_correlator_cuda&>(*engine);
    core::gnss_correlator_results results;
    cuda.process_device(d_in.get(), n, results);
    check_engine_records(r, results, x, input.plan, engine_channels);
    std::vector<double> device_ms, call_ms;
    std::size_t records = 0;
    for (int i = 0; i < input.repeats + 1; ++i) {
        results.clear();
        cuda.process_device(d_in.get(), n, results);
        if (i == 0)
            continue; // warm-up
        const core::gnss_cuda_timing& t = cuda.last_timing();
        device_ms.push_back(t.convert_ms + t.correlate_ms + t.compact_ms);
        call_ms.push_back(t.total_ms);
        records = t.records;
    }
    r.clock = whole_call ? "wall" : "events";
    r.samples = double(engine_channels) * double(n);
    r.bytes = double(bytes);
    r.time = summarize(whole_call ? call_ms : device_ms);
    if (r.status == row_status::ok) {
        std::ostringstream os;
        os << channels_text(r) << "; " << records << " records per call";
        if (!whole_call)
            os << "; " << cuda.channels_per_block() << " channels per block, "
               << cuda.tile_samples() << "-sample tiles";
        r.note = os.str();
    }
}

//! process() from pinned host memory: upload, kernel, records to the caller.
void measure_engine_pinned_call(row& r,
                                const section_input& input,
                                const bench_device& device,
                                core::gnss_sample_format f)
{
    const std::size_t n = input.n;
    const auto x = as_double(input.in, f);
    const std::size_t bytes = n * core::bytes_per_sample(f);
    core::pinned_buffer<unsigned char> pinned(bytes);
    std::memcpy(pinned.get(), host_data(input.in, f), bytes);
    auto engine = make_engine(device.device_string, f, input.plan, engine_channels, true);
    core::gnss_correlator_results results;
    engine->process(pinned.get(), n, results);
    check_engine_records(r, results, x, input.plan, engine_channels);
    r.clock = "wall";
    r.samples = double(engine_channels) * double(n);
    r.bytes = double(bytes);
    r.time = time_host(1, input.repeats, [&] {
        results.clear();
        engine->process(pinned.get(), n, results);
    });
    if (r.status == row_status::ok) {
        const auto& t =
            dynamic_cast<core::multichannel_correlator_cuda&>(*engine).last_timing();
        std::ostringstream os;
        os << channels_text(r) << "; last call: upload " << std::setprecision(3)
           << t.upload_ms << " ms, kernel " << t.correlate_ms << " ms, records down "
           << t.download_ms << " ms, appended in " << t.assemble_ms << " ms";
        r.note = os.str();
    }
}

void measure_cuda_rows(section_report& report,
                       const section_input& input,
                       const bench_device& device)
{
    using format = core::gnss_sample_format;
    warn_if_cache_resident(section_name, input.n * sizeof(float2), device);
    progress(section_name, "copy floors");
    measure_copy_floors(report, input.n, input.repeats);

    progress(section_name, row_baseline);
    report.measure(row_baseline, [&](row& r) { measure_paper_baseline(r, input); });

    const auto device_input_row =
        [&](const std::string& name, format f, bool tracking, bool whole_call) {
            progress(section_name, name);
            report.measure(name, [&](row& r) {
                measure_engine_device_input(r, input, device, f, tracking, whole_call);
            });
        };
    device_input_row(row_kernel_cf32, format::cf32, true, false);
    device_input_row(row_kernel_ci16, format::ci16, true, false);
    device_input_row(row_kernel_ci8, format::ci8, true, false);
    device_input_row(row_kernel_open, format::cf32, false, false);
    device_input_row(row_call_device, format::cf32, true, true);

    const auto pinned_call_row = [&](const std::string& name, format f) {
        progress(section_name, name);
        report.measure(name,
                       [&](row& r) { measure_engine_pinned_call(r, input, device, f); });
    };
    pinned_call_row(row_call_cf32, format::cf32);
    pinned_call_row(row_call_ci16, format::ci16);
    pinned_call_row(row_call_ci8, format::ci8);
}

void skip_cuda_rows(section_report& report, const bench_device& device)
{
    progress(section_name, "CUDA rows skipped (" + device.skip_reason + ")");
    for (const auto& name : { row_d2d,
                              row_h2d_cf32,
                              row_h2d_ci16,
                              row_h2d_ci8,
                              row_baseline,
                              row_kernel_cf32,
                              row_kernel_ci16,
                              row_kernel_ci8,
                              row_kernel_open,
                              row_call_device,
                              row_call_cf32,
                              row_call_ci16,
                              row_call_ci8 })
        report.skip(name, device.skip_reason);
}

void measure_cpu_engine(row& r, const section_input& input, std::size_t cpu_channels)
{
    const std::size_t n = input.n;
    auto engine = make_engine(
        "cpu", core::gnss_sample_format::cf32, input.plan, cpu_channels, true);
    core::gnss_correlator_results results;
    engine->process(input.in.cf32.data(), n, results);
    check_engine_records(r, results, input.x_cf32, input.plan, cpu_channels);
    r.clock = "wall";
    r.samples = double(cpu_channels) * double(n);
    r.bytes = double(n) * 8.0;
    r.time = time_host(0, slow_repeats, [&] {
        results.clear();
        engine->process(input.in.cf32.data(), n, results);
    });
    if (r.status == row_status::ok)
        r.note = channels_text(r);
}

void add_ratios_and_targets(section_report& report)
{
    for (const auto& name : { row_kernel_cf32,
                              row_kernel_ci16,
                              row_kernel_ci8,
                              row_kernel_open,
                              row_call_device,
                              row_call_cf32,
                              row_call_ci16,
                              row_call_ci8,
                              row_cpu })
        report.speedup_over(name, row_baseline, column_baseline);
    report.target_min_ratio(row_kernel_cf32, column_baseline, target_x_baseline);
    // Real time: one second of the stream for all channels per second.
    report.target_min_rate(
        row_flowgraph, double(flowgraph_channels) * sample_rate_hz, 1.0, "s of signal");
    for (const auto& name : { row_call_cf32, row_call_ci16, row_call_ci8 })
        report.ratio_to(name,
                        name == row_call_cf32
                            ? row_h2d_cf32
                            : (name == row_call_ci16 ? row_h2d_ci16 : row_h2d_ci8),
                        "pinned H2D");
}

void add_notes(section_report& report)
{
    report.add_note("a row's samples are channel-samples (channels x buffer samples): "
                    "Msamples/s is channel-samples per second, channels in real time "
                    "are that over 9.75 Msps (in each row's note)");
    report.add_note("'" + column_baseline +
                    "': channels kept in real time over the paper baseline's; target "
                    "on the cf32 tracking row: >= 4 (at least 4 x the baseline's "
                    "real-time channels with tracking on)");
    report.add_note("device-input rows: the engine's device time per call (conversion "
                    "of integer input, the correlation kernel with the tracking loops, "
                    "the records gathered in channel order), from its events; 'call' "
                    "rows: the whole process_device()/process() call on the host clock, "
                    "records copied to the host and appended to the results included");
    report.add_note(
        "baseline: the paper's kernel (256 blocks of 512 threads looping over "
        "the channels, sincosf per sample, float code index, shared-memory "
        "tree reduction), one launch per 1 ms epoch, no tracking loops");
    report.add_note("check: every channel's record count, and the first epoch of the " +
                    std::to_string(satellite_count) +
                    " channels matched to the simulated satellites against a float64 "
                    "reference with the engine's integer NCOs (1e-4 of the epoch's "
                    "scale; the baseline's prompt within 1 %, its float code index "
                    "choosing other chips near chip edges)");
}

void run_correlator(const bench_options& options,
                    const bench_device& device,
                    section_report& report)
{
    const std::size_t n = options.samples_or(default_samples);
    const std::size_t cpu_channels = std::max<std::size_t>(
        16, cpu_channels_per_thread * std::max(1u, std::thread::hardware_concurrency()));
    add_parameters(report, n, cpu_channels);

    progress(section_name, "simulating " + std::to_string(n) + " samples");
    section_input input{ n, std::max(3, options.repeats), simulate(n), {}, {} };
    input.plan = plan_channels(engine_channels);
    input.x_cf32 = as_double(input.in, core::gnss_sample_format::cf32);

    if (device.cuda)
        measure_cuda_rows(report, input, device);
    else
        skip_cuda_rows(report, device);

    progress(section_name, row_cpu);
    report.measure(row_cpu, [&](row& r) { measure_cpu_engine(r, input, cpu_channels); });

    if (device.cuda) {
        progress(section_name, row_flowgraph + " (simulating the stream)");
        report.measure(row_flowgraph, [&](row& r) {
            const auto stream =
                simulate(std::size_t(flowgraph_pattern_s * sample_rate_hz));
            measure_block_flowgraph(
                r, device.device_string, stream.cf32, input.plan, slow_repeats);
        });
    } else {
        report.skip(row_flowgraph, device.skip_reason);
    }

    add_ratios_and_targets(report);
    add_notes(report);
}

} // namespace

CUDADSP_BENCH_SECTION(correlator,
                      "correlator",
                      "multichannel GNSS correlator at 9.75 Msps, 3 taps: the paper's "
                      "GPU baseline (Xu et al. 2016) against the CUDA engine with "
                      "tracking (cf32, ci16, ci8; device and pinned host input) and the "
                      "CPU engine, in channels kept in real time",
                      run_correlator);

} // namespace bench
} // namespace cudadsp
} // namespace gr
