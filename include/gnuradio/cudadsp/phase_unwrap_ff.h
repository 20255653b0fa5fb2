/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_FF_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief Unwrap a wrapped phase: remove jumps of a multiple of \p period.
 * \ingroup cudadsp
 *
 * \details
 * Output = input + period * K, where the integer K changes by one whenever two
 * consecutive finite samples differ by more than period/2 (numpy.unwrap semantics;
 * jumps of exactly period/2 are kept). K is an exact 64-bit integer, so no error
 * accumulates over a stream of any length.
 *
 * vlen == 1: one continuous stream; the state carries across work() calls.
 * vlen > 1: every vector (an image line, a spectrum) is unwrapped on its own.
 *
 * NaN or Inf in gives NaN out at that sample only; the next finite sample is
 * unwrapped against the last finite one. So does a finite sample of 2^24 periods or
 * more in magnitude (see out_of_range_samples()).
 *
 * Reset: a message of any content on the "reset" port, applied at the start of the
 * next work() call; or a stream tag with key "unwrap_reset" on the input, applied
 * exactly at the tagged sample (K restarts at 0 there, no jump is taken against the
 * sample before it). In vector mode every vector already starts afresh.
 */
class CUDADSP_API phase_unwrap_ff : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<phase_unwrap_ff> sptr;

    /*!
     * \param vlen 1 for a stream, or the length of the vectors unwrapped one by one.
     * \param period period of the phase (2*pi radians, 360 degrees, 1 cycle); 1e-30
     * to 1e30 (float32 samples resolve no phase outside). \param device "auto", "cpu",
     * "cuda" or "cuda:N". \param batch_samples most samples handed to the engine at once
     * (GPU batch, and the latency the block adds); at least vlen.
     */
    static sptr make(int vlen = 1,
                     double period = 6.283185307179586476925286766559,
                     const std::string& device = "auto",
                     int batch_samples = 1 << 20);

    //! Period for the samples that follow; restarts the unwrapping (like a reset).
    virtual void set_period(double period) = 0;
    virtual double period() const = 0;

    //! Restart the unwrapping at the next sample processed.
    virtual void reset() = 0;

    /*! Finite input samples so far that were not phases: of magnitude 2^24 periods or
     *  more, where float32 cannot hold a phase (a glitch such as 3e38). Each gave NaN
     *  and was skipped, as a NaN is. Counts since the block was made; resets keep it.
     *  Waits for the GPU on the CUDA backend. */
    virtual std::uint64_t out_of_range_samples() = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PHASE_UNWRAP_FF_H */
