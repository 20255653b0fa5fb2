/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/item_size.h"
#include "blocks/polarimetric/kdp_ff_impl.h"
#include <gnuradio/block_detail.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

//! Input bytes (all inputs) a GPU batch aims at; radials are small, so it is a bound
//! on the batch more than a target.
constexpr std::size_t batch_input_bytes = std::size_t(8) << 20;
//! Pipeline chunks per batch, so staging one chunk overlaps the transfers of another.
constexpr std::size_t chunks_per_batch = 4;
//! Bound on a batch of short radials (about three PPI sweeps of 360 radials).
constexpr std::size_t max_batch_radials = 1024;

int input_count(bool use_rhohv, bool use_snr)
{
    return 1 + (use_rhohv ? 1 : 0) + (use_snr ? 1 : 0);
}

int batch_radials(const core::kdp_config& config, int inputs)
{
    const std::size_t radial_bytes = config.ngates * sizeof(float) * inputs;
    return static_cast<int>(
        std::clamp<std::size_t>(batch_input_bytes / radial_bytes, 1, max_batch_radials));
}

/*!
 * The engine's part of \p config validated (each error naming the field by its keyword
 * name), with its chunk_radials chosen where left 0: a quarter of the block's batch.
 */
core::kdp_config make_config(const kdp_ff_config& config)
{
    core::kdp_config engine = config.kdp;
    // Before the batch, which divides by the radial's size.
    engine.validate();
    if (engine.chunk_radials == 0)
        engine.chunk_radials = std::max<std::size_t>(
            1,
            static_cast<std::size_t>(
                batch_radials(engine, input_count(config.use_rhohv, config.use_snr))) /
                chunks_per_batch);
    return engine;
}

} // namespace

kdp_ff::sptr kdp_ff::make(const kdp_ff_config& config)
{
    // Validated before any GNU Radio object is built from it.
    return gnuradio::make_block_sptr<kdp_ff_impl>(
        make_config(config), config.use_rhohv, config.use_snr);
}

kdp_ff_impl::kdp_ff_impl(const core::kdp_config& config, bool use_rhohv, bool use_snr)
    : gr::sync_block(
          "kdp_ff",
          gr::io_signature::make(
              input_count(use_rhohv, use_snr),
              input_count(use_rhohv, use_snr),
              checked_item_size(
                  "ngates", static_cast<std::int64_t>(config.ngates), sizeof(float))),
          gr::io_signature::make(
              2,
              2,
              checked_item_size(
                  "ngates", static_cast<std::int64_t>(config.ngates), sizeof(float)))),
      d_engine(core::kdp_processor::make(config)),
      d_rhohv_port(use_rhohv ? 1 : -1),
      d_snr_port(use_snr ? (use_rhohv ? 2 : 1) : -1),
      d_batch(batch_radials(config, input_count(use_rhohv, use_snr)))
{
    log_backend(d_logger, d_engine->device());

    d_batch.limit_work_calls(*this);
    // GNU Radio's default copies every input's tags to every output, which would
    // repeat the tags that the inputs share (polarimetric_products_cf tags every
    // product alike); pass_tags() passes each once.
    set_tag_propagation_policy(TPP_DONT);
}

bool kdp_ff_impl::start()
{
    // On CUDA, work() waits for a batch of radials (see batch_gate), and the GNU
    // Radio buffers it moves are page-locked.
    if (d_engine->device().backend == core::backend_kind::cuda) {
        d_batch.start(*this, 1, d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    }
    return sync_block::start();
}

bool kdp_ff_impl::stop()
{
    d_registered_buffers.release();
    return sync_block::stop();
}

int kdp_ff_impl::half_window_gates() const
{
    return static_cast<int>(d_engine->config().half_window_gates());
}

std::string kdp_ff_impl::backend() const { return d_engine->device().to_string(); }

void kdp_ff_impl::pass_tags(int noutput_items)
{
    const uint64_t first = nitems_read(0);
    std::vector<gr::tag_t> tags;
    std::vector<gr::tag_t> input_tags;
    for (int i = 0; i < detail()->ninputs(); ++i) {
        get_tags_in_range(input_tags, i, first, first + noutput_items);
        tags.insert(tags.end(), input_tags.begin(), input_tags.end());
    }
    // A tag that came on several inputs (polarimetric_products_cf tags every output)
    // passes once: duplicates can only share an offset, so only tags of one radial are
    // compared, and the stable sort keeps the first input's copy first.
    std::stable_sort(tags.begin(), tags.end(), gr::tag_t::offset_compare);
    for (std::size_t group = 0; group < tags.size();) {
        std::size_t end = group;
        while (end < tags.size() && tags[end].offset == tags[group].offset)
            ++end;
        for (std::size_t t = group; t < end; ++t) {
            const bool repeated = std::any_of(
                tags.begin() + group, tags.begin() + t, [&](const gr::tag_t& p) {
                    return pmt::eqv(p.key, tags[t].key) &&
                           pmt::equal(p.value, tags[t].value);
                });
            // A sync block: input radial n is output radial n.
            if (!repeated)
                for (int o = 0; o < 2; ++o)
                    add_item_tag(o, tags[t]);
        }
        group = end;
    }
}

int kdp_ff_impl::work_body(int noutput_items,
                           gr_vector_const_void_star& input_items,
                           gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(*this, noutput_items))
        return 0; // called again when more input arrives
    auto input = [&](int port) {
        return port < 0 ? nullptr : static_cast<const float*>(input_items[port]);
    };
    d_engine->process(input(0),
                      input(d_rhohv_port),
                      input(d_snr_port),
                      static_cast<std::size_t>(noutput_items),
                      static_cast<float*>(output_items[0]),
                      static_cast<float*>(output_items[1]));
    pass_tags(noutput_items);
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
