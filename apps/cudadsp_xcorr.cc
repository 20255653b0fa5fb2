/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp_xcorr: a drop-in for GMTSAR's xcorr (frequency method) on the patch engine.
// Reads the two PRM files and their SLCs, lays out GMTSAR's patch grid, correlates all
// patches and writes freq_xcorr.dat as GMTSAR does; with --pairs, a stack of pairs in
// one process, on one engine. docs/apps/cudadsp_xcorr.md has the options, the file
// formats and where it deliberately differs from GMTSAR.

#include "common/documentation_page.h"
#include "xcorr/output_file.h"
#include "xcorr/pair_list.h"
#include "xcorr/pair_reader.h"
#include "xcorr/printable.h"
#include "xcorr/xcorr_options.h"
#include "xcorr/xcorr_output.h"
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace core = gr::cudadsp::core;
namespace xc = gr::cudadsp::xcorr;

const char* const output_name = "freq_xcorr.dat";

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

//! One line on stderr, "cudadsp_xcorr: " first, passed through printable(): PRM
//! values and file names may hold control bytes.
void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list again;
    va_copy(again, ap);
    const int n = std::vsnprintf(nullptr, 0, fmt, ap);
    va_end(ap);
    std::string text(n > 0 ? static_cast<std::size_t>(n) : 0, '\0');
    if (n > 0)
        std::vsnprintf(&text[0], text.size() + 1, fmt, again);
    va_end(again);
    std::fprintf(stderr, "cudadsp_xcorr: %s\n", xc::printable(text).c_str());
}

#define NOTE(verbose, ...)    \
    do {                      \
        if (verbose)          \
            say(__VA_ARGS__); \
    } while (false)

void note_pair(const xc::xcorr_options& o, const xc::prepared_pair& p)
{
    const xc::prm_keys& mk = p.in.master;
    const xc::prm_keys& ak = p.in.aligned;
    NOTE(o.verbose,
         "master  %s: %s, %lld x %lld %s (%.1f MB)",
         mk.path.c_str(),
         mk.slc_file.c_str(),
         static_cast<long long>(mk.width),
         static_cast<long long>(mk.height),
         core::sample_type_name(p.type),
         p.master->image_bytes() / 1e6);
    NOTE(o.verbose,
         "aligned %s: %s, %lld x %lld %s (%.1f MB); rshift %d, ashift %d%s, "
         "PRF stretch %.9g",
         ak.path.c_str(),
         ak.slc_file.c_str(),
         static_cast<long long>(ak.width),
         static_cast<long long>(ak.height),
         core::sample_type_name(p.type),
         p.aligned->image_bytes() / 1e6,
         p.in.rshift,
         p.in.ashift,
         o.noshift ? " (-noshift)" : "",
         p.in.stretch);
    const xc::xcorr_grid& grid = p.layout.grid;
    NOTE(o.verbose,
         "grid: %d x %d = %zu patches of %d x %d (xsearch %d, ysearch %d), x_inc %d, "
         "y_inc %d, x %d..%d, y %d..%d; range_interp %d, %s",
         o.nx,
         o.ny,
         grid.locations.size(),
         4 * o.ysearch,
         4 * o.xsearch,
         o.xsearch,
         o.ysearch,
         grid.x_inc,
         grid.y_inc,
         grid.locations.front().x,
         grid.locations.back().x,
         grid.locations.front().y,
         grid.locations.back().y,
         o.range_interp,
         o.highres ? ("interp " + std::to_string(o.interp)).c_str() : "no interp");
}

std::unique_ptr<core::patch_correlator> make_engine(const xc::xcorr_options& o)
{
    core::patch_correlator_config cfg;
    cfg.xsearch = o.xsearch;
    cfg.ysearch = o.ysearch;
    cfg.range_interp = o.range_interp;
    cfg.highres = o.highres;
    cfg.interp = o.interp;
    cfg.device = o.device;
    try {
        return core::patch_correlator::make(cfg);
    } catch (const std::invalid_argument& e) {
        throw xc::input_error(e.what());
    }
}

