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
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief One term of a motion hypothesis' Markov update: weight * P[source](x - dx, y -
 * dy).
 *
 * dx, dy are in pixels per frame and may be fractional (bilinear interpolation).
 */
struct tbd_transition {
    int source = 0;  //!< index of the hypothesis read, 0 <= source < M
    float dx = 0.0f; //!< shift in x, pixels (the mass moves by +dx)
    float dy = 0.0f; //!< shift in y, pixels
    float weight = 1.0f;
};

/*!
 * \brief One multiply-accumulate line of the motion update: transition \p transition
 * of hypothesis \p hypothesis. st_tbd::lines() lists them hypothesis-major.
 */
struct tbd_line {
    std::size_t hypothesis = 0;
    std::size_t transition = 0;
};

//! One motion hypothesis: its nominal velocity (reported with detections) and its update.
struct tbd_hypothesis {
    float vx = 0.0f; //!< pixels per frame
    float vy = 0.0f;
    std::vector<tbd_transition> transitions;
};

//! Largest |dx| and |dy| of a transition, pixels per frame (the state keeps a zero
//! guard of ceil(max |d|) + 1 cells around every plane, see st_tbd).
constexpr float tbd_max_shift_px = 64.0f;

//! Progress of the LREI autotuner.
struct tbd_autotune_progress {
    std::size_t iteration = 0;  //!< iterations done
    std::size_t iterations = 0; //!< the iteration budget
    double elapsed_s = 0.0;     //!< since the search started
    double seconds = 0.0;       //!< the time budget
    double start_ms = 0.0;      //!< frame time of the sorted start order
    double best_ms = 0.0;       //!< best frame time so far
    std::size_t accepted = 0;   //!< children that were faster than their parent
    bool finished = false;      //!< true on the last report only
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

    /*! Autotuner progress (empty: not reported): after the start order is timed, then
     *  at least every tenth of the iterations or every 5 s, and once at the end. Runs
     *  on the thread that calls st_tbd::make(); must not throw. */
    std::function<void(const tbd_autotune_progress&)> autotune_progress;

    /*! Throws std::invalid_argument naming the offending field (e.g.
     *  "hypotheses[3].transitions[1].source"). Limits beyond those above: width and
     *  height <= 2^18 and width * height <= 2^31 - 1 (cell indices fit int32);
     *  |dx|, |dy|, |vx|, |vy| <= tbd_max_shift_px; weights finite, and for every
     *  hypothesis sum_k |w_k| <= 1 (the fraction of the sources' mass it receives; up
     *  to half a float32 ulp per weight more, for weights meant to sum to 1, checked
     *  against 1 + K 2^-24); every string one of its
     *  documented values; M * width * height * 4 bytes of state must be addressable. */
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
     *
     * Concretely: n = floor(2 vmax / step + 1e-6) + 1 velocities per axis, value
     * i -> -vmax + i * step; hypothesis m = iy * n + ix (vy outer, vx inner). Its
     * transitions: first itself (source m, weight 1 - b * spread / 4 for its b
     * existing neighbours), then each existing neighbour by increasing index
     * (weight spread / 4); with spread = 0 only the first. Every hypothesis' weights
     * sum to 1 and so does the mass each hypothesis gives away (the transition matrix
     * is doubly stochastic). vmax >= 0 and finite, step > 0 and finite, and
     * vmax <= tbd_max_shift_px; std::invalid_argument naming the argument else.
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
 *
 * Further rules. Neighbours outside the grid do not exist (a border cell is compared
 * with its existing neighbours only). When more than max_detections_per_frame cells
 * qualify, the kept ones are the first in the order (value descending, then y, then
 * x). A non-finite input sample (NaN, +-Inf) counts as 0: no evidence, so a bad pixel
 * never poisons the recursive state. Every hypothesis' weights sum to at most 1 in
 * magnitude (validate() requires it), so the state stays finite for finite inputs.
 *
 * Implementations (implementation() names the one in use):
 * - "cpu": float32 state, rows of the grid shared among the host's cores.
 * - CUDA "generic": one kernel driven by a transition table in device memory.
 * - CUDA "generated": kernel source produced at construction with every transition
 *   unrolled as one multiply-accumulate line (constants baked in) and compiled with
 *   NVRTC; the line order is a permutation of lines() (line_order()), the order sorted
 *   by (SmallOffsetY, SmallOffsetX, source plane) unless the LREI autotuner or the
 *   order cache chose another. Reordering changes only the float32 summation order.
 * - CUDA bilinear "software" (four loads through L1, float32 weights: the CPU's
 *   arithmetic) or "texture" (hardware filtering, tex2D on a pitched 2D texture per
 *   plane). The texture unit keeps each fractional coordinate in 8 fractional bits
 *   (error < 1/256) after the float coordinate itself is rounded (at most 2^-11 of a
 *   cell below 2^13 cells), so each bilinear weight may be off by q = 1/256 + 1/2048
 *   per axis and a sample by e = (2 q + q^2) (max - min of its four cells), about
 *   0.9 % of the local contrast. Through the recursion the error of P is at most
 *   alpha * sum_k |w_k| (e_k + the error of the cells read at t - 1), so with
 *   S = max_m sum_k |w_mk| and alpha S < 1 it stays below alpha S e_max / (1 - alpha S)
 *   (about 8 % of the largest local contrast for alpha = 0.9, S = 1); shifts by whole
 *   cells are exact on both paths. The texture path needs at most 512 hypotheses and
 *   a guarded plane below 2^13 x 2^13 cells (else "auto" uses software and "texture"
 *   is std::invalid_argument). "auto" times both once per device and configuration
 *   and keeps the faster (software on an H100 at 1000 x 1000, 13 x 3 transitions);
 *   set bilinear = "software" where the texture error matters.
 * Both backends keep every state plane inside a zero guard of
 * ceil(max(|dx|, |dy|)) + 1 cells, so the motion update reads no out-of-grid cell
 * other than those zeros (the border rule) and needs no bounds checks.
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

