/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "bench_harness.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace gr {
namespace cudadsp {
namespace bench {

namespace {

std::string host_cpu_description()
{
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    std::string model = "unknown CPU";
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos && colon + 2 <= line.size())
                model = line.substr(colon + 2);
            break;
        }
    }
    return model + ", " + std::to_string(std::thread::hardware_concurrency()) +
           " hardware threads";
}

// Four significant digits without exponent notation: 0.1702, 12.35, 1235, 12345.
std::string format_significant(double value)
{
    if (!std::isfinite(value))
        return "-";
    const double magnitude = std::fabs(value);
    int decimals = 3;
    if (magnitude > 0)
        decimals = std::clamp(3 - int(std::floor(std::log10(magnitude))), 0, 4);
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string format_fixed(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// A target's limit with the fewest decimals (at least one) that give it back:
// 2.0, 1.3, 1.25, 0.6.
std::string format_limit(double value)
{
    for (int decimals = 1; decimals < 6; ++decimals) {
        const std::string text = format_fixed(value, decimals);
        if (std::fabs(std::stod(text) - value) <= 1e-12 * std::fabs(value))
            return text;
    }
    return format_significant(value);
}

std::string status_text(row_status status)
{
    switch (status) {
    case row_status::ok:
        return "ok";
    case row_status::unchecked:
        return "-";
    case row_status::failed:
        return "FAIL";
    case row_status::error:
        return "ERROR";
    case row_status::skipped:
        return "skipped";
    }
    return "?";
}

std::string target_text(const row& r)
{
    if (r.target_met < 0)
        return "";
    return r.target + (r.target_met ? ": met" : ": MISSED");
}

bool has_time(const row& r)
{
    return r.status != row_status::skipped && r.status != row_status::error &&
           r.time.repeats > 0;
}

double msamples_per_s(const row& r)
{
    return r.samples > 0 ? r.samples / (r.time.median_ms * 1e3)
                         : std::numeric_limits<double>::quiet_NaN();
}

double gb_per_s(const row& r)
{
    return r.bytes > 0 ? r.bytes / (r.time.median_ms * 1e6)
                       : std::numeric_limits<double>::quiet_NaN();
}

std::string device_line(const bench_device& device)
{
    std::ostringstream os;
    if (device.cuda) {
        const auto& info = device.info;
        os << "device: " << info.name << " (" << device.device_string << ", sm_"
           << info.compute_major << info.compute_minor << ", " << info.multiprocessors
           << " SMs, L2 " << format_significant(info.l2_cache_bytes / 1048576.0)
           << " MiB, " << format_significant(info.global_memory_bytes / 1073741824.0)
           << " GiB)";
    } else {
        os << "device: none, CUDA rows skipped (" << device.skip_reason
           << (device.skip_detail.empty() ? "" : ": " + device.skip_detail) << ")";
    }
    os << "; driver " << device.driver_version << ", runtime " << device.runtime_version;
    return os.str();
}

std::string json_string(const std::string& s)
{
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char escaped[8];
                std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
                out += escaped;
            } else {
                out += c;
            }
        }
    }
    return out + "\"";
}

// JSON has no NaN or infinity: a value that is not meaningful is null.
std::string json_number(double value)
{
    if (!std::isfinite(value))
        return "null";
    char text[64];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

std::string json_target_met(int target_met)
{
    if (target_met < 0)
        return "null";
    return target_met ? "true" : "false";
}

row copy_floor(const std::string& name,
               void* dst,
               const void* src,
               std::size_t bytes,
               cudaMemcpyKind kind,
               double bytes_moved,
               double samples,
               int repeats)
{
    core::cuda_stream stream;
    row r;
    r.name = name;
    r.clock = "events";
    r.samples = samples;
    r.bytes = bytes_moved;
    r.time = time_cuda(stream.get(), 2, repeats, [&] {
        CUDADSP_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream.get()));
    });
    return r;
}

} // namespace

bench_device resolve_device(const std::string& device)
{
    bench_device d;
    d.host_cpu = host_cpu_description();
    d.driver_version = core::cuda_driver_version();
    d.runtime_version = core::cuda_runtime_version();
    const auto selection = core::select_device(device, "--device");
    if (selection.backend == core::backend_kind::cpu) {
        if (selection.chosen_automatically) {
            d.skip_reason = "no CUDA device";
            d.skip_detail = core::cuda_unavailable_reason();
        } else {
            d.skip_reason = "--device cpu";
        }
        return d;
    }
    d.cuda = true;
    d.ordinal = selection.cuda_ordinal;
    d.device_string = selection.to_string();
    for (const auto& info : core::list_cuda_devices())
        if (info.ordinal == d.ordinal)
            d.info = info;
    return d;
}