//! -v's progress: a line about every tenth of the patches, from the engine's callback.
void report_progress(core::patch_correlator& engine,
                     std::size_t patches,
                     clock_type::time_point t_corr0)
{
    const std::size_t step = std::max<std::size_t>(1, (patches + 9) / 10);
    std::size_t next_line = step;
    engine.set_progress(
        [step, next_line, t_corr0](std::size_t done, std::size_t total) mutable {
            if (done < next_line && done < total)
                return;
            say("%zu of %zu patches done (%.0f %%, %.3f s)",
                done,
                total,
                100.0 * double(done) / double(total),
                seconds_since(t_corr0));
            next_line = (done / step + 1) * step;
        });
}

void note_engine_times(bool verbose,
                       bool on_gpu,
                       const core::patch_correlator& engine,
                       double correlate_s)
{
    const core::patch_correlator_timing engine_time = engine.last_timing();
    if (on_gpu)
        NOTE(verbose,
             "correlate %.3f s: upload %.3f s, compute %.3f s, download %.3f s (busy "
             "times on the device; the uploads overlap the computation, so they do not "
             "add up to the wall time)",
             correlate_s,
             engine_time.upload_ms / 1e3,
             engine_time.compute_ms / 1e3,
             engine_time.download_ms / 1e3);
    else
        NOTE(verbose,
             "correlate %.3f s: compute %.3f s (CPU, no transfers)",
             correlate_s,
             engine_time.compute_ms / 1e3);
}

//! Thrown when the engine itself failed (a device error): the stack stops there.
struct engine_failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

//! The main thread's part of one pair, and what it took.
struct pair_work {
    std::size_t patches = 0;
    double wait_s = 0.0; //!< waiting for the reader's setup
    double correlate_s = 0.0;
    double write_s = 0.0;
};

/*!
 * Correlates a prepared pair on \p engine and writes its freq_xcorr.dat to \p folder
 * ("" the working directory). The output file is created before the correlation, so
 * an unwritable folder fails before the work, and renamed into place once complete.
 * All patches go to the engine in one call, which on the GPU pipelines the uploads of
 * one batch with the computation of the previous one (several calls would drain that
 * pipeline each time: about 5 ms a call on an H100), while the pair's reader thread
 * brings the rows in ahead of the engine's copies.
 */
pair_work correlate_pair(const xc::xcorr_options& o,
                         core::patch_correlator& engine,
                         const xc::prepared_pair& p,
                         const std::string& folder)
{
    pair_work w;
    w.patches = p.layout.pairs.size();
    xc::output_file out(folder, output_name);

    std::vector<core::patch_result> results(p.layout.pairs.size());
    const auto t_corr0 = clock_type::now();
    if (o.verbose)
        report_progress(engine, p.layout.pairs.size(), t_corr0);
    try {
        engine.correlate(p.master->view(),
                         p.aligned->view(),
                         p.layout.pairs.data(),
                         p.layout.pairs.size(),
                         results.data());
    } catch (const std::invalid_argument& e) {
        throw xc::input_error(e.what());
    } catch (const std::bad_alloc&) {
        throw;
    } catch (const std::exception& e) {
        throw engine_failure(e.what());
    }
    w.correlate_s = seconds_since(t_corr0);
    note_engine_times(o.verbose,
                      engine.device().backend == core::backend_kind::cuda,
                      engine,
                      w.correlate_s);

    const auto t_write0 = clock_type::now();
    out.commit(xc::format_results(
        p.layout.grid, results, o.range_interp, p.in.rshift, p.in.ashift, p.in.stretch));
    w.write_s = seconds_since(t_write0);
    NOTE(o.verbose, "wrote %zu lines to %s", w.patches, out.path().c_str());
    return w;
}

const char* backend_work(const core::patch_correlator& engine)
{
    return engine.device().backend == core::backend_kind::cuda
               ? "uploads and GPU work, pipelined"
               : "CPU";
}

