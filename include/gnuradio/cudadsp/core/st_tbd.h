/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief One term of a motion hypothesis' Markov update: weight * P[source](x - dx, y - dy).
 *
 * dx, dy are in pixels per frame and may be fractional (bilinear interpolation).
 */
struct tbd_transition {
    int source = 0;    //!< index of the hypothesis read, 0 <= source < M
    float dx = 0.0f;   //!< shift in x, pixels (the mass moves by +dx)
    float dy = 0.0f;   //!< shift in y, pixels
    float weight = 1.0f;
};

//! One motion hypothesis: its nominal velocity (reported with detections) and its update.
struct tbd_hypothesis {
    float vx = 0.0f; //!< pixels per frame
    float vy = 0.0f;
    std::vector<tbd_transition> transitions;
};

/*!
 * \brief Configuration of a spatio-temporal track-before-detect filter.
 */
struct CUDADSP_CORE_API st_tbd_config {
    //! Grid size in pixels; frames are width * height floats, row major.
    std::size_t width = 0;
    std::size_t height = 0;
    //! The M motion hypotheses and their transitions (at least one each).
    std::vector<tbd_hypothesis> hypotheses;
    //! Forgetting factor of the information update, 0 < alpha < 1.
    float alpha = 0.9f;
    //! Detection threshold on the detection map D (any finite value).
    float threshold = 1.0f;
    //! Most detections reported per frame (the strongest are kept), >= 1.
    std::size_t max_detections_per_frame = 1024;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend: "auto" (the generated kernel when NVRTC compiles it, else the
     *  generic one), "generic" (transition table in constant/global memory) or
     *  "generated" (NVRTC, transitions unrolled as multiply-accumulate lines). */
    std::string kernel = "auto";
    /*! CUDA backend: "auto" (time both once per device and configuration, keep the
     *  faster), "texture" (hardware bilinear filtering) or "software" (bilinear from
     *  global memory through L1). */
    std::string bilinear = "auto";
    /*! Run the LREI autotuner on the generated kernel's line order when no cached order
     *  exists for this device and configuration. Off by default. */
    bool autotune = false;
    //! LREI budget: at most this many iterations (>= 1) ...
    std::size_t autotune_iterations = 1000;
    //! ... and at most this many seconds (> 0).
    double autotune_seconds = 60.0;
    /*! Directory of the per-device order cache; "" means
     *  $XDG_CACHE_HOME/gr-cudadsp (or ~/.cache/gr-cudadsp). */
    std::string cache_dir;

    //! Throws std::invalid_argument naming the offending field (e.g. "hypotheses[3].transitions[1].source").
    void validate() const;

    std::size_t cells() const { return width * height; }

    /*!
     * \brief Hypotheses from a velocity grid: every (vx, vy) with vx, vy in
     * {-vmax, -vmax + step, ..., vmax} (both inclusive when vmax is a multiple of step).
     *
     * Each hypothesis m keeps its own velocity with weight 1 - spread and moves to each
     * of its 4-neighbours in the velocity grid (those that exist) with spread / 4 each
     * (missing neighbours' share stays on m): transition (source = neighbour n,
     * dx = vx_m, dy = vy_m, weight). spread in [0, 1).
     */
    static std::vector<tbd_hypothesis>
    velocity_grid(float vmax, float step, float spread);
};

//! A local maximum of the detection map above the threshold.
struct tbd_detection {
    std::uint64_t frame; //!< frames processed since construction or reset, from 0
    std::uint32_t x;
    std::uint32_t y;
    float vx; //!< velocity of the argmax hypothesis
    float vy;
    float value; //!< D(x, y)
};

/*!
 * \brief Recursive spatio-temporal track-before-detect (Mazurek 2012).
 *
 * State P[m][y][x] for M hypotheses on a W x H grid, initially 0. For each input frame X:
 *
 *     P^-[m](x, y) = sum_k w[m][k] * P[src[m][k]](x - dx[m][k], y - dy[m][k])
 *     P[m](x, y)   = alpha * P^-[m](x, y) + (1 - alpha) * X(x, y)
 *     D(x, y)      = max_m P[m](x, y),   A(x, y) = argmax_m (smallest m on ties)
 *
 * P(u, v) at fractional (u, v) is bilinear interpolation of the four surrounding cells;
 * border rule: cells outside the grid are 0 (mass that leaves the grid is lost; nothing
 * enters from outside).
 *
 * Detections: cells with D > threshold that are local maxima of D over their
 * 8-neighbourhood (D(x, y) >= every neighbour, and > the neighbours that precede it in
 * row-major order, so a plateau reports one cell). At most max_detections_per_frame per
 * frame, the largest values kept; sorted by (frame, y, x).
 */
class CUDADSP_CORE_API st_tbd
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend and kernel.
    static std::unique_ptr<st_tbd> make(const st_tbd_config& config);
    virtual ~st_tbd();

    /*!
     * Process \p nframes frames from host memory (pageable or pinned). detection_map
     * and argmax receive nframes * cells() values each and may be nullptr;
     * detections, when not nullptr, has this call's detections appended.
     */
    virtual void process(const float* frames,
                         std::size_t nframes,
                         float* detection_map,
                         std::int32_t* argmax,
                         std::vector<tbd_detection>* detections) = 0;

    //! Zero the state and the frame counter.
    virtual void reset() = 0;
    //! Applied from the next frame. Throws std::invalid_argument unless 0 < alpha < 1.
    virtual void set_alpha(float alpha) = 0;
    virtual void set_threshold(float threshold) = 0;

    //! Copy the state P (M * cells() floats, hypothesis-major) to host memory.
    virtual void read_state(float* state) = 0;

    //! Frames processed since construction or reset.
    std::uint64_t frames_processed() const { return d_frames; }

    //! "cpu", "cuda generic software", "cuda generated texture", ...
    virtual std::string implementation() const = 0;

    const st_tbd_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    st_tbd(const st_tbd_config& config, const device_selection& device);
    st_tbd_config d_config;
    device_selection d_device;
    std::uint64_t d_frames = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_H */