timing summarize(std::vector<double> ms)
{
    timing t;
    if (ms.empty())
        return t;
    std::sort(ms.begin(), ms.end());
    const std::size_t n = ms.size();
    t.median_ms = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
    t.min_ms = ms.front();
    t.max_ms = ms.back();
    t.repeats = int(n);
    return t;
}

timing time_cuda(cudaStream_t stream,
                 int warmup,
                 int repeats,
                 const std::function<void()>& enqueue)
{
    for (int i = 0; i < warmup; ++i)
        enqueue();
    CUDADSP_CUDA(cudaStreamSynchronize(stream));

    core::cuda_event start(true);
    core::cuda_event stop(true);
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        start.record(stream);
        enqueue();
        stop.record(stream);
        stop.synchronize();
        ms.push_back(stop.elapsed_ms_since(start));
    }
    return summarize(std::move(ms));
}

timing time_host(int warmup, int repeats, const std::function<void()>& run)
{
    for (int i = 0; i < warmup; ++i)
        run();
    std::vector<double> ms;
    for (int i = 0; i < repeats; ++i) {
        const auto begin = std::chrono::steady_clock::now();
        run();
        const auto end = std::chrono::steady_clock::now();
        ms.push_back(std::chrono::duration<double, std::milli>(end - begin).count());
    }
    return summarize(std::move(ms));
}

void section_report::add_parameter(const std::string& key, const std::string& value)
{
    d_parameters.emplace_back(key, value);
}

void section_report::add_note(const std::string& text) { d_notes.push_back(text); }

void section_report::measure(const std::string& name,
                             const std::function<void(row&)>& measure)
{
    row r;
    r.name = name;
    try {
        measure(r);
    } catch (const std::exception& e) {
        error(name, e.what());
        return;
    }
    d_rows.push_back(std::move(r));
}

void section_report::error(const std::string& name, const std::string& message)
{
    progress(d_name, name + ": " + message);
    row r;
    r.name = name;
    r.status = row_status::error;
    r.note = message;
    d_rows.push_back(std::move(r));
}

void section_report::skip(const std::string& name, const std::string& reason)
{
    row r;
    r.name = name;
    r.status = row_status::skipped;
    r.note = reason;
    d_rows.push_back(std::move(r));
}

void section_report::add_sum(const std::string& name,
                             const std::string& a,
                             const std::string& b)
{
    const row* first = find(a);
    const row* second = find(b);
    if (!first || !second || !first->measured() || !second->measured()) {
        error(name, "needs the rows '" + a + "' and '" + b + "'");
        return;
    }
    row r;
    r.name = name;
    r.clock = first->clock;
    r.samples = first->samples;
    r.bytes = first->bytes + second->bytes;
    r.time.median_ms = first->time.median_ms + second->time.median_ms;
    r.time.min_ms = first->time.min_ms + second->time.min_ms;
    r.time.max_ms = first->time.max_ms + second->time.max_ms;
    r.time.repeats = std::min(first->time.repeats, second->time.repeats);
    r.note = "sum of the two rows above";
    d_rows.push_back(std::move(r));
}