// -----------------------------------------------------------------------------------
// GMTSAR's form: one pair, freq_xcorr.dat in the working directory.

int run_single(const xc::xcorr_options& o)
{
    const auto t_start = clock_type::now();
    const bool v = o.verbose;

    // The reader prepares the pair (its errors come first, as GMTSAR's would), then
    // reads the rows ahead while the engine is created and correlates.
    auto reader = std::make_unique<xc::pair_reader>(o.master_prm, o.aligned_prm, o);
    const xc::prepared_pair& p = reader->wait_setup();
    note_pair(o, p);
    const double t_setup = seconds_since(t_start);

    const auto t_engine0 = clock_type::now();
    std::unique_ptr<core::patch_correlator> engine = make_engine(o);
    const double t_engine = seconds_since(t_engine0);
    NOTE(v,
         "engine on %s (created in %.3f s)",
         engine->device().to_string().c_str(),
         t_engine);

    const pair_work w = correlate_pair(o, *engine, p, "");

    // Device memory, pinned buffers and plans go back before the timing line, so that
    // the total is the program's own work.
    const char* const work = backend_work(*engine);
    const auto t_release0 = clock_type::now();
    engine.reset();
    const xc::pair_reader::read_stats read = reader->finish();
    reader.reset();
    const double t_release = seconds_since(t_release0);
    NOTE(v,
         "time: setup %.3f s (PRM files, mapping, grid), engine %.3f s (device, FFT "
         "plans, buffers), correlate %.3f s (%s), read %.3f s (%.0f MB, beside engine "
         "and correlate), write %.3f s, release %.3f s, total %.3f s",
         t_setup,
         t_engine,
         w.correlate_s,
         work,
         read.read_s,
         read.read_bytes / 1e6,
         w.write_s,
         t_release,
         seconds_since(t_start));
    return 0;
}

// -----------------------------------------------------------------------------------
// --pairs: a stack on one engine.

struct pair_report {
    bool ok = false;
    bool ran = false;      //!< false: not reached (the engine failed before)
    bool prepared = false; //!< the setup succeeded (patches is known)
    std::string reason;
    std::size_t patches = 0;
    double seconds = 0.0;
};

std::string
pair_title(const xc::pair_entry& e, std::size_t k, std::size_t n, const std::string& list)
{
    return "pair " + std::to_string(k + 1) + " of " + std::to_string(n) + " (" +
           e.master_prm + " " + e.aligned_prm + ", " + list + " line " +
           std::to_string(e.line) + ") -> " + e.folder;
}

void print_summary(const std::vector<xc::pair_entry>& pairs,
                   const std::vector<pair_report>& reports,
                   const core::patch_correlator& engine,
                   double engine_s,
                   double total_s)
{
    std::size_t ok = 0;
    for (const auto& r : reports)
        ok += r.ok;
    say("summary: %zu pairs, %zu ok, %zu failed; engine on %s created once in %.3f s; "
        "total %.3f s",
        pairs.size(),
        ok,
        pairs.size() - ok,
        engine.device().to_string().c_str(),
        engine_s,
        total_s);
    std::fprintf(stderr, "  pair  status  patches  seconds  folder: reason\n");
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const pair_report& r = reports[k];
        const std::string patches = r.prepared ? std::to_string(r.patches) : "-";
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%.3f", r.seconds);
        const std::string status = r.ok ? "ok" : r.ran ? "failed" : "not-run";
        std::string tail = pairs[k].folder;
        if (!r.ok)
            tail += ": " + r.reason;
        std::fprintf(stderr,
                     "%6zu  %-7s %7s  %7s  %s\n",
                     k + 1,
                     status.c_str(),
                     patches.c_str(),
                     r.ran ? seconds : "-",
                     xc::printable(tail).c_str());
    }
}

