/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_H
#define INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Configuration of a phase unwrapper.
 */
/*!
 * The periods the 1-D and 2-D unwrappers take, 1e-30 to 1e30. Within them float32
 * samples can hold phases: 2^-24 of a period is a normal float32 (above FLT_MIN,
 * 1.2e-38), so a phase keeps its full 24 bits, and 2^24 periods, the 1-D rule's limit
 * for a phase, stay below FLT_MAX (3.4e38). Outside them every sample would be a
 * glitch or the phase denormal noise: such a period is a mistake, not a unit.
 */
constexpr double min_phase_period = 1e-30;
constexpr double max_phase_period = 1e30;

//! std::invalid_argument naming "period" unless min_phase_period <= period <=
//! max_phase_period (NaN and infinities fail too).
CUDADSP_CORE_API void validate_phase_period(double period);

struct CUDADSP_CORE_API phase_unwrap_config {
    /*! 1: the input is one continuous stream, unwrapped across calls (state carried);
     *  >1: the input is a sequence of vectors of vlen samples, each unwrapped on its own.
     */
    std::size_t vlen = 1;
    /*! Period of the wrapped quantity (2*pi for radians, 360 for degrees, 1 for cycles),
     *  1e-30 to 1e30: float32 samples resolve no phase of a period outside. */
    double period = 6.283185307179586476925286766559;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend, host-pointer calls: samples per pipelined chunk (transfers of one
     *  chunk overlap the kernel of the previous one). */
    std::size_t chunk_samples = std::size_t(1) << 22;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

/*!
 * \brief Phase unwrapper engine: removes jumps of a multiple of the period.
 *
 * Semantics are those of numpy.unwrap(x, period=P): for consecutive finite samples
 * with difference d = x[i] - x[prev] (evaluated exactly, in float64), the correction
 * count changes by k = -sign(d) * ceil((|d| - P/2) / P), which is 0 for |d| <= P/2
 * (jumps of exactly +-P/2 are left as they are). The output is x[i] + P*K[i] with the
 * integer K[i] the running sum of k, kept as a 64-bit integer and applied in float64
 * before one rounding to float32, so no error accumulates however long the stream.
 *
 * NaN or +-Inf in gives NaN at that sample only; the next finite sample is unwrapped
 * against the last finite one, with K kept.
 *
 * In stream mode (vlen == 1) the state (last finite sample, K) carries from one
 * unwrap() call to the next, so any chunking gives the output of one call on the whole
 * stream. In vector mode each vector starts afresh and calls must pass whole vectors.
 *
 * \p in and \p out may be the same buffer.
 */
class CUDADSP_CORE_API phase_unwrapper
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<phase_unwrapper> make(const phase_unwrap_config& config);
    virtual ~phase_unwrapper();

    /*! Unwrap \p n samples between host buffers (pageable or pinned). In vector mode
     *  n must be a multiple of vlen. */
    virtual void unwrap(const float* in, float* out, std::size_t n) = 0;

    /*!
     * CUDA backend only: unwrap \p n samples already in device memory, enqueued on
     * \p stream (nullptr: the engine's own stream). Returns without waiting; the state
     * for the next call is kept on the device, so successive calls on one stream chain
     * without host synchronisation. Throws std::logic_error on the CPU backend.
     */
    virtual void unwrap_device(const float* d_in,
                               float* d_out,
                               std::size_t n,
                               cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    //! Forget the carried state: the next sample starts with K = 0.
    virtual void reset() = 0;

    /*! New period for the samples that follow; also resets the carried state. Throws
     *  std::invalid_argument (and keeps the old period) unless 1e-30 <= period <= 1e30.
     */
    void set_period(double period);
    double period() const { return d_config.period; }

    const phase_unwrap_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

    /*! K of the last finite sample processed so far (stream mode; 0 after reset).
     *  Synchronises with the device on the CUDA backend. */
    virtual std::int64_t wrap_count() = 0;

    /*! Finite samples so far that were not phases: of magnitude 2^24 periods or more
     *  (max_sample_periods in the rule), where float32 cannot hold a phase. Each gave
     *  NaN and took no part in the unwrapping, as a NaN sample does. Counts since the
     *  engine was made; reset() and set_period() keep it. Synchronises with the device
     *  on the CUDA backend. */
    virtual std::uint64_t out_of_range_samples() = 0;

protected:
    phase_unwrapper(const phase_unwrap_config& config, const device_selection& device);
    //! d_config.period has changed: update what derives from it and reset.
    virtual void period_changed() = 0;
    //! Throws std::invalid_argument unless \p n samples are whole vectors (vector mode).
    void check_whole_vectors(std::size_t n) const;
    phase_unwrap_config d_config;
    device_selection d_device;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PHASE_UNWRAP_H */
