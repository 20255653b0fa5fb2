/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/item_size.h"
#include "blocks/unwrap/phase_unwrap_2d_ff_impl.h"
#include <gnuradio/io_signature.h>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

/*!
 * \p config's engine configuration, validated: the frame within GNU Radio's item size
 * (an int of bytes), then the engine's own rules, each error naming the field.
 */
const core::phase_unwrap_2d_config& validated(const phase_unwrap_2d_ff_config& config)
{
    const core::phase_unwrap_2d_config& c = config.unwrapping;
    const auto max_side = static_cast<std::size_t>(std::numeric_limits<int>::max());
    if (c.width < 1 || c.width > max_side)
        throw std::invalid_argument("width: must be >= 1 (a C++ int), got " +
                                    std::to_string(c.width));
    if (c.height < 1 || c.height > max_side)
        throw std::invalid_argument("height: must be >= 1 (a C++ int), got " +
                                    std::to_string(c.height));
    // GNU Radio's int item size allows fewer pixels than the engine's limit of 2^30;
    // both sides fit an int, so their product fits 64 bits.
    const std::uint64_t pixels = std::uint64_t(c.width) * std::uint64_t(c.height);
    const auto max_frame_pixels =
        static_cast<std::uint64_t>(max_item_elements(sizeof(float)));
    if (pixels > max_frame_pixels)
        throw std::invalid_argument(
            "width, height: a frame may have at most " +
            std::to_string(max_frame_pixels) +
            " pixels (its size in bytes must fit GNU Radio's item size, an int), got " +
            std::to_string(c.width) + " x " + std::to_string(c.height) + " = " +
            std::to_string(pixels));
    c.validate();
    return c;
}

} // namespace

phase_unwrap_2d_ff::sptr phase_unwrap_2d_ff::make(const phase_unwrap_2d_ff_config& config)
{
    // Validated before the item size of the io signatures is formed from it.
    return gnuradio::make_block_sptr<phase_unwrap_2d_ff_impl>(validated(config),
                                                              config.weight_input);
}

phase_unwrap_2d_ff_impl::phase_unwrap_2d_ff_impl(
    const core::phase_unwrap_2d_config& config, bool weight_input)
    : gr::sync_block("phase_unwrap_2d_ff",
                     gr::io_signature::make(weight_input ? 2 : 1,
                                            weight_input ? 2 : 1,
                                            sizeof(float) * config.pixels()),
                     gr::io_signature::make(1, 1, sizeof(float) * config.pixels())),
      d_pixels(config.pixels()),
      d_weight_input(weight_input),
      d_engine(core::phase_unwrapper_2d::make(config)),
      d_tag_key(pmt::intern("unwrap_2d")),
      d_key_valid_pixels(pmt::intern("valid_pixels")),
      d_key_components(pmt::intern("components")),
      d_key_iterations(pmt::intern("iterations")),
      d_key_relative_residual(pmt::intern("relative_residual"))
{
    log_backend(d_logger, d_engine->device(), "method " + core::to_string(config.method));
}

bool phase_unwrap_2d_ff_impl::start()
{
    // Page-locked, GNU Radio's buffers are copied to and from the GPU directly.
    if (d_engine->device().backend == core::backend_kind::cuda)
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    return sync_block::start();
}

bool phase_unwrap_2d_ff_impl::stop()
{
    d_registered_buffers.release();
    return sync_block::stop();
}

int phase_unwrap_2d_ff_impl::width() const
{
    return static_cast<int>(d_engine->config().width);
}

int phase_unwrap_2d_ff_impl::height() const
{
    return static_cast<int>(d_engine->config().height);
}

std::string phase_unwrap_2d_ff_impl::method() const
{
    return core::to_string(d_engine->config().method);
}

double phase_unwrap_2d_ff_impl::period() const { return d_engine->config().period; }

bool phase_unwrap_2d_ff_impl::wrap_around_x() const
{
    return d_engine->config().wrap_around_x;
}

bool phase_unwrap_2d_ff_impl::wrap_around_y() const
{
    return d_engine->config().wrap_around_y;
}

int phase_unwrap_2d_ff_impl::gradient_window() const
{
    return static_cast<int>(d_engine->config().gradient_window);
}

bool phase_unwrap_2d_ff_impl::congruent() const { return d_engine->config().congruent; }

int phase_unwrap_2d_ff_impl::max_iterations() const
{
    return static_cast<int>(d_engine->config().max_iterations);
}

double phase_unwrap_2d_ff_impl::tolerance() const { return d_engine->config().tolerance; }

bool phase_unwrap_2d_ff_impl::weight_input() const { return d_weight_input; }

int phase_unwrap_2d_ff_impl::tile_size() const
{
    return static_cast<int>(d_engine->config().tile_size);
}

int phase_unwrap_2d_ff_impl::tile_overlap() const
{
    return static_cast<int>(d_engine->config().tile_overlap);
}

int phase_unwrap_2d_ff_impl::looks() const
{
    return static_cast<int>(d_engine->config().looks);
}

std::string phase_unwrap_2d_ff_impl::backend() const
{
    return d_engine->device().to_string();
}

pmt::pmt_t
phase_unwrap_2d_ff_impl::report_dict(const core::unwrap_2d_report& report) const
{
    pmt::pmt_t dict = pmt::make_dict();
    dict = pmt::dict_add(dict, d_key_valid_pixels, pmt::from_uint64(report.valid_pixels));
    dict = pmt::dict_add(dict, d_key_components, pmt::from_uint64(report.components));
    dict = pmt::dict_add(dict, d_key_iterations, pmt::from_uint64(report.iterations));
    dict = pmt::dict_add(
        dict, d_key_relative_residual, pmt::from_double(report.relative_residual));
    return dict;
}

int phase_unwrap_2d_ff_impl::work_body(int noutput_items,
                                       gr_vector_const_void_star& input_items,
                                       gr_vector_void_star& output_items)
{
    const auto* wrapped = static_cast<const float*>(input_items[0]);
    const auto* weight =
        d_weight_input ? static_cast<const float*>(input_items[1]) : nullptr;
    auto* unwrapped = static_cast<float*>(output_items[0]);
    const std::uint64_t first_item = nitems_written(0);
    for (int frame = 0; frame < noutput_items; ++frame) {
        const std::size_t offset = static_cast<std::size_t>(frame) * d_pixels;
        core::unwrap_2d_buffers buffers;
        buffers.wrapped = wrapped + offset;
        buffers.unwrapped = unwrapped + offset;
        buffers.weight = weight ? weight + offset : nullptr;
        const core::unwrap_2d_report report = d_engine->unwrap(buffers);
        add_item_tag(0, first_item + frame, d_tag_key, report_dict(report), alias_pmt());
    }
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