int run_stack(const xc::xcorr_options& o)
{
    const auto t_start = clock_type::now();
    const bool v = o.verbose;
    const std::vector<xc::pair_entry> pairs = xc::read_pair_list(o.pairs_list);
    const std::string list = o.pairs_list == "-" ? "standard input" : o.pairs_list;
    const std::size_t n = pairs.size();

    // The first pair is prepared and read while the engine is created.
    auto start_reader = [&](std::size_t k) {
        return std::make_unique<xc::pair_reader>(
            pairs[k].master_prm, pairs[k].aligned_prm, o);
    };
    std::unique_ptr<xc::pair_reader> current = start_reader(0);
    const auto t_engine0 = clock_type::now();
    std::unique_ptr<core::patch_correlator> engine = make_engine(o);
    const double t_engine = seconds_since(t_engine0);
    say("engine on %s (created in %.3f s), %zu pairs from %s",
        engine->device().to_string().c_str(),
        t_engine,
        n,
        list.c_str());

    std::vector<pair_report> reports(n);
    std::string engine_error;
    for (std::size_t k = 0; k < n; ++k) {
        const std::string title = pair_title(pairs[k], k, n, list);
        pair_report& r = reports[k];
        if (!engine_error.empty()) {
            current.reset(); // the reader started beside the pair that failed
            r.reason = engine_error;
            say("%s: not run: %s", title.c_str(), r.reason.c_str());
            continue;
        }
        r.ran = true;
        const auto t_pair0 = clock_type::now();
        // The next pair is prepared and read while this one correlates.
        std::unique_ptr<xc::pair_reader> next = k + 1 < n ? start_reader(k + 1) : nullptr;
        pair_work w;
        try {
            const auto t_wait0 = clock_type::now();
            const xc::prepared_pair& p = current->wait_setup();
            w.wait_s = seconds_since(t_wait0);
            r.prepared = true;
            r.patches = p.layout.pairs.size();
            note_pair(o, p);
            const double wait_s = w.wait_s;
            w = correlate_pair(o, *engine, p, pairs[k].folder);
            w.wait_s = wait_s;
            r.ok = true;
        } catch (const engine_failure& e) {
            engine_error = std::string("the engine failed on pair ") +
                           std::to_string(k + 1) + ": " + e.what();
            r.reason = e.what();
        } catch (const std::bad_alloc&) {
            r.reason = "out of host memory";
        } catch (const std::exception& e) {
            r.reason = e.what();
        }
        const auto t_release0 = clock_type::now();
        const xc::pair_reader::read_stats read = current->finish();
        current.reset();
        const double release_s = seconds_since(t_release0);
        r.seconds = seconds_since(t_pair0);
        if (r.ok)
            say("%s: ok, %zu patches, %.3f s", title.c_str(), r.patches, r.seconds);
        else
            say("%s: failed: %s", title.c_str(), r.reason.c_str());
        NOTE(v,
             "pair %zu of %zu: time: setup %.3f s (PRM files, mapping, grid; reader "
             "thread), waited %.3f s for it, correlate %.3f s (%s), read %.3f s (%.0f "
             "MB, reader thread), write %.3f s, release %.3f s, total %.3f s",
             k + 1,
             n,
             read.setup_s,
             w.wait_s,
             w.correlate_s,
             backend_work(*engine),
             read.read_s,
             read.read_bytes / 1e6,
             w.write_s,
             release_s,
             r.seconds);
        current = std::move(next);
    }
    print_summary(pairs, reports, *engine, t_engine, seconds_since(t_start));
    for (const auto& r : reports)
        if (!r.ok)
            return 2;
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try {
        const xc::xcorr_options o =
            xc::parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
        if (o.help) {
            std::fputs(xc::usage_text, stdout);
            std::fputs(cudadsp_apps::documentation_line("apps/cudadsp_xcorr.md").c_str(),
                       stdout);
            return 0;
        }
        return o.pairs_list.empty() ? run_single(o) : run_stack(o);
    } catch (const std::bad_alloc&) {
        say("error: out of host memory");
    } catch (const std::exception& e) {
        say("error: %s", e.what());
    }
    return 1;
}
