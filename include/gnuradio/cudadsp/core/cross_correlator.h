/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_H
#define INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Configuration of a frame cross-correlator.
 */
struct CUDADSP_CORE_API cross_correlator_config {
    //! Samples per frame of each input (N), >= 2.
    std::size_t fft_len = 4096;
    //! Sub-sample resolution of the peak: lags are resolved to 1/interp sample, >= 1.
    std::size_t interp = 16;
    //! Largest |lag| searched, samples; 0 < max_lag <= fft_len - 1. 0 means fft_len - 1.
    std::size_t max_lag = 0;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend: frames per cuFFT batch (and per pipelined chunk of host calls).
     *  0: about 16 MiB of input per batch. */
    std::size_t batch_frames = 0;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;

    //! The max_lag in effect (fft_len - 1 when max_lag is 0).
    std::size_t effective_max_lag() const { return max_lag ? max_lag : fft_len - 1; }
    //! Transform length L: the smallest power of two >= 2 * fft_len (linear correlation).
    std::size_t transform_len() const;
    //! Elements of a frame's correlation vector: lags -max_lag .. +max_lag.
    std::size_t correlation_len() const { return 2 * effective_max_lag() + 1; }
};

//! Per-frame result.
struct cross_correlation_peak {
    float lag;       //!< samples, sub-sample resolution; x[n] ~ y[n - lag]
    float magnitude; //!< |r(lag)| / sqrt(E_x E_y), in [0, 1]
    float phase;     //!< arg r(lag), radians in (-pi, pi]
};

/*!
 * \brief Cross-correlates two complex streams frame by frame and locates the peak.
 *
 * Frame k holds x[kN .. kN+N-1] and y[kN .. kN+N-1] (N = fft_len). Its linear (not
 * circular) cross-correlation is
 *
 *     r[l] = sum_n x[n] conj(y[n - l]),   l = -(N-1) .. N-1,
 *
 * with samples outside the frame taken as zero: both frames are zero-padded to
 * L = transform_len() >= 2N, so the circular correlation of the padded frames
 * R = IFFT(FFT(x) conj(FFT(y))) equals r without wrap-around. r peaks at l = d when x
 * is y delayed by d samples.
 *
 * The peak: the integer lag l0 of the largest |r[l]| with |l| <= max_lag (the
 * smallest lag on ties), then r evaluated on the fine grid l0 + j/interp,
 * j = -interp .. interp, by band-limited (DFT) interpolation of the padded
 * correlation (the trigonometric interpolant of the L-periodic correlation, with the
 * Nyquist bin split evenly between +L/2 and -L/2), which equals zero-padding the
 * cross-spectrum interp-fold with that split; the lag is
 * that grid's argmax of |r|, limited to +-max_lag. magnitude = |r(lag)| / sqrt(E_x E_y)
 * with E the frame energies; phase = arg r(lag). A frame with zero energy in either
 * input gives lag 0, magnitude 0, phase 0; one with a non-finite sample gives NaN.
 * Finite frames beyond float32's range follow the same rules: L E_x, L E_y or
 * L^2 E_x E_y above 2^250 gives NaN, E_x, E_y or E_x E_y below 2^-200 gives zeros
 * (frame_range() in cross_correlation_peak_rule.h).
 *
 * Optional per-frame outputs: the cross-spectrum X conj(Y) (L bins, FFT order) and
 * the correlation vector r[-max_lag .. max_lag].
 */
class CUDADSP_CORE_API cross_correlator
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<cross_correlator> make(const cross_correlator_config& config);
    virtual ~cross_correlator();

    /*!
     * Correlate \p nframes frames between host buffers (pageable or pinned): x and y
     * hold nframes * fft_len samples; peaks receives nframes results. spectrum
     * (nframes * transform_len()) and correlation (nframes * correlation_len()) may be
     * nullptr when not wanted.
     */
    virtual void process(const std::complex<float>* x,
                         const std::complex<float>* y,
                         std::size_t nframes,
                         cross_correlation_peak* peaks,
                         std::complex<float>* spectrum = nullptr,
                         std::complex<float>* correlation = nullptr) = 0;

    /*!
     * CUDA backend only: the same with every buffer in device memory, enqueued on
     * \p stream (nullptr: the engine's own stream); returns without waiting. Throws
     * std::logic_error on the CPU backend.
     */
    virtual void process_device(const std::complex<float>* d_x,
                                const std::complex<float>* d_y,
                                std::size_t nframes,
                                cross_correlation_peak* d_peaks,
                                std::complex<float>* d_spectrum = nullptr,
                                std::complex<float>* d_correlation = nullptr,
                                cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    const cross_correlator_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    cross_correlator(const cross_correlator_config& config,
                     const device_selection& device);
    cross_correlator_config d_config;
    device_selection d_device;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CROSS_CORRELATOR_H */
