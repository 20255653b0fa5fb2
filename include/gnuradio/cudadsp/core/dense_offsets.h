/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_H
#define INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/image_view.h>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * What happens to the complex samples of each window before the raw-data oversampling:
 * PyCuAmpcor's derampMethod, with its integer values
 * (docs/design/pycuampcor_dense_offsets.md, sections 4.1 and 4.9).
 */
enum class deramp_method : int {
    //! 0: both windows are replaced by their amplitudes when loaded (|z| + 0i), so the
    //! oversampling interpolates detected amplitudes (cuDenseOffsets.py's default).
    amplitude = 0,
    //! 1: complex windows, each with PyCuAmpcor's average phase gradient removed (its
    //! axis pairing reproduced, section 4.9) before the oversampling (PyCuAmpcor's
    //! class default).
    average = 1,
    //! 2 (PyCuAmpcor: any value other than 0 and 1): complex windows oversampled as
    //! they are, without deramping.
    none = 2
};

/*!
 * Which sample index multiplies which measured phase in the deramp
 * (deramp_method::average only; design note, section 4.9).
 */
enum class deramp_axes : int {
    //! ISCE3's PyCuAmpcor (cuDeramp.cu, cuDeramp.cpp): the row index times the phase
    //! measured down plus the column index times the phase measured across, so that a
    //! linear phase ramp is removed.
    isce3 = 0,
    //! ISCE2 2.6's PyCuAmpcor: the column index times the phase measured down and the
    //! row index times the phase measured across (its loop names the column "X"); a
    //! ramp is removed only when both phases are equal.
    isce2 = 1
};

/*!
 * Which measured phases the deramp removes (deramp_method::average only): ISCE3's
 * derampAxis, with its integer values (NISAR's dense-offset runconfig calls them
 * azimuth, range and both; design note, section 4.9). The phase of an axis left out is
 * taken as 0, so its gradient stays in the samples that are oversampled.
 */
enum class deramp_direction : int {
    //! 0: only the phase measured down (azimuth).
    down = 0,
    //! 1: only the phase measured across (range).
    across = 1,
    //! 2: both (ISCE3's default, and the only behaviour of ISCE2's PyCuAmpcor 2.6).
    both = 2
};

/*!
 * The surface whose maximum offset_result::peak reports (design note, section 4.12).
 */
enum class peak_surface : int {
    //! ISCE3's PyCuAmpcor (its correlation_peak raster, corrMaxValue in
    //! cuAmpcorChunk.cu): the maximum of the fine surface, the oversampled surface
    //! of the zoom pass interpolated by corr_oversampling, at the fine peak.
    oversampled = 0,
    //! ISCE2 PyCuAmpcor v2's peakValue raster (r_maxval): the maximum of the raw
    //! normalised surface, at the integer peak.
    raw = 1
};

/*!
 * \brief Configuration of a dense-offset estimator: ISCE PyCuAmpcor's frequency-domain
 * amplitude cross-correlation, with its parameter names in the comments.
 *
 * "down" is the row (azimuth) direction, "across" the column (range) direction. All
 * sizes are in pixels of the original images unless said otherwise.
 */
