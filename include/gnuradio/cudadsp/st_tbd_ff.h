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
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

/*!
 * \brief The parameters of st_tbd_ff: the engine's, with its defaults, and the batch.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (width, height,
 * hypotheses, alpha, threshold, device, kernel, bilinear, autotune,
 * max_detections_per_frame, batch_frames): docs/blocks/st_tbd_ff.md names the field
 * each one sets.
 *
 * The engine's core::st_tbd_config nested: each of the block's filter parameters is the
 * engine's field of the same name with the same default.
 */
struct CUDADSP_API st_tbd_ff_config {
    /*!
     * Grid size (width, height: required, >= 1), the M motion hypotheses (required,
     * each with its velocity, reported with detections, and its transitions (source,
     * dx, dy, weight): |vx|, |vy|, |dx|, |dy| <= 64 pixels per frame, each hypothesis'
     * |weight|s summing to at most 1; core::st_tbd_config::velocity_grid() generates a
     * set), forgetting factor alpha (about 3 / (1 - alpha) frames to settle on a new
     * target), threshold, device, CUDA kernel and bilinear choice, autotune and
     * max_detections_per_frame (at most 2^31 - 1 here: max_detections_per_frame()
     * returns an int): see core::st_tbd_config. The autotuner's budget, cache
     * directory and progress callback, C++ only, are passed on as they are.
     */
    core::st_tbd_config tbd;
    /*!
     * Frames handed to the engine at once (the GPU batch and the latency the block
     * adds), at most 2^31 - 1; 0: about 32 MiB of frames, 1 to 256
     * (default_batch_frames()).
     */
    std::size_t batch_frames = 0;
};

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
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name) and selects the backend. Python and GRC: st_tbd_ff(width, height,
     * hypotheses, alpha=0.9, ...), keyword for keyword the fields of st_tbd_ff_config.
     */
    static sptr make(const st_tbd_ff_config& config);

    //! The frames per batch that make() picks, with batch_frames 0, for this frame size.
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