    /*!
     * process() with the argmax hypothesis delivered as float (the index m, exact:
     * M <= 4096), the form of st_tbd_ff's output 1. The CUDA backend converts on the
     * GPU, so the host makes no pass over the values.
     */
    virtual void process_float_argmax(const float* frames,
                                      std::size_t nframes,
                                      float* detection_map,
                                      float* argmax,
                                      std::vector<tbd_detection>* detections) = 0;

    /*!
     * CUDA backend only: \p nframes frames already in device memory (nframes * cells()
     * floats), detection_map / argmax device buffers of nframes * cells() values (or
     * nullptr), enqueued on \p stream (nullptr: the engine's own stream). With
     * \p detections nullptr it returns without waiting; otherwise it waits and appends
     * this call's detections. Throws std::logic_error on the CPU backend.
     */
    virtual void process_device(const float* d_frames,
                                std::size_t nframes,
                                float* d_detection_map,
                                std::int32_t* d_argmax,
                                std::vector<tbd_detection>* detections,
                                cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    /*!
     * Time of one frame's update (motion and information update, D and argmax; not
     * the detection list, not transfers) on the current state, in milliseconds: the
     * minimum of \p repeats runs (CUDA: event-timed on the device; CPU: wall clock).
     * The state is left unchanged (the update is written to the spare buffer).
     */
    virtual double frame_time_ms(std::size_t repeats = 20) = 0;

    /*! The generated kernel's line order: a permutation of indices into lines()
     *  (empty for the CPU and the generic kernel). */
    virtual std::vector<std::size_t> line_order() const { return {}; }
    /*! Generated kernel only: recompile with \p order (a permutation of
     *  0 .. lines().size() - 1; std::invalid_argument else). std::logic_error for other
     *  implementations. The state is kept. */
    virtual void set_line_order(const std::vector<std::size_t>& order);

    //! The multiply-accumulate lines of \p config, hypothesis-major.
    static std::vector<tbd_line> lines(const st_tbd_config& config);

    /*!
     * What fixed the generated kernel's line order: "sorted" (the start order),
     * "cache" (an order cached for this device and configuration), "autotune" (this
     * construction's LREI search), "set" (set_line_order()), or "" when no generated
     * kernel runs.
     */
    const std::string& line_order_source() const { return d_order_source; }

    //! Zero the state and the frame counter.
    virtual void reset() = 0;
    //! Applied from the next frame. Throws std::invalid_argument unless 0 < alpha < 1.
    void set_alpha(float alpha);
    //! Applied from the next frame. Throws std::invalid_argument unless finite.
    void set_threshold(float threshold);

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
    std::string d_order_source;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_H */