struct CUDADSP_CORE_API dense_offsets_config {
    //! Reference window width across (windowSizeWidth), 2 .. 4096.
    int window_width = 64;
    //! Reference window height down (windowSizeHeight), 2 .. 4096.
    int window_height = 64;
    //! Half search range across (halfSearchRangeAcross), 1 .. 1024: the secondary
    //! window is window_width + 2 half_search_across wide (PyCuAmpcor 2.6 swaps the
    //! two half ranges in this size; the engines use the intended sizes, which agree
    //! with it when they are equal: design note, section 2.3).
    int half_search_across = 20;
    //! Half search range down (halfSearchRangeDown), 1 .. 1024.
    int half_search_down = 20;
    //! Raw-data oversampling factor r (rawDataOversamplingFactor), 1 .. 16.
    int raw_oversampling = 2;
    //! Correlation-surface oversampling factor q (corrSurfaceOverSamplingFactor),
    //! 1 .. 1024.
    int corr_oversampling = 16;
    //! Correlation-surface zoom-in window Z (corrSurfaceZoomInWindow), in oversampled
    //! raw pixels: >= 2 raw_oversampling; the engines use
    //! min(zoom_window, 2 raw_oversampling min(half searches)) (effective_zoom_window()),
    //! and corr_oversampling times that may not exceed 4096 (the fine surface's side).
    int zoom_window = 16;
    //! Side of the raw-surface neighbourhood of the SNR (corrStatWindowSize), >= 3;
    //! clipped to the surface (2 half search + 1) in each direction.
    int corr_stat_window = 21;
    //! Deramping (derampMethod); the value 2 stands for all of PyCuAmpcor's "other".
    deramp_method deramp = deramp_method::average;
    //! The deramp's pairing of axes and phases (ISCE3's by default).
    deramp_axes deramp_pairing = deramp_axes::isce3;
    //! The phases the deramp removes (derampAxis; both by default).
    deramp_direction deramp_axis = deramp_direction::both;
    //! The surface whose maximum is the result's peak (ISCE3's by default).
    peak_surface peak = peak_surface::oversampled;
    /*!
     * PyCuAmpcor's mergeGrossOffset. false (its default): offset_result holds the
     * offset measured inside the search window only, and the caller (who supplied the
     * gross offsets) writes them to their own raster. true: each window's gross offset
     * is added to its offsets by the engine (section 4.12).
     */
    bool merge_gross_offset = false;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    //! CUDA backend: windows per batch of transforms; 0: chosen by the engine from the
    //! free device memory. Results do not depend on it.
    std::size_t batch_windows = 0;

    //! Throws std::invalid_argument naming the offending field and its rule.
    void validate() const;

    //! Secondary (search) window width across, original pixels.
    int search_width() const { return window_width + 2 * half_search_across; }
    //! Secondary (search) window height down, original pixels.
    int search_height() const { return window_height + 2 * half_search_down; }
    //! The zoom window the engines use: min(zoom_window, 2 r min(half searches)).
    int effective_zoom_window() const;
};

/*!
 * One window: the top-left pixel (row, column) of the reference window, and the gross
 * offset (down, across) of the secondary window, whole pixels. The secondary window's
 * top-left pixel is (reference_down + gross_down - half_search_down,
 *     reference_across + gross_across - half_search_across).
 */
struct offset_window {
    std::int64_t reference_down;
    std::int64_t reference_across;
    std::int32_t gross_down;
    std::int32_t gross_across;
};

/*!
 * The result of one window, as PyCuAmpcor writes its output rasters: the offset of the
 * secondary relative to the reference in original pixels (positive down: the feature
 * lies further down in the secondary), the gross offset added only with
 * dense_offsets_config::merge_gross_offset; the SNR; the covariance of the offset
 * estimate (down-down, across-across, down-across, raw pixels squared; 99 in all three
 * where it cannot be estimated: peak on the surface border or flat curvature) and the
 * normalised correlation peak: by default the fine surface's maximum (ISCE3's
 * correlation peak), with dense_offsets_config::peak raw the raw surface's (PyCuAmpcor
 * v2's peak output). Both lie in [-1, 1] up to rounding and, for the fine surface, the
 * interpolation's overshoot; the fine one is normally the larger, being the same
 * correlation sampled finer.
 *
 * Degenerate windows keep PyCuAmpcor's float arithmetic (design note, section 6): a
 * constant-amplitude reference window gives a zero surface, so peak 0 at the first lag,
 * SNR NaN (0/0) and covariance 99; the zoom pass still runs from that lag and its
 * offsets (inside the search range) carry no information: the NaN SNR flags them. A
 * window whose raw surface has no number (a NaN or infinite sample in either window)
 * gives NaN in all seven fields.
 */
struct offset_result {
    float offset_down;
    float offset_across;
    float snr;
    float cov_down;
    float cov_across;
    float cov_cross;
    float peak;
};

/*!
 * A regular grid of windows as PyCuAmpcor lays it out: window (i, j), 0 <= i <
 * number_down, 0 <= j < number_across, has its reference window at
 * (start_down + i skip_down, start_across + j skip_across).
 */
