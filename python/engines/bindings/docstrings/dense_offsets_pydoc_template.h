/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the dense-offset estimator engine (written by
  hand; used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_core_dense_offsets_estimator = R"doc(Dense-offset engine: ISCE PyCuAmpcor's frequency-domain amplitude cross-correlation of windows of two complex images, CPU (FFTW) or CUDA (cuFFT); no GNU Radio.

Most users want cudadsp.dense_offsets (one pair, a grid laid out as
PyCuAmpcor does, gross offsets, results as arrays) or dense_offsets_engine (the same
for a stack of pairs). This class is the engine itself: make one for a configuration,
then call estimate() for any number of image pairs and window lists; the device
context, FFT plans and buffers are made once. One engine may be shared by threads; its
calls take turns and release the GIL while computing.

Read-only attributes mirror the configuration: window_width, window_height,
half_search_across, half_search_down, raw_oversampling, corr_oversampling,
zoom_window, corr_stat_window, deramp, deramp_pairing, deramp_axis, peak,
merge_gross_offset, device (as asked for; backend() tells what was chosen),
batch_windows. result_fields names the columns of estimate()'s results.
docs/design/pycuampcor_dense_offsets.md defines every step.)doc";


static const char* __doc_gr_cudadsp_core_dense_offsets_estimator_dense_offsets_estimator = R"doc(Make an engine for one configuration (PyCuAmpcor's names in brackets).

Args:
    window_width, window_height: reference window size across and down, pixels
        (windowSizeWidth, windowSizeHeight).
    half_search_across, half_search_down: half search ranges, pixels
        (halfSearchRangeAcross, halfSearchRangeDown).
    raw_oversampling: raw-data oversampling factor (rawDataOversamplingFactor).
    corr_oversampling: correlation-surface oversampling factor
        (corrSurfaceOversamplingFactor).
    zoom_window: correlation-surface zoom-in window, oversampled correlation pixels
        (corrSurfaceZoomInWindow).
    corr_stat_window: window of the SNR and covariance statistics (corrStatWindowSize).
    deramp: PyCuAmpcor's derampMethod: 0 amplitudes only, 1 its phase-gradient
        removal, 2 complex windows without deramping.
    deramp_pairing: with deramp 1, "isce3" (default: row index times the phase
        measured down, column index times the phase measured across, as ISCE3's
        PyCuAmpcor; a linear phase ramp is removed) or "isce2" (the axes swapped, as
        ISCE2 2.6's cuDeramp.cu).
    deramp_axis: with deramp 1, the phases removed: "both" (default), "down" or
        "across" only (ISCE3's derampAxis 2, 0, 1; NISAR's deramping_axis both,
        azimuth, range); the other axis keeps its phase gradient.
    peak: the surface whose maximum is the result's peak: "oversampled" (default,
        ISCE3's correlation_peak: the fine surface's maximum, at the fine peak) or
        "raw" (PyCuAmpcor v2's peakValue: the raw surface's maximum).
    merge_gross_offset: add each window's gross offset to its offsets
        (mergeGrossOffset).
    device: "auto", "cpu", "cuda" or "cuda:N".
    batch_windows: CUDA: windows per batch of transforms; 0 lets the engine choose
        from the free device memory.

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_core_dense_offsets_estimator_estimate = R"doc(Estimate the offsets of a list of windows of one image pair.

Args:
    reference, secondary: complex64 arrays (rows, columns), or int16 arrays
        (rows, columns, 2) of I, Q pairs (CInt16 SLCs); each its own type and size.
        Used in place when C-contiguous and in native byte order (a memory map of a
        raw file is), else converted once.
    reference_down, reference_across: 1-D integer arrays, the top-left pixel (row,
        column) of each reference window.
    gross_down, gross_across: 1-D integer arrays, each window's gross offset; the
        secondary window's top-left pixel is (reference_down + gross_down -
        half_search_down, reference_across + gross_across - half_search_across).
    progress: None, or a function progress(windows_done, windows) called during the
        computation with increasing counts; an exception it raises is raised by
        estimate() when the computation ends.

Returns:
    (results, timing): results a float32 array (windows, 7) whose columns are
    result_fields (offset_down, offset_across, snr, cov_down, cov_across, cov_cross,
    peak; offsets in pixels, the gross offset included only with
    merge_gross_offset); timing a dict of upload_ms,
    compute_ms and download_ms.

Raises:
    TypeError: an image or window array has a type not accepted (the message names it).
    ValueError: the window arrays differ in length, or a reference or secondary window
        leaves its image (the message names the window and the image).)doc";


static const char* __doc_gr_cudadsp_core_dense_offsets_estimator_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
