/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/item_size.h"
#include "blocks/tbd/st_tbd_ff_impl.h"
#include "runtime/quoted_text.h"
#include "tbd/st_tbd_internal.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

//! Input bytes a GPU batch aims at: transfers and launches large enough to run at
//! the link's and the device's speed (8 frames of 1000 x 1000).
constexpr std::size_t batch_input_bytes = std::size_t(32) << 20;
//! Bound on a batch of small frames, which keeps the block's latency and buffers small.
constexpr int max_batch_frames = 256;

/*! The most detections a frame may have: the detection port holds twice a frame's
 *  worth (st_tbd_ff_impl's d_detections_out), and detection_queue_limit() returns that
 *  bound as an int. */
constexpr std::size_t most_detections_per_frame =
    static_cast<std::size_t>(std::numeric_limits<int>::max()) / 2;

//! \p value if it is at most INT_MAX, as the block's int getter returns it; else
//! std::invalid_argument naming \p name.
int int_field(std::size_t value, const char* name, const char* getter)
{
    if (value > static_cast<std::size_t>(std::numeric_limits<int>::max()))
        throw std::invalid_argument(std::string(name) + ": must be at most " +
                                    std::to_string(std::numeric_limits<int>::max()) +
                                    " (" + getter + " is an int), got " +
                                    std::to_string(value));
    return static_cast<int>(value);
}

} // namespace

int st_tbd_ff::default_batch_frames(int width, int height)
{
    const std::size_t frame_bytes = sizeof(float) *
                                    static_cast<std::size_t>(std::max(width, 1)) *
                                    static_cast<std::size_t>(std::max(height, 1));
    return static_cast<int>(std::clamp<std::size_t>(
        batch_input_bytes / frame_bytes, 1, static_cast<std::size_t>(max_batch_frames)));
}

st_tbd_ff::sptr st_tbd_ff::make(const st_tbd_ff_config& config)
{
    // Validated before any GNU Radio object is built from it.
    config.tbd.validate();
    if (config.tbd.max_detections_per_frame > most_detections_per_frame)
        throw std::invalid_argument(
            "max_detections_per_frame: must be at most " +
            std::to_string(most_detections_per_frame) +
            " (the detection queue holds twice as many and detection_queue_limit() is "
            "an int), got " +
            std::to_string(config.tbd.max_detections_per_frame));
    const int batch_frames =
        int_field(config.batch_frames, "batch_frames", "batch_frames()");
    return gnuradio::make_block_sptr<st_tbd_ff_impl>(
        config.tbd,
        batch_frames > 0 ? batch_frames
                         : default_batch_frames(static_cast<int>(config.tbd.width),
                                                static_cast<int>(config.tbd.height)));
}

st_tbd_ff_impl::st_tbd_ff_impl(const core::st_tbd_config& config, int batch_frames)
    : gr::sync_block("st_tbd_ff",
                     gr::io_signature::make(
                         1,
                         1,
                         checked_item_size("width * height",
                                           static_cast<std::int64_t>(config.cells()),
                                           sizeof(float))),
                     gr::io_signature::make(
                         1,
                         2,
                         checked_item_size("width * height",
                                           static_cast<std::int64_t>(config.cells()),
                                           sizeof(float)))),
      d_cells(config.cells()),
      d_batch(batch_frames),
      d_alpha(config.alpha),
      d_threshold(config.threshold),
      d_port(pmt::intern("detections")),
      d_reset_tag_key(pmt::intern("tbd_reset")),
      d_key_frame(pmt::intern("frame")),
      d_key_x(pmt::intern("x")),
      d_key_y(pmt::intern("y")),
      d_key_vx(pmt::intern("vx")),
      d_key_vy(pmt::intern("vy")),
      d_key_value(pmt::intern("value")),
      // A frame's detections always fit: the bound never splits a frame's worth.
      d_detections_out(*this,
                       d_port,
                       std::max<std::size_t>(1024, 2 * config.max_detections_per_frame),
                       d_logger)
{
    core::st_tbd_config engine_config = config;
    if (config.autotune) {
        d_logger->info("autotuning the generated kernel's line order when no cached "
                       "order exists (up to {} iterations or {} s)",
                       config.autotune_iterations,
                       config.autotune_seconds);
        // The search runs inside the engine's construction, for up to a minute: say
        // how it goes, about every tenth of the iteration budget.
        engine_config.autotune_progress =
            [this,
             reported = std::size_t(0)](const core::tbd_autotune_progress& p) mutable {
                const std::size_t step = std::max<std::size_t>(1, p.iterations / 10);
                if (!p.finished && p.iteration < reported + step)
                    return;
                reported = p.iteration;
                d_logger->info("autotune: {} of {} iterations, {:.1f} s: {:.4f} ms per "
                               "frame (sorted order {:.4f} ms){}",
                               p.iteration,
                               p.iterations,
                               p.elapsed_s,
                               p.best_ms,
                               p.start_ms,
                               p.finished ? ", done" : "");
            };
    }
    d_engine = core::st_tbd::make(engine_config);

    log_backend(d_logger, d_engine->device(), d_engine->implementation());

    // Frames of 1000 x 1000 are 4 MB each: the buffers hold two batches, not GNU
    // Radio's default of many items.
    d_batch.limit_work_calls(*this);

    message_port_register_out(d_port);
    message_port_register_in(pmt::intern("reset"));
    set_msg_handler(pmt::intern("reset"), [this](const pmt::pmt_t&) { reset(); });
}