struct CUDADSP_CORE_API offset_grid {
    std::int64_t start_down = 0;
    std::int64_t start_across = 0;
    std::int64_t skip_down = 64;
    std::int64_t skip_across = 64;
    std::int64_t number_down = 0;
    std::int64_t number_across = 0;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

/*!
 * The windows of \p grid in row-major order with the gross offsets given either as one
 * constant (\p gross_down, \p gross_across of size 1) or per window (size
 * number_down number_across, row-major). Throws std::invalid_argument naming
 * "gross_offset" when the sizes fit neither.
 */
CUDADSP_CORE_API std::vector<offset_window>
make_offset_windows(const offset_grid& grid,
                    const std::vector<std::int32_t>& gross_down,
                    const std::vector<std::int32_t>& gross_across);

/*!
 * Progress of an estimate() call: \p windows_done of \p nwindows have their results.
 * Called on the thread that called estimate(), with increasing counts, the last one
 * nwindows. It must not throw.
 */
using offsets_progress =
    std::function<void(std::size_t windows_done, std::size_t nwindows)>;

/*!
 * Where the last estimate() call spent its time, milliseconds. CUDA: event-timed busy
 * times of the upload stream, the computation and the download (they overlap); CPU:
 * compute_ms is the call's wall time.
 */
struct offsets_timing {
    double upload_ms = 0.0;
    double compute_ms = 0.0;
    double download_ms = 0.0;
};

/*!
 * \brief Dense offsets between two complex images by PyCuAmpcor's frequency-domain
 * method, CPU (FFTW) and CUDA (cuFFT) backends.
 *
 * Per window (docs/design/pycuampcor_dense_offsets.md has every step, its sizes and
 * its source in PyCuAmpcor, ISCE2 2.6's one-pass chunk workflow): correlate the
 * amplitudes of the reference window (mean removed) and of the search window in the
 * frequency domain and normalise (Pearson coefficient per lag), find the integer peak,
 * the covariance and the SNR on that raw surface; cut the zoom window around the peak
 * out of the complex search window, deramp and FFT-oversample it and the reference
 * window by raw_oversampling, correlate their amplitudes again, FFT-oversample that
 * surface by corr_oversampling and find the fine peak. The offset is the fine peak's
 * position in original pixels (plus the gross offset with merge_gross_offset).
 *
 * One engine serves any number of estimate() calls, images and sizes with the same
 * configuration: the device context, the FFT plans and the buffers are made once
 * (stacks of pairs reuse it).
 */
class CUDADSP_CORE_API dense_offsets_estimator
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<dense_offsets_estimator>
    make(const dense_offsets_config& config);
    virtual ~dense_offsets_estimator();

    /*!
     * Estimate the offsets of \p nwindows windows of two host images (either sample
     * type, each its own; pageable, pinned or mapped). Throws std::invalid_argument
     * naming the window and the image when a reference or secondary window leaves its
     * image, before any work. Reports progress to set_progress()'s callback and
     * records last_timing().
     */
    virtual void estimate(const image_view& reference,
                          const image_view& secondary,
                          const offset_window* windows,
                          std::size_t nwindows,
                          offset_result* results) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    //! Progress callback of estimate() (an empty function: none).
    void set_progress(offsets_progress progress) { d_progress = std::move(progress); }
    //! The timing of the last estimate() call (zeros before the first).
    const offsets_timing& last_timing() const { return d_timing; }

    const dense_offsets_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    dense_offsets_estimator(const dense_offsets_config& config,
                            const device_selection& device);
    /*! Throws std::invalid_argument for an image without data or size, and naming the
     *  first window ("window K: ...") whose reference or secondary window leaves its
     *  image. */
    void check_windows(const image_view& reference,
                       const image_view& secondary,
                       const offset_window* windows,
                       std::size_t nwindows) const;
    dense_offsets_config d_config;
    device_selection d_device;
    offsets_progress d_progress;
    offsets_timing d_timing;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DENSE_OFFSETS_H */
