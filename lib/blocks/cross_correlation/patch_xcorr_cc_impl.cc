/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/item_size.h"
#include "blocks/cross_correlation/patch_xcorr_cc_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

patch_strip_geometry make_geometry(const patch_xcorr_cc_config& block,
                                   const core::patch_correlator_config& config)
{
    const int width = block.width, nx = block.nx, first_line = block.first_line;
    const int line_step = block.line_step, rshift = block.rshift, ashift = block.ashift;
    if (nx < 1)
        throw std::invalid_argument("nx: must be >= 1, got " + std::to_string(nx));
    if (line_step < 1)
        throw std::invalid_argument("line_step: must be >= 1, got " +
                                    std::to_string(line_step));
    patch_strip_geometry g;
    g.width = width;
    g.nx = nx;
    g.line_step = line_step;
    g.rshift = rshift;
    g.ashift = ashift;
    g.npx = config.npx();
    g.npy = config.npy();
    // In 64 bits: -ashift overflows an int for ashift = INT_MIN.
    const long long earliest = g.npy / 2 + std::max(0LL, -static_cast<long long>(ashift));
    g.first_line = first_line < 0 ? earliest : first_line;
    if (g.first_line < earliest)
        throw std::invalid_argument(
            "first_line: the windows of strip 0 would start before line 0 (needs >= " +
            std::to_string(earliest) + " with ysearch " + std::to_string(config.ysearch) +
            " and ashift " + std::to_string(ashift) + "), got " +
            std::to_string(first_line));
    // GMTSAR's columns for an image of this width (get_locations).
    // In 64 bits: nx + 3 overflows an int for nx near INT_MAX.
    const long long x_inc =
        (static_cast<long long>(width) - 6LL * config.xsearch) / (nx + 3LL);
    if (x_inc < 1)
        throw std::invalid_argument("width: " + std::to_string(width) +
                                    " samples is too narrow for " + std::to_string(nx) +
                                    " patches with xsearch " +
                                    std::to_string(config.xsearch) + " (needs > " +
                                    std::to_string(6LL * config.xsearch + nx + 2) + ")");
    for (int i = 2; i <= nx + 1; ++i) {
        const int x = g.npx + i * static_cast<int>(x_inc);
        // In 64 bits: x + rshift overflows an int for rshift near INT_MAX.
        const long long aligned_left = static_cast<long long>(x) + rshift - g.npx / 2;
        if (aligned_left < 0 || aligned_left + g.npx > width)
            throw std::invalid_argument("rshift: " + std::to_string(rshift) +
                                        " moves the aligned window of column " +
                                        std::to_string(x) + " outside the " +
                                        std::to_string(width) + "-sample lines");
        g.columns.push_back(x);
    }
    return g;
}

//! The engine's configuration from the block's: interp 0 is highres off.
core::patch_correlator_config make_config(const patch_xcorr_cc_config& block)
{
    const int interp = block.interp;
    if (interp < 0)
        throw std::invalid_argument("interp: must be >= 0 (0: no high-resolution step), "
                                    "got " +
                                    std::to_string(interp));
    core::patch_correlator_config config;
    config.xsearch = block.xsearch;
    config.ysearch = block.ysearch;
    config.range_interp = block.range_interp;
    config.highres = interp > 0;
    config.interp = interp > 0 ? interp : 1;
    config.device = block.device;
    config.validate();
    return config;
}

} // namespace

long long patch_strip_geometry::first_needed_line(long long strip) const
{
    return centre_line(strip) + std::min(0, ashift) - npy / 2;
}

long long patch_strip_geometry::end_needed_line(long long strip) const
{
    return centre_line(strip) + std::max(0, ashift) + npy / 2;
}

patch_xcorr_cc::sptr patch_xcorr_cc::make(const patch_xcorr_cc_config& block)
{
    // First: the geometry's int arithmetic relies on a line that fits an item.
    checked_item_size("width", block.width, sizeof(gr_complex));
    const core::patch_correlator_config config = make_config(block);
    const patch_strip_geometry geometry = make_geometry(block, config);
    return gnuradio::make_block_sptr<patch_xcorr_cc_impl>(config, geometry);
}

patch_xcorr_cc_impl::patch_xcorr_cc_impl(const core::patch_correlator_config& config,
                                         const patch_strip_geometry& geometry)
    : gr::block("patch_xcorr_cc",
                gr::io_signature::make(
                    2, 2, checked_item_size("width", geometry.width, sizeof(gr_complex))),
                gr::io_signature::make(1, 1, sizeof(float) * 5)),
      d_engine(core::patch_correlator::make(config)),
      d_geometry(geometry),
      d_port(pmt::intern("patches"))
{
    log_backend(d_logger, d_engine->device());
    message_port_register_out(d_port);
    // Lines and patches are not in a fixed ratio; tags would have no item to go to.
    set_tag_propagation_policy(TPP_DONT);
}

int patch_xcorr_cc_impl::patch_column(int i) const
{
    if (i < 0 || i >= d_geometry.nx)
        throw std::out_of_range("i: must be 0 .. " + std::to_string(d_geometry.nx - 1) +
                                ", got " + std::to_string(i));
    return d_geometry.columns[i];
}

long long patch_xcorr_cc_impl::strip_line(long long k) const
{
    return d_geometry.centre_line(k);
}

std::string patch_xcorr_cc_impl::backend() const
{
    return d_engine->device().to_string();
}

