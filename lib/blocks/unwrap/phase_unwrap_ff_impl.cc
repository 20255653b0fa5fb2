/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/item_size.h"
#include "blocks/unwrap/phase_unwrap_ff_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

core::phase_unwrap_config
make_config(int vlen, double period, const std::string& device, int batch_samples)
{
    if (batch_samples < vlen)
        throw std::invalid_argument("batch_samples: must be >= vlen (" +
                                    std::to_string(vlen) + "), got " +
                                    std::to_string(batch_samples));
    core::phase_unwrap_config config;
    config.vlen = static_cast<std::size_t>(vlen);
    config.period = period;
    config.device = device;
    // A few pipeline chunks per batch, so that staging one chunk through pinned memory
    // overlaps the transfers and kernel of the one before.
    constexpr std::size_t chunks_per_batch = 4;
    constexpr std::size_t smallest_chunk = 1 << 16;
    config.chunk_samples = std::max<std::size_t>(
        smallest_chunk, static_cast<std::size_t>(batch_samples) / chunks_per_batch);
    return config;
}

} // namespace

phase_unwrap_ff::sptr phase_unwrap_ff::make(int vlen,
                                            double period,
                                            const std::string& device,
                                            int batch_samples)
{
    return gnuradio::make_block_sptr<phase_unwrap_ff_impl>(
        vlen, period, device, batch_samples);
}

phase_unwrap_ff_impl::phase_unwrap_ff_impl(int vlen,
                                           double period,
                                           const std::string& device,
                                           int batch_samples)
    : gr::sync_block(
          "phase_unwrap_ff",
          gr::io_signature::make(1, 1, checked_item_size("vlen", vlen, sizeof(float))),
          gr::io_signature::make(1, 1, checked_item_size("vlen", vlen, sizeof(float)))),
      d_vlen(vlen),
      d_batch(std::max(1, batch_samples / std::max(vlen, 1))),
      d_engine(
          core::phase_unwrapper::make(make_config(vlen, period, device, batch_samples))),
      d_period(period),
      d_reset_tag_key(pmt::intern("unwrap_reset"))
{
    log_backend(d_logger, d_engine->device());

    d_batch.limit_work_calls(*this);

    message_port_register_in(pmt::intern("reset"));
    set_msg_handler(pmt::intern("reset"),
                    [this](const pmt::pmt_t& msg) { handle_reset_message(msg); });
}

bool phase_unwrap_ff_impl::start()
{
    // On CUDA, work() waits for a batch (see batch_gate), and the GNU Radio buffers it
    // moves are page-locked.
    if (d_engine->device().backend == core::backend_kind::cuda) {
        d_batch.start(*this, 1, d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    }
    return sync_block::start();
}

bool phase_unwrap_ff_impl::stop()
{
    d_registered_buffers.release();
    return sync_block::stop();
}

void phase_unwrap_ff_impl::set_period(double period)
{
    core::validate_phase_period(period);
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    d_period = period;
    d_period_changed = true;
}

double phase_unwrap_ff_impl::period() const
{
    std::lock_guard<std::mutex> lock(d_settings_mutex);
    return d_period;
}

void phase_unwrap_ff_impl::reset() { d_reset_requested = true; }

void phase_unwrap_ff_impl::handle_reset_message(const pmt::pmt_t&) { reset(); }

std::uint64_t phase_unwrap_ff_impl::out_of_range_samples()
{
    return d_engine->out_of_range_samples();
}

std::string phase_unwrap_ff_impl::backend() const
{
    return d_engine->device().to_string();
}

void phase_unwrap_ff_impl::apply_pending_changes()
{
    {
        std::lock_guard<std::mutex> lock(d_settings_mutex);
        if (d_period_changed) {
            d_engine->set_period(d_period); // also restarts the unwrapping
            d_period_changed = false;
        }
    }
    if (d_reset_requested.exchange(false))
        d_engine->reset();
}

int phase_unwrap_ff_impl::work_body(int noutput_items,
                                    gr_vector_const_void_star& input_items,
                                    gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(*this, noutput_items))
        return 0; // called again when more input arrives
    const auto* in = static_cast<const float*>(input_items[0]);
    auto* out = static_cast<float*>(output_items[0]);
    apply_pending_changes();

    // A reset tag splits the call: samples before it finish the old run, the tagged
    // sample starts a new one. Vectors always start afresh, so tags only matter in
    // stream mode.
    std::size_t done = 0;
    if (d_vlen == 1) {
        std::vector<gr::tag_t> tags;
        const uint64_t start = nitems_read(0);
        get_tags_in_range(tags, 0, start, start + noutput_items, d_reset_tag_key);
        std::sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
        for (const gr::tag_t& tag : tags) {
            const std::size_t at = static_cast<std::size_t>(tag.offset - start);
            d_engine->unwrap(in + done, out + done, at - done);
            d_engine->reset();
            done = at;
        }
    }
    const std::size_t total = static_cast<std::size_t>(noutput_items) * d_vlen;
    d_engine->unwrap(in + done, out + done, total - done);
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