row* section_report::find(const std::string& name)
{
    for (auto& r : d_rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

void section_report::add_ratio(row& r, const std::string& column, double value)
{
    r.ratios.push_back({ column, value });
    if (std::find(d_ratio_columns.begin(), d_ratio_columns.end(), column) ==
        d_ratio_columns.end())
        d_ratio_columns.push_back(column);
}

void section_report::ratio_to(const std::string& name,
                              const std::string& ref,
                              const std::string& ref_label)
{
    row* r = find(name);
    const row* reference = find(ref);
    if (!r || !reference || !r->measured() || !reference->measured() || r->samples <= 0 ||
        reference->samples <= 0)
        return;
    add_ratio(*r, "x " + ref_label, r->ms_per_sample() / reference->ms_per_sample());
}

void section_report::speedup_over(const std::string& name,
                                  const std::string& ref,
                                  const std::string& column)
{
    row* r = find(name);
    const row* reference = find(ref);
    if (!r || !reference || !r->measured() || !reference->measured() || r->samples <= 0 ||
        reference->samples <= 0)
        return;
    add_ratio(*r, column, reference->ms_per_sample() / r->ms_per_sample());
}

void section_report::bandwidth_fraction_of(const std::string& name,
                                           const std::string& ref,
                                           const std::string& column)
{
    row* r = find(name);
    const row* reference = find(ref);
    if (!r || !reference || !r->measured() || !reference->measured() || r->bytes <= 0 ||
        reference->bytes <= 0)
        return;
    add_ratio(*r, column, gb_per_s(*r) / gb_per_s(*reference));
}

void section_report::target_max_ratio(const std::string& name,
                                      const std::string& column,
                                      double limit)
{
    row* r = find(name);
    if (!r || !r->measured())
        return;
    for (const auto& q : r->ratios) {
        if (q.column == column) {
            r->target = "<= " + format_limit(limit) + " " + column;
            r->target_met = q.value <= limit;
        }
    }
}

void section_report::target_min_ratio(const std::string& name,
                                      const std::string& column,
                                      double limit)
{
    row* r = find(name);
    if (!r || !r->measured())
        return;
    for (const auto& q : r->ratios) {
        if (q.column == column) {
            r->target = ">= " + format_limit(limit) + " " + column;
            r->target_met = q.value >= limit;
        }
    }
}

void section_report::target_min_msamples(const std::string& name, double limit)
{
    row* r = find(name);
    if (!r || !r->measured() || r->samples <= 0)
        return;
    r->target = ">= " + format_significant(limit) + " Msamples/s";
    r->target_met = msamples_per_s(*r) >= limit;
}

void section_report::target_min_rate(const std::string& name,
                                     double samples_per_unit,
                                     double limit,
                                     const std::string& unit)
{
    row* r = find(name);
    if (!r || !r->measured() || r->samples <= 0 || samples_per_unit <= 0)
        return;
    r->target = ">= " + format_significant(limit) + " " + unit + "/s";
    r->target_met = msamples_per_s(*r) * 1e6 / samples_per_unit >= limit;
}

bool section_report::any_failure() const
{
    return std::any_of(d_rows.begin(), d_rows.end(), [](const row& r) {
        return r.status == row_status::failed || r.status == row_status::error;
    });
}

void print_table(std::ostream& os,
                 const section_report& report,
                 const bench_device& device)
{
    const auto& ratio_columns = report.ratio_columns();
    std::vector<std::string> header = { "row",    "clock", "median ms",  "min ms",
                                        "max ms", "reps",  "Msamples/s", "GB/s" };
    const std::size_t first_ratio = header.size();
    header.insert(header.end(), ratio_columns.begin(), ratio_columns.end());
    header.insert(header.end(), { "check", "target", "note" });
    // Left-aligned text columns; the numbers between them are right-aligned.
    auto left_aligned = [&](std::size_t c) {
        return c < 2 || c >= first_ratio + ratio_columns.size();
    };

    std::vector<std::vector<std::string>> cells{ header };
    for (const auto& r : report.rows()) {
        std::vector<std::string> line{ r.name, r.clock.empty() ? "-" : r.clock };
        if (has_time(r)) {
            line.push_back(format_significant(r.time.median_ms));
            line.push_back(format_significant(r.time.min_ms));
            line.push_back(format_significant(r.time.max_ms));
            line.push_back(std::to_string(r.time.repeats));
            line.push_back(format_significant(msamples_per_s(r)));
            line.push_back(format_significant(gb_per_s(r)));
        } else {
            line.insert(line.end(), 6, "-");
        }
        for (const auto& column : ratio_columns) {
            std::string value = "-";
            for (const auto& q : r.ratios)
                if (q.column == column)
                    value = format_fixed(q.value, 2);
            line.push_back(value);
        }
        line.push_back(status_text(r.status));
        line.push_back(target_text(r));
        line.push_back(r.note);
        cells.push_back(std::move(line));
    }

    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& line : cells)
        for (std::size_t c = 0; c < line.size(); ++c)
            width[c] = std::max(width[c], line[c].size());

    os << "== " << report.name();
    for (const auto& p : report.parameters())
        os << "  " << p.first << "=" << p.second;
    os << "\n" << device_line(device) << "\nhost: " << device.host_cpu << "\n";
    for (const auto& line : cells) {
        std::string text;
        for (std::size_t c = 0; c < line.size(); ++c) {
            const bool last = c + 1 == line.size();
            const std::string pad(width[c] - line[c].size(), ' ');
            if (c)
                text += "  ";
            if (left_aligned(c))
                text += last ? line[c] : line[c] + pad;
            else
                text += pad + line[c];
        }
        text.erase(text.find_last_not_of(' ') + 1);
        os << text << "\n";
    }
    for (const auto& note : report.notes())
        os << "note: " << note << "\n";
    os << std::endl;
}

void write_json(std::ostream& os,
                const bench_device& device,
                const std::vector<section_report>& reports)
{
    const auto& info = device.info;
    os << "{\n  \"tool\": \"cudadsp_bench\",\n  \"device\": {"
       << "\"cuda\": " << (device.cuda ? "true" : "false")
       << ", \"device\": " << json_string(device.device_string)
       << ", \"name\": " << json_string(device.cuda ? info.name : "none")
       << ", \"compute_capability\": "
       << json_string(device.cuda ? std::to_string(info.compute_major) + "." +
                                        std::to_string(info.compute_minor)
                                  : "")
       << ", \"multiprocessors\": " << info.multiprocessors
       << ", \"l2_cache_bytes\": " << info.l2_cache_bytes
       << ", \"global_memory_bytes\": " << info.global_memory_bytes
       << ", \"driver\": " << json_string(device.driver_version)
       << ", \"runtime\": " << json_string(device.runtime_version)
       << ", \"skip_reason\": " << json_string(device.skip_reason)
       << ", \"skip_detail\": " << json_string(device.skip_detail)
       << ", \"host_cpu\": " << json_string(device.host_cpu) << "},\n  \"sections\": [";
    for (std::size_t s = 0; s < reports.size(); ++s) {
        const auto& report = reports[s];
        os << (s ? ",\n" : "\n") << "    {\"name\": " << json_string(report.name())
           << ", \"parameters\": {";
        for (std::size_t p = 0; p < report.parameters().size(); ++p)
            os << (p ? ", " : "") << json_string(report.parameters()[p].first) << ": "
               << json_string(report.parameters()[p].second);
        os << "},\n     \"notes\": [";
        for (std::size_t n = 0; n < report.notes().size(); ++n)
            os << (n ? ", " : "") << json_string(report.notes()[n]);
        os << "],\n     \"rows\": [";
        for (std::size_t i = 0; i < report.rows().size(); ++i) {
            const auto& r = report.rows()[i];
            const bool timed = has_time(r);
            const double nan = std::numeric_limits<double>::quiet_NaN();
            os << (i ? ",\n" : "\n") << "       {\"name\": " << json_string(r.name)
               << ", \"clock\": " << json_string(r.clock)
               << ", \"median_ms\": " << json_number(timed ? r.time.median_ms : nan)
               << ", \"min_ms\": " << json_number(timed ? r.time.min_ms : nan)
               << ", \"max_ms\": " << json_number(timed ? r.time.max_ms : nan)
               << ", \"repeats\": " << r.time.repeats
               << ", \"samples\": " << json_number(r.samples)
               << ", \"bytes\": " << json_number(r.bytes)
               << ", \"msamples_per_s\": " << json_number(timed ? msamples_per_s(r) : nan)
               << ", \"gb_per_s\": " << json_number(timed ? gb_per_s(r) : nan)
               << ", \"ratios\": {";
            for (std::size_t q = 0; q < r.ratios.size(); ++q)
                os << (q ? ", " : "") << json_string(r.ratios[q].column) << ": "
                   << json_number(r.ratios[q].value);
            os << "}, \"check\": " << json_string(status_text(r.status))
               << ", \"target\": " << json_string(r.target)
               << ", \"target_met\": " << json_target_met(r.target_met)
               << ", \"note\": " << json_string(r.note) << "}";
        }
        os << "\n     ]}";
    }
    os << "\n  ]\n}\n";
}

row floor_d2d_copy(std::size_t bytes, double samples, int repeats)
{
    core::device_buffer<unsigned char> src(bytes);
    core::device_buffer<unsigned char> dst(bytes);
    return copy_floor(floor_row_d2d,
                      dst.get(),
                      src.get(),
                      bytes,
                      cudaMemcpyDeviceToDevice,
                      2.0 * bytes,
                      samples,
                      repeats);
}

row floor_h2d_pinned(std::size_t bytes, double samples, int repeats)
{
    core::pinned_buffer<unsigned char> src(bytes);
    core::device_buffer<unsigned char> dst(bytes);
    return copy_floor(floor_row_h2d,
                      dst.get(),
                      src.get(),
                      bytes,
                      cudaMemcpyHostToDevice,
                      double(bytes),
                      samples,
                      repeats);
}

row floor_d2h_pinned(std::size_t bytes, double samples, int repeats)
{
    core::device_buffer<unsigned char> src(bytes);
    core::pinned_buffer<unsigned char> dst(bytes);
    return copy_floor(floor_row_d2h,
                      dst.get(),
                      src.get(),
                      bytes,
                      cudaMemcpyDeviceToHost,
                      double(bytes),
                      samples,
                      repeats);
}

void measure_round_trip_floors(section_report& report,
                               std::size_t bytes,
                               double samples,
                               int repeats)
{
    report.measure(floor_row_d2d,
                   [&](row& r) { r = floor_d2d_copy(bytes, samples, repeats); });
    report.measure(floor_row_h2d,
                   [&](row& r) { r = floor_h2d_pinned(bytes, samples, repeats); });
    report.measure(floor_row_d2h,
                   [&](row& r) { r = floor_d2h_pinned(bytes, samples, repeats); });
    report.add_sum(floor_row_h2d_plus_d2h, floor_row_h2d, floor_row_d2h);
}

row floor_h2d_d2h_concurrent_pinned(std::size_t bytes, double samples, int repeats)
{
    return floor_h2d_d2h_concurrent_pinned(bytes, bytes, samples, repeats);
}

row floor_h2d_d2h_concurrent_pinned(std::size_t h2d_bytes,
                                    std::size_t d2h_bytes,
                                    double samples,
                                    int repeats)
{
    core::pinned_buffer<unsigned char> h_src(h2d_bytes);
    core::pinned_buffer<unsigned char> h_dst(d2h_bytes);
    core::device_buffer<unsigned char> d_src(d2h_bytes);
    core::device_buffer<unsigned char> d_dst(h2d_bytes);
    core::cuda_stream up;
    core::cuda_stream down;
    const core::cuda_event forked;
    const core::cuda_event joined;
    row r;
    r.name = floor_row_h2d_d2h_concurrent;
    r.clock = "events";
    r.samples = samples;
    r.bytes = double(h2d_bytes) + double(d2h_bytes);
    // The timing events are on `up`; `down` forks after the start event and joins
    // before the stop event, so the interval covers both copies.
    r.time = time_cuda(up.get(), 2, repeats, [&] {
        forked.record(up.get());
        forked.wait_on(down.get());
        CUDADSP_CUDA(cudaMemcpyAsync(
            d_dst.get(), h_src.get(), h2d_bytes, cudaMemcpyHostToDevice, up.get()));
        CUDADSP_CUDA(cudaMemcpyAsync(
            h_dst.get(), d_src.get(), d2h_bytes, cudaMemcpyDeviceToHost, down.get()));
        joined.record(down.get());
        joined.wait_on(up.get());
    });
    return r;
}

void progress(const std::string& section, const std::string& message)
{
    std::cerr << "[" << section << "] " << message << std::endl;
}

void warn_if_cache_resident(const std::string& section,
                            std::size_t bytes,
                            const bench_device& device)
{
    if (bytes < 2 * device.info.l2_cache_bytes)
        progress(section,
                 "warning: " + std::to_string(bytes) +
                     " input bytes are under twice the L2 cache; the device rows "
                     "measure the cache, not DRAM");
}

std::size_t parse_count(const std::string& text, const std::string& option)
{
    const auto bad = [&] {
        return std::invalid_argument(option +
                                     " must be a positive count such as 1000, "
                                     "64K, 64M or 1G (binary suffixes), got '" +
                                     text + "'");
    };
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
        ++digits;
    if (digits == 0 || digits + 1 < text.size())
        throw bad();
    unsigned shift = 0;
    if (digits < text.size()) {
        switch (std::toupper(static_cast<unsigned char>(text[digits]))) {
        case 'K':
            shift = 10;
            break;
        case 'M':
            shift = 20;
            break;
        case 'G':
            shift = 30;
            break;
        default:
            throw bad();
        }
    }
    unsigned long long value = 0;
    try {
        value = std::stoull(text.substr(0, digits));
    } catch (const std::out_of_range&) {
        throw bad();
    }
    if (value == 0 || value > (std::numeric_limits<std::size_t>::max() >> shift))
        throw bad();
    return std::size_t(value) << shift;
}

std::vector<section>& registry()
{
    static std::vector<section> sections;
    return sections;
}

section_registrar::section_registrar(const char* name,
                                     const char* description,
                                     section_function run)
{
    auto& sections = registry();
    const auto at = std::lower_bound(
        sections.begin(), sections.end(), name, [](const section& s, const char* n) {
            return s.name < n;
        });
    sections.insert(at, section{ name, description, std::move(run) });
}

} // namespace bench
} // namespace cudadsp
} // namespace gr
