/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ST_TBD_FF_H
#define INCLUDED_CUDADSP_ST_TBD_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/sync_block.h>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief Spatio-temporal track-before-detect filter over image frames (Mazurek 2012).
 * \ingroup cudadsp
 *
 * \details
 * Input: one frame per item, a vector of width * height floats, row major (x the
 * column, y the row). For M motion hypotheses the block keeps a state P[m] on the
 * grid, 0 at the start, and for each frame X computes
 *
 *     P^-[m](x, y) = sum_k w[m][k] * P[src[m][k]](x - dx[m][k], y - dy[m][k])
 *     P[m](x, y)   = alpha * P^-[m](x, y) + (1 - alpha) * X(x, y)
 *     D(x, y)      = max_m P[m](x, y),   A(x, y) = argmax_m P[m](x, y)
 *
 * with bilinear interpolation at fractional shifts and zero outside the grid (mass
 * that leaves the grid is lost). The state carries across work() calls; frames are
 * processed in stream order, none skipped or repeated. Non-finite input samples count
 * as 0.
 *
 * Output 0: the detection map D, width * height floats per frame.
 * Output 1 (optional): the argmax hypothesis A as floats holding the index m (exact:
 * M <= 4096), the smallest m on ties, so that it connects to float sinks (QT GUI
 * raster, number sinks); leave it unconnected and the block does not compute it.
 *
 * Message port "detections": for every local maximum of D above the threshold
 * (D >= its 8 neighbours and > the ones before it in row-major order; at most
 * max_detections_per_frame per frame, the largest kept) one dict with keys
 * frame (uint64: the input item, counted from the first frame the block received),
 * x, y (uint64: the cell), vx, vy (double: velocity of the argmax hypothesis, pixels
 * per frame) and value (double: D there); in frame order, then y, then x.
 *
 * Reset (state to 0): reset(), any message on the "reset" port (at the start of the
 * next work() call), or a stream tag "tbd_reset" on the input (exactly before the
 * tagged frame). Stream tags pass through to both outputs at their frame.
 *
 * Docs: docs/blocks/st_tbd_ff.md.
 */
class CUDADSP_API st_tbd_ff : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<st_tbd_ff> sptr;

    /*!
     * \param width, height grid size in pixels (>= 1 each).
     * \param hypotheses the M motion hypotheses, each with its velocity (reported with
     * detections) and its transitions (source, dx, dy, weight): |vx|, |vy|, |dx|, |dy|
     * <= 64 pixels per frame, each hypothesis' |weight|s summing to at most 1; see
     * core::st_tbd_config::velocity_grid() for a generated set.
     * \param alpha forgetting factor, 0 < alpha < 1: about 3 / (1 - alpha) frames to
     * settle on a new target.
     * \param threshold detection threshold on D (finite).
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     * \param kernel CUDA kernel: "auto", "generic" or "generated" (NVRTC).
     * \param bilinear CUDA interpolation: "auto", "texture" or "software".
     * \param autotune run the LREI autotuner on the generated kernel's line order when
     * no order is cached for this device and configuration.
     * \param max_detections_per_frame most detections per frame (>= 1).
     * \param batch_frames frames handed to the engine at once (the GPU batch and the
     * latency the block adds); 0: about 32 MiB of frames, 1 to 256.
     */
    static sptr make(int width,
                     int height,
                     const std::vector<core::tbd_hypothesis>& hypotheses,
                     float alpha = 0.9f,
                     float threshold = 1.0f,
                     const std::string& device = "auto",
                     const std::string& kernel = "auto",
                     const std::string& bilinear = "auto",
                     bool autotune = false,
                     int max_detections_per_frame = 1024,
                     int batch_frames = 0);

    //! The frames per batch that make(batch_frames = 0) picks for this frame size.
    static int default_batch_frames(int width, int height);

    //! Forgetting factor from the next frame processed; 0 < alpha < 1.
    virtual void set_alpha(float alpha) = 0;
    virtual float alpha() const = 0;
    //! Detection threshold from the next frame processed; finite.
    virtual void set_threshold(float threshold) = 0;
    virtual float threshold() const = 0;
    //! State to 0 at the start of the next work() call.
    virtual void reset() = 0;

    virtual int width() const = 0;
    virtual int height() const = 0;
    virtual const std::vector<core::tbd_hypothesis>& hypotheses() const = 0;
    virtual int max_detections_per_frame() const = 0;
    virtual int batch_frames() const = 0;
    /*!
     * Detection messages dropped for a subscriber that took none for 2 s while its
     * queue held detection_queue_limit() or more (one per message and subscriber).
     * Below that limit the block waits for a subscriber instead of queueing more.
     */
    virtual std::uint64_t detections_dropped() const = 0;
    //! Most detection messages queued at a subscriber: max(1024, 2 x max per frame).
    virtual int detection_queue_limit() const = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
    //! The engine's implementation: "cpu", "cuda generated texture", ...
    virtual std::string implementation() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_ST_TBD_FF_H */