bool st_tbd_ff_impl::start()
{
    // On CUDA, work() waits for a batch of frames (see batch_gate).
    if (d_engine->device().backend == core::backend_kind::cuda) {
        d_batch.start(*this, 1, d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    }
    return sync_block::start();
}

bool st_tbd_ff_impl::stop()
{
    d_registered_buffers.release();
    return sync_block::stop();
}

void st_tbd_ff_impl::set_alpha(float alpha)
{
    core::validate_tbd_alpha(alpha);
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    d_alpha = alpha;
    d_alpha_changed = true;
}

float st_tbd_ff_impl::alpha() const
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    return d_alpha;
}

void st_tbd_ff_impl::set_threshold(float threshold)
{
    core::validate_tbd_threshold(threshold);
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    d_threshold = threshold;
    d_threshold_changed = true;
}

float st_tbd_ff_impl::threshold() const
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    return d_threshold;
}

void st_tbd_ff_impl::reset() { d_reset_requested = true; }

int st_tbd_ff_impl::width() const { return static_cast<int>(d_engine->config().width); }

int st_tbd_ff_impl::height() const { return static_cast<int>(d_engine->config().height); }

const std::vector<core::tbd_hypothesis>& st_tbd_ff_impl::hypotheses() const
{
    return d_engine->config().hypotheses;
}

int st_tbd_ff_impl::max_detections_per_frame() const
{
    return static_cast<int>(d_engine->config().max_detections_per_frame);
}

int st_tbd_ff_impl::batch_frames() const { return d_batch.batch_items(); }

std::uint64_t st_tbd_ff_impl::detections_dropped() const
{
    return d_detections_out.dropped();
}

int st_tbd_ff_impl::detection_queue_limit() const
{
    return static_cast<int>(d_detections_out.max_queued());
}

std::string st_tbd_ff_impl::backend() const { return d_engine->device().to_string(); }

std::string st_tbd_ff_impl::implementation() const { return d_engine->implementation(); }

void st_tbd_ff_impl::apply_pending_changes()
{
    {
        std::lock_guard<std::mutex> lock(d_settings_mutex);
        if (d_alpha_changed) {
            d_engine->set_alpha(d_alpha);
            d_alpha_changed = false;
        }
        if (d_threshold_changed) {
            d_engine->set_threshold(d_threshold);
            d_threshold_changed = false;
        }
    }
    if (d_reset_requested.exchange(false))
        d_engine->reset();
}

void st_tbd_ff_impl::process_frames(const float* in,
                                    float* detection_map,
                                    float* argmax,
                                    std::size_t begin,
                                    std::size_t end)
{
    if (end == begin)
        return;
    const std::size_t offset = begin * d_cells;
    // The engine delivers the argmax as floats (on CUDA converted on the GPU and
    // transferred straight into the page-locked GNU Radio buffer).
    const std::uint64_t first_engine_frame = d_engine->frames_processed();
    d_detections.clear();
    d_engine->process_float_argmax(in + offset,
                                   end - begin,
                                   detection_map + offset,
                                   argmax ? argmax + offset : nullptr,
                                   &d_detections);

    // The engine counts frames since its last reset; messages name the input item.
    const std::uint64_t first_item = nitems_read(0) + begin;
    for (const core::tbd_detection& det : d_detections) {
        pmt::pmt_t dict = pmt::make_dict();
        dict = pmt::dict_add(
            dict,
            d_key_frame,
            pmt::from_uint64(first_item + (det.frame - first_engine_frame)));
        dict = pmt::dict_add(dict, d_key_x, pmt::from_uint64(det.x));
        dict = pmt::dict_add(dict, d_key_y, pmt::from_uint64(det.y));
        dict = pmt::dict_add(dict, d_key_vx, pmt::from_double(det.vx));
        dict = pmt::dict_add(dict, d_key_vy, pmt::from_double(det.vy));
        dict = pmt::dict_add(dict, d_key_value, pmt::from_double(det.value));
        d_detections_out.publish(dict);
    }
}

int st_tbd_ff_impl::work_body(int noutput_items,
                              gr_vector_const_void_star& input_items,
                              gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(*this, noutput_items))
        return 0; // called again when more input arrives
    apply_pending_changes();
    const auto* in = static_cast<const float*>(input_items[0]);
    auto* detection_map = static_cast<float*>(output_items[0]);
    // Output 1 unconnected: the argmax is neither computed nor transferred.
    auto* argmax =
        output_items.size() > 1 ? static_cast<float*>(output_items[1]) : nullptr;

    // A reset tag splits the call: frames before it finish the old run, the tagged
    // frame is the first of a new one.
    std::vector<gr::tag_t> tags;
    const std::uint64_t start = nitems_read(0);
    get_tags_in_range(tags, 0, start, start + noutput_items, d_reset_tag_key);
    std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    std::size_t done = 0;
    for (const gr::tag_t& tag : tags) {
        const std::size_t at = static_cast<std::size_t>(tag.offset - start);
        process_frames(in, detection_map, argmax, done, at);
        d_engine->reset();
        done = at;
    }
    process_frames(
        in, detection_map, argmax, done, static_cast<std::size_t>(noutput_items));
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
