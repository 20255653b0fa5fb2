/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/common/backend_log.h"
#include "blocks/common/decimated_tags.h"
#include "blocks/cross_correlation/cross_correlator_cc_impl.h"
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

//! Input bytes (both ports) a GPU batch aims at: large transforms and transfers.
constexpr std::size_t batch_input_bytes = std::size_t(16) << 20;
//! Pipeline chunks (cuFFT batches) per batch, so staging one chunk overlaps the
//! transfers and transforms of another.
constexpr std::size_t chunks_per_batch = 4;
//! Bound on a batch of short frames, which keeps the output buffers small.
constexpr std::size_t max_batch_frames = 16384;
//! Scalar outputs per frame: lag, magnitude, phase.
constexpr int peak_outputs = 3;

int batch_frames(std::size_t fft_len)
{
    const std::size_t frame_bytes = 2 * fft_len * sizeof(gr_complex);
    return static_cast<int>(
        std::clamp<std::size_t>(batch_input_bytes / frame_bytes, 1, max_batch_frames));
}

core::cross_correlator_config
make_config(int fft_len, int interp, int max_lag, const std::string& device)
{
    // Negative values would wrap in the engine's unsigned fields: name them here.
    if (fft_len < 2)
        throw std::invalid_argument("fft_len: must be >= 2, got " +
                                    std::to_string(fft_len));
    if (interp < 1)
        throw std::invalid_argument("interp: must be >= 1, got " +
                                    std::to_string(interp));
    if (max_lag < 0)
        throw std::invalid_argument("max_lag: must be 1 .. fft_len - 1, or 0 for "
                                    "fft_len - 1; got " +
                                    std::to_string(max_lag));
    core::cross_correlator_config config;
    config.fft_len = static_cast<std::size_t>(fft_len);
    config.interp = static_cast<std::size_t>(interp);
    config.max_lag = static_cast<std::size_t>(max_lag);
    config.device = device;
    config.validate(); // before the batch, which needs a valid transform length
    config.batch_frames = std::min<std::size_t>(
        std::max<std::size_t>(
            1, static_cast<std::size_t>(batch_frames(config.fft_len)) / chunks_per_batch),
        (std::size_t(1) << 29) / config.transform_len());
    config.validate();
    return config;
}

std::vector<int> output_item_sizes(const core::cross_correlator_config& config,
                                   bool spectrum_output,
                                   bool correlation_output)
{
    std::vector<int> sizes(peak_outputs, sizeof(float));
    if (spectrum_output)
        sizes.push_back(static_cast<int>(config.transform_len() * sizeof(gr_complex)));
    if (correlation_output)
        sizes.push_back(static_cast<int>(config.correlation_len() * sizeof(gr_complex)));
    return sizes;
}

} // namespace

int cross_correlator_cc::upstream_buffer_items(int fft_len)
{
    const std::size_t n = static_cast<std::size_t>(std::max(fft_len, 1));
    return 2 * batch_frames(n) * static_cast<int>(n);
}

cross_correlator_cc::sptr cross_correlator_cc::make(int fft_len,
                                                    int interp,
                                                    int max_lag,
                                                    bool spectrum_output,
                                                    bool correlation_output,
                                                    const std::string& device)
{
    // Validated before any GNU Radio object is built from it.
    const core::cross_correlator_config config =
        make_config(fft_len, interp, max_lag, device);
    return gnuradio::make_block_sptr<cross_correlator_cc_impl>(
        config, spectrum_output, correlation_output);
}

cross_correlator_cc_impl::cross_correlator_cc_impl(
    const core::cross_correlator_config& config,
    bool spectrum_output,
    bool correlation_output)
    : gr::sync_decimator(
          "cross_correlator_cc",
          gr::io_signature::make(2, 2, sizeof(gr_complex)),
          gr::io_signature::makev(
              peak_outputs + spectrum_output + correlation_output,
              peak_outputs + spectrum_output + correlation_output,
              output_item_sizes(config, spectrum_output, correlation_output)),
          static_cast<unsigned int>(config.fft_len)),
      d_engine(core::cross_correlator::make(config)),
      d_batch(batch_frames(config.fft_len)),
      d_spectrum_port(spectrum_output ? peak_outputs : -1),
      d_correlation_port(correlation_output ? peak_outputs + spectrum_output : -1),
      d_peaks(static_cast<std::size_t>(d_batch.batch_items()))
{
    log_backend(d_logger, d_engine->device());
    d_logger->debug(
        "fft_len {}, transform_len {}, max_lag {}, interp {}, batch {} frames",
        config.fft_len,
        config.transform_len(),
        config.effective_max_lag(),
        config.interp,
        d_batch.batch_items());

    d_batch.limit_work_calls(*this);
    // GNU Radio's own propagation rounds offset / decimation to the nearest frame; a
    // tagged sample belongs to the frame that contains it (see
    // copy_tags_to_containing_items()).
    set_tag_propagation_policy(TPP_DONT);
}

int cross_correlator_cc_impl::transform_len() const
{
    return static_cast<int>(d_engine->config().transform_len());
}

int cross_correlator_cc_impl::correlation_len() const
{
    return static_cast<int>(d_engine->config().correlation_len());
}

std::string cross_correlator_cc_impl::backend() const
{
    return d_engine->device().to_string();
}

bool cross_correlator_cc_impl::start()
{
    // On CUDA, work() waits for a batch of frames (see batch_gate), and the GNU
    // Radio buffers it moves are page-locked.
    if (d_engine->device().backend == core::backend_kind::cuda) {
        d_batch.start(*this, decimation(), d_logger);
        d_registered_buffers.register_buffers(
            *this, d_engine->device().cuda_ordinal, d_logger);
    }
    return sync_decimator::start();
}

bool cross_correlator_cc_impl::stop()
{
    d_registered_buffers.release();
    return sync_decimator::stop();
}

int cross_correlator_cc_impl::work_body(int noutput_items,
                                        gr_vector_const_void_star& input_items,
                                        gr_vector_void_star& output_items)
{
    if (d_batch.should_wait(*this, noutput_items))
        return 0; // called again when more input arrives
    const auto nframes = static_cast<std::size_t>(noutput_items);
    if (d_peaks.size() < nframes)
        d_peaks.resize(nframes);

    d_engine->process(static_cast<const gr_complex*>(input_items[0]),
                      static_cast<const gr_complex*>(input_items[1]),
                      nframes,
                      d_peaks.data(),
                      d_spectrum_port >= 0
                          ? static_cast<gr_complex*>(output_items[d_spectrum_port])
                          : nullptr,
                      d_correlation_port >= 0
                          ? static_cast<gr_complex*>(output_items[d_correlation_port])
                          : nullptr);

    auto* lag = static_cast<float*>(output_items[0]);
    auto* magnitude = static_cast<float*>(output_items[1]);
    auto* phase = static_cast<float*>(output_items[2]);
    for (std::size_t f = 0; f < nframes; ++f) {
        lag[f] = d_peaks[f].lag;
        magnitude[f] = d_peaks[f].magnitude;
        phase[f] = d_peaks[f].phase;
    }
    copy_tags_to_containing_items(*this, decimation(), noutput_items);
    return noutput_items;
}


} /* namespace cudadsp */
} /* namespace gr */
