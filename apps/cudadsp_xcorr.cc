/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp_xcorr: a drop-in for GMTSAR's xcorr (frequency method) on the patch engine.
// Reads the two PRM files and their SLCs, lays out GMTSAR's patch grid, correlates all
// patches and writes freq_xcorr.dat as GMTSAR does. docs/apps/cudadsp_xcorr.md has the
// options, the file formats and where it deliberately differs from GMTSAR.

#include "xcorr/prm_file.h"
#include "xcorr/slc_image.h"
#include "xcorr/xcorr_grid.h"
#include "xcorr/xcorr_options.h"
#include "xcorr/xcorr_output.h"
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
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

void note(bool verbose, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void note(bool verbose, const char* fmt, ...)
{
    if (!verbose)
        return;
    std::fputs("cudadsp_xcorr: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    std::vfprintf(stderr, fmt, ap);
    va_end(ap);
    std::fputc('\n', stderr);
}

// Removes the output file unless released: a failed run leaves no truncated result.
struct output_file {
    std::FILE* f = nullptr;
    bool keep = false;
    ~output_file()
    {
        if (f)
            std::fclose(f);
        if (f && !keep)
            std::remove(output_name);
    }
};

//! The two PRM files' keys and the geometry they give the aligned image.
struct prm_inputs {
    xc::prm_keys master;
    xc::prm_keys aligned;
    double stretch = 0.0;
    int rshift = 0;
    int ashift = 0;
};

prm_inputs read_prm_inputs(const xc::xcorr_options& o)
{
    const xc::prm_file master_prm = xc::prm_file::read(o.master_prm);
    const xc::prm_file aligned_prm = xc::prm_file::read(o.aligned_prm);
    xc::prm_read_options ro;
    ro.require_size = !o.cfloat32;
    ro.given_width = o.cfloat32_width;
    ro.given_height = o.cfloat32_height;
    ro.require_prf = !o.cfloat32;
    ro.read_shifts = false;
    prm_inputs in;
    in.master = xc::read_prm_keys(master_prm, ro);
    ro.read_shifts = !o.noshift;
    in.aligned = xc::read_prm_keys(aligned_prm, ro);
    const xc::prm_keys& mk = in.master;
    const xc::prm_keys& ak = in.aligned;
    if (mk.has_prf != ak.has_prf)
        throw xc::input_error("key 'PRF' is in " + (mk.has_prf ? mk.path : ak.path) +
                              " but not in " + (mk.has_prf ? ak.path : mk.path) +
                              " (with -cfloat32: give it in both files or in neither)");
    // GMTSAR: astretcha = (PRF2 - PRF1)/PRF1.
    in.stretch = mk.has_prf ? (ak.prf - mk.prf) / mk.prf : 0.0;
    in.rshift = o.noshift ? 0 : ak.rshift;
    in.ashift = o.noshift ? 0 : ak.ashift;
    return in;
}

void note_images(const xc::xcorr_options& o,
                 const prm_inputs& in,
                 core::slc_sample_type type,
                 const xc::slc_image& master,
                 const xc::slc_image& aligned)
{
    const xc::prm_keys& mk = in.master;
    const xc::prm_keys& ak = in.aligned;
    note(o.verbose,
         "master  %s: %s, %lld x %lld %s (%.1f MB)",
         mk.path.c_str(),
         mk.slc_file.c_str(),
         static_cast<long long>(mk.width),
         static_cast<long long>(mk.height),
         xc::slc_image::type_name(type),
         master.image_bytes() / 1e6);
    note(o.verbose,
         "aligned %s: %s, %lld x %lld %s (%.1f MB); rshift %d, ashift %d%s, "
         "PRF stretch %.9g",
         ak.path.c_str(),
         ak.slc_file.c_str(),
         static_cast<long long>(ak.width),
         static_cast<long long>(ak.height),
         xc::slc_image::type_name(type),
         aligned.image_bytes() / 1e6,
         in.rshift,
         in.ashift,
         o.noshift ? " (-noshift)" : "",
         in.stretch);
}

//! GMTSAR's patch grid on the master and the windows of each patch in both images.
struct patch_layout {
    xc::xcorr_grid grid;
    std::vector<core::patch_pair> pairs;
};

patch_layout make_patch_layout(const xc::xcorr_options& o, const prm_inputs& in)
{
    const xc::prm_keys& mk = in.master;
    const xc::prm_keys& ak = in.aligned;
    xc::grid_config gc;
    gc.width = mk.width;
    gc.height = mk.height;
    gc.nx = o.nx;
    gc.ny = o.ny;
    gc.xsearch = o.xsearch;
    gc.ysearch = o.ysearch;
    patch_layout layout;
    layout.grid = xc::make_grid(gc);
    layout.pairs = xc::make_pairs(
        layout.grid, o.xsearch, o.ysearch, in.rshift, in.ashift, in.stretch);
    xc::check_pairs_inside(layout.grid,
                           layout.pairs,
                           o.xsearch,
                           o.ysearch,
                           mk.width,
                           mk.height,
                           ak.width,
                           ak.height);
    const xc::xcorr_grid& grid = layout.grid;
    note(o.verbose,
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
    return layout;
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
            note(true,
                 "%zu of %zu patches done (%.0f %%, %.3f s)",
                 done,
                 total,
                 100.0 * double(done) / double(total),
                 seconds_since(t_corr0));
            next_line = (done / step + 1) * step;
        });
}

//! What the correlation step took: its wall time, and the reader's beside it.
struct correlate_times {
    double correlate_s = 0.0;
    double read_s = 0.0;
    std::size_t read_bytes = 0;
};

/*!
 * Correlation: all patches go to the engine in one call, which on the GPU pipelines the
 * uploads of one batch with the computation of the previous one (several calls would
 * drain that pipeline each time: about 5 ms a call on an H100). Beside it, a reader
 * thread walks the rows the patches use, in strip order, and maps them from the page
 * cache (or reads them from the disk) ahead of the engine's copies from the mapping.
 */
correlate_times correlate_with_read_ahead(const xc::xcorr_options& o,
                                          core::patch_correlator& engine,
                                          const xc::slc_image& master,
                                          const xc::slc_image& aligned,
                                          const std::vector<core::patch_pair>& pairs,
                                          std::vector<core::patch_result>& results)
{
    const std::int64_t npy = 4 * std::int64_t(o.ysearch);
    correlate_times times;
    std::thread reader([&] {
        const auto t0 = clock_type::now();
        std::int64_t m_done = 0, a_done = 0;
        for (const auto& p : pairs) {
            if (p.master_row + npy > m_done) {
                times.read_bytes +=
                    master.touch_rows(std::max(m_done, p.master_row), p.master_row + npy);
                m_done = p.master_row + npy;
            }
            if (p.aligned_row + npy > a_done) {
                times.read_bytes += aligned.touch_rows(std::max(a_done, p.aligned_row),
                                                       p.aligned_row + npy);
                a_done = p.aligned_row + npy;
            }
        }
        times.read_s = seconds_since(t0);
    });
    const auto t_corr0 = clock_type::now();
    if (o.verbose)
        report_progress(engine, pairs.size(), t_corr0);
    try {
        engine.correlate(
            master.view(), aligned.view(), pairs.data(), pairs.size(), results.data());
    } catch (...) {
        if (reader.joinable())
            reader.join();
        throw;
    }
    times.correlate_s = seconds_since(t_corr0);
    if (reader.joinable())
        reader.join();
    return times;
}

void note_engine_times(bool verbose,
                       bool on_gpu,
                       const core::patch_correlator& engine,
                       double correlate_s)
{
    const core::patch_correlator_timing engine_time = engine.last_timing();
    if (on_gpu)
        note(verbose,
             "correlate %.3f s: upload %.3f s, compute %.3f s, download %.3f s (busy "
             "times on the device; the uploads overlap the computation, so they do not "
             "add up to the wall time)",
             correlate_s,
             engine_time.upload_ms / 1e3,
             engine_time.compute_ms / 1e3,
             engine_time.download_ms / 1e3);
    else
        note(verbose,
             "correlate %.3f s: compute %.3f s (CPU, no transfers)",
             correlate_s,
             engine_time.compute_ms / 1e3);
}

//! Writes \p text to \p out and closes it, kept only once all of it is on disk.
void write_output(output_file& out, const std::string& text)
{
    if (std::fwrite(text.data(), 1, text.size(), out.f) != text.size() ||
        std::fflush(out.f) != 0)
        throw std::runtime_error(std::string("cannot write ") + output_name + ": " +
                                 std::strerror(errno));
    const int close_status = std::fclose(out.f);
    out.f = nullptr;
    if (close_status != 0)
        throw std::runtime_error(std::string("cannot write ") + output_name + ": " +
                                 std::strerror(errno));
    out.keep = true;
}

int run(const xc::xcorr_options& o)
{
    const auto t_start = clock_type::now();
    const bool v = o.verbose;

    const prm_inputs in = read_prm_inputs(o);
    // SLC files, mapped.
    const auto type = o.cfloat32 ? core::slc_sample_type::complex_float32
                                 : core::slc_sample_type::complex_int16;
    xc::slc_image master(in.master.slc_file,
                         type,
                         in.master.width,
                         in.master.height,
                         "SLC_file of " + in.master.path);
    xc::slc_image aligned(in.aligned.slc_file,
                          type,
                          in.aligned.width,
                          in.aligned.height,
                          "SLC_file of " + in.aligned.path);
    note_images(o, in, type, master, aligned);
    const patch_layout layout = make_patch_layout(o, in);
    const double t_setup = seconds_since(t_start);

    const auto t_engine0 = clock_type::now();
    std::unique_ptr<core::patch_correlator> engine = make_engine(o);
    const double t_engine = seconds_since(t_engine0);
    note(v,
         "engine on %s (created in %.3f s)",
         engine->device().to_string().c_str(),
         t_engine);
    const bool on_gpu = engine->device().backend == core::backend_kind::cuda;

    // Output opened before the work, so an unwritable directory fails early.
    output_file out;
    out.f = std::fopen(output_name, "w");
    if (!out.f)
        throw std::runtime_error(std::string("cannot create ") + output_name +
                                 " in the working directory: " + std::strerror(errno));

    std::vector<core::patch_result> results(layout.pairs.size());
    const correlate_times times =
        correlate_with_read_ahead(o, *engine, master, aligned, layout.pairs, results);
    note_engine_times(v, on_gpu, *engine, times.correlate_s);

    const auto t_write0 = clock_type::now();
    write_output(
        out,
        xc::format_results(
            layout.grid, results, o.range_interp, in.rshift, in.ashift, in.stretch));
    const double t_write = seconds_since(t_write0);
    note(v, "wrote %zu lines to %s", layout.grid.locations.size(), output_name);

    // Device memory, pinned buffers and plans go back before the timing line, so that
    // the total is the program's own work.
    const auto t_release0 = clock_type::now();
    engine.reset();
    const double t_release = seconds_since(t_release0);
    note(v,
         "time: setup %.3f s (PRM files, mapping, grid), engine %.3f s (device, FFT "
         "plans, buffers), correlate %.3f s (%s), read %.3f s (%.0f MB, beside "
         "correlate), write %.3f s, release %.3f s, total %.3f s",
         t_setup,
         t_engine,
         times.correlate_s,
         on_gpu ? "uploads and GPU work, pipelined" : "CPU",
         times.read_s,
         times.read_bytes / 1e6,
         t_write,
         t_release,
         seconds_since(t_start));
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
            return 0;
        }
        return run(o);
    } catch (const xc::input_error& e) {
        std::fprintf(stderr, "cudadsp_xcorr: error: %s\n", e.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "cudadsp_xcorr: error: out of host memory\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cudadsp_xcorr: error: %s\n", e.what());
    }
    return 1;
}
