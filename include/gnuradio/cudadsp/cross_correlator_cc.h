/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_H
#define INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/sync_decimator.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief Frame-by-frame linear cross-correlation of two complex streams, with the
 * sub-sample lag, normalised magnitude and phase of the peak.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: port 0 x, port 1 y (gr_complex samples). Every \p fft_len samples of each
 * make one frame; per frame the block emits one item on each output:
 *  - out 0 (float): lag of the peak in samples, resolution 1/interp; positive when x
 *    is y delayed (x[n] ~ y[n - lag]);
 *  - out 1 (float): |r(lag)| / sqrt(E_x E_y), in [0, 1];
 *  - out 2 (float): arg r(lag), radians in (-pi, pi] (feed phase_unwrap_ff for a
 *    continuous phase difference);
 *  - with \p spectrum_output, next port (gr_complex vector of transform_len = the
 *    smallest power of two >= 2 fft_len): the cross-spectrum X conj(Y) in FFT order;
 *  - with \p correlation_output, next port (gr_complex vector of 2 max_lag + 1): the
 *    correlation r[-max_lag .. max_lag].
 * Frames are zero-padded to transform_len before the FFTs, so the correlation is
 * linear, not circular. Definitions: docs/blocks/cross_correlator_cc.md.
 *
 * Tags: input tags go to the frame that holds the tagged sample, on every output.
 */
class CUDADSP_API cross_correlator_cc : virtual public gr::sync_decimator
{
public:
    typedef std::shared_ptr<cross_correlator_cc> sptr;

    /*!
     * \param fft_len samples per frame (>= 2).
     * \param interp sub-sample resolution: lags resolved to 1/interp sample (>= 1).
     * \param max_lag largest |lag| searched and output (1 .. fft_len - 1); 0 for
     * fft_len - 1.
     * \param spectrum_output add an output port with the cross-spectrum.
     * \param correlation_output add an output port with the correlation vector.
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     */
    static sptr make(int fft_len,
                     int interp = 16,
                     int max_lag = 0,
                     bool spectrum_output = false,
                     bool correlation_output = false,
                     const std::string& device = "auto");

    /*!
     * Samples the upstream buffers (of both inputs) should hold for full GPU batches:
     * two batches of frames. On the CUDA backend work() gathers a batch of frames
     * (about 16 MiB of input over both ports, at most 16384 frames) before it launches,
     * waiting at most 20 ms for a partial one; a smaller upstream buffer gives smaller
     * launches and a warning at start. Set it as the upstream blocks' minimum output
     * buffer (GRC: Advanced > Min Output Buffer).
     */
    static int upstream_buffer_items(int fft_len);

    //! Transform length L (cross-spectrum bins per frame).
    virtual int transform_len() const = 0;
    //! Elements of the correlation vector per frame (2 max_lag + 1).
    virtual int correlation_len() const = 0;
    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_H */