void patch_xcorr_cc_impl::forecast(int, gr_vector_int& ninput_items_required)
{
    std::fill(ninput_items_required.begin(), ninput_items_required.end(), 1);
}

void patch_xcorr_cc_impl::discard_lines_before(long long line)
{
    const long long drop =
        std::min(line - d_buffer_first_line, d_lines_received - d_buffer_first_line);
    if (drop <= 0)
        return;
    const std::size_t samples = static_cast<std::size_t>(drop) * d_geometry.width;
    d_master.erase(d_master.begin(), d_master.begin() + samples);
    d_aligned.erase(d_aligned.begin(), d_aligned.begin() + samples);
    d_buffer_first_line += drop;
}

void patch_xcorr_cc_impl::append_lines(const gr_complex* master,
                                       const gr_complex* aligned,
                                       int nlines)
{
    const std::size_t samples = static_cast<std::size_t>(nlines) * d_geometry.width;
    d_master.insert(d_master.end(), master, master + samples);
    d_aligned.insert(d_aligned.end(), aligned, aligned + samples);
    d_lines_received += nlines;
    // Lines before the next strip's windows (between strips) are never needed.
    discard_lines_before(d_geometry.first_needed_line(d_next_strip));
}

void patch_xcorr_cc_impl::process_strip()
{
    const patch_strip_geometry& g = d_geometry;
    const long long y = g.centre_line(d_next_strip);
    const long long buffered = d_lines_received - d_buffer_first_line;
    const core::image_view master{ d_master.data(),
                                   core::slc_sample_type::complex_float32,
                                   static_cast<std::size_t>(g.width),
                                   static_cast<std::size_t>(buffered) };
    core::image_view aligned = master;
    aligned.data = d_aligned.data();

    d_pairs.clear();
    for (int x : g.columns)
        d_pairs.push_back({ x - g.npx / 2,
                            y - g.npy / 2 - d_buffer_first_line,
                            x + g.rshift - g.npx / 2,
                            y + g.ashift - g.npy / 2 - d_buffer_first_line });
    d_results.resize(d_pairs.size());
    d_engine->correlate(
        master, aligned, d_pairs.data(), d_pairs.size(), d_results.data());

    const int range_interp = d_engine->config().range_interp;
    for (std::size_t i = 0; i < d_results.size(); ++i) {
        const core::patch_result& r = d_results[i];
        const record rec{ static_cast<float>(g.columns[i]),
                          core::patch_offset_dx(r, range_interp, g.rshift),
                          static_cast<float>(y),
                          core::patch_offset_dy(r, g.ashift, 0),
                          r.corr };
        d_pending.push_back(rec);
        pmt::pmt_t dict = pmt::make_dict();
        dict = pmt::dict_add(dict, pmt::intern("x"), pmt::from_long(g.columns[i]));
        dict = pmt::dict_add(dict, pmt::intern("dx"), pmt::from_double(rec[1]));
        dict = pmt::dict_add(dict, pmt::intern("y"), pmt::from_long(y));
        dict = pmt::dict_add(dict, pmt::intern("dy"), pmt::from_double(rec[3]));
        dict = pmt::dict_add(dict, pmt::intern("corr"), pmt::from_double(rec[4]));
        dict = pmt::dict_add(dict, pmt::intern("strip"), pmt::from_long(d_next_strip));
        message_port_pub(d_port, dict);
    }
    ++d_next_strip;
    discard_lines_before(g.first_needed_line(d_next_strip));
}

int patch_xcorr_cc_impl::general_work_body(int noutput_items,
                                           gr_vector_int& ninput_items,
                                           gr_vector_const_void_star& input_items,
                                           gr_vector_void_star& output_items)
{
    // GNU Radio ends a block whose input is done and fully consumed, so records must
    // never wait in the block with its input all consumed: the last line of a strip
    // stays unconsumed (though already copied) until the strip's records are out.
    const auto* master = static_cast<const gr_complex*>(input_items[0]);
    const auto* aligned = static_cast<const gr_complex*>(input_items[1]);
    auto* out = static_cast<record*>(output_items[0]);
    const long long first_input_line = d_lines_consumed;
    const long long input_end =
        first_input_line + std::min(ninput_items[0], ninput_items[1]);
    int produced = 0;
    while (true) {
        const int emit = static_cast<int>(std::min<std::size_t>(
            d_pending.size(), static_cast<std::size_t>(noutput_items - produced)));
        std::copy(d_pending.begin(), d_pending.begin() + emit, out + produced);
        d_pending.erase(d_pending.begin(), d_pending.begin() + emit);
        produced += emit;
        if (!d_pending.empty())
            break;
        d_lines_consumed = d_lines_received; // the held line (if any) may go now
        const long long strip_end = d_geometry.end_needed_line(d_next_strip);
        const long long take = std::min(input_end, strip_end) - d_lines_received;
        if (take <= 0)
            break;
        const std::size_t at =
            static_cast<std::size_t>(d_lines_received - first_input_line) *
            d_geometry.width;
        append_lines(master + at, aligned + at, static_cast<int>(take));
        d_lines_consumed = d_lines_received;
        if (d_lines_received == strip_end) {
            process_strip();
            d_lines_consumed = d_lines_received - 1; // held until the records are out
        }
    }
    consume_each(static_cast<int>(d_lines_consumed - first_input_line));
    return produced;
}

} /* namespace cudadsp */
} /* namespace gr */
