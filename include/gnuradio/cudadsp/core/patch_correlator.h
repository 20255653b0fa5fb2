/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_H
#define INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <gnuradio/cudadsp/core/image_view.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Configuration of an image-patch cross-correlator (GMTSAR xcorr's frequency
 * method).
 */
struct CUDADSP_CORE_API patch_correlator_config {
    //! Range (column) search half-width in range-interpolated samples; a power of two,
    //! 8 .. 1024 (the 8 x 8 high-resolution window must fit the 2 xsearch surface).
    int xsearch = 64;
    //! Azimuth (row) search half-width, rows; a power of two, 8 .. 1024.
    int ysearch = 64;
    //! Range interpolation factor ri; a power of two, 1 .. 16 (1: GMTSAR's -norange).
    int range_interp = 2;
    //! High-resolution step on (GMTSAR's default) or off (-nointerp).
    bool highres = true;
    //! High-resolution interpolation factor; a power of two, 1 .. 64.
    int interp = 16;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend: patches per batch of transforms (and per pipelined chunk of host
     *  calls). 0: chosen by the engine (batch buffers of at most 1 GiB and a quarter of
     *  the free device memory). */
    std::size_t batch_patches = 0;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;

    //! Patch width, samples after range interpolation.
    int npx() const { return 4 * xsearch; }
    //! Patch height, rows.
    int npy() const { return 4 * ysearch; }
};

/*!
 * One patch pair: the top-left corners (column, row) of the npy x npx windows read from
 * the master and the aligned image. GMTSAR's patch at centre (x, y) reads the master at
 * (x - npx/2, y - npy/2) and the aligned at (x + rshift - npx/2,
 * y + ashift + (int)(y * stretch) - npy/2).
 */
struct patch_pair {
    std::int64_t master_col, master_row;
    std::int64_t aligned_col, aligned_row;
};

//! GMTSAR's azimuth stretch shift of a patch at row \p y: (int)(y * stretch), the
//! double product truncated toward zero.
inline int gmtsar_stretch_shift(int y, double stretch)
{
    return static_cast<int>(static_cast<double>(y) * stretch);
}

//! The pair of GMTSAR's patch at centre (\p x, \p y), as patch_pair states it.
inline patch_pair gmtsar_patch_pair(
    int x, int y, int xsearch, int ysearch, int rshift, int ashift, double stretch)
{
    const std::int64_t half_x = 2 * std::int64_t(xsearch); // npx / 2
    const std::int64_t half_y = 2 * std::int64_t(ysearch); // npy / 2
    patch_pair p;
    p.master_col = x - half_x;
    p.master_row = y - half_y;
    p.aligned_col = std::int64_t(x) + rshift - half_x;
    p.aligned_row = std::int64_t(y) + ashift + gmtsar_stretch_shift(y, stretch) - half_y;
    return p;
}

/*!
 * Raw result of one patch, as GMTSAR computes it before print_results(): the integer
 * peak lags (jpeak columns in range-interpolated samples, ipeak rows) and the
 * high-resolution fractions (multiples of 1/interp in [-4, 4); 0 with highres off), and
 * the normalised time-domain correlation in percent. GMTSAR's output offsets are
 * dx = -(jpeak + xfrac)/ri + rshift and dy = -(ipeak + yfrac) + ashift +
 * (int)(y*stretch), evaluated in float32 in print_results()'s order: see
 * patch_offset_dx/_dy().
 *
 * Degenerate patches give GMTSAR's values (docs/design/gmtsar_xcorr.md, 5.11):
 * - either patch constant (an all-zero no-data area, say): jpeak = -xsearch,
 *   ipeak = -ysearch, corr 0, xfrac = yfrac = -1/interp (the surface scaled by 0/0 is
 *   NaN, no interpolated value exceeds -1);
 * - corr 0 with a non-zero surface (all |demeaned amplitudes| < 1, so the integer
 *   copies are 0): the surface's peak lags, corr 0, xfrac = yfrac = -4.
 * A patch whose surface has no number at all (a NaN or infinite sample; GMTSAR stops
 * with "error! jpeak") gives jpeak = ipeak = 0 and NaN fractions and corr, so its dx
 * and dy are NaN.
 */
struct patch_result {
    std::int32_t jpeak;
    std::int32_t ipeak;
    float xfrac;
    float yfrac;
    float corr;
};

//! GMTSAR's dx of a patch, float32 arithmetic in its order.
inline float patch_offset_dx(const patch_result& r, int range_interp, int rshift)
{
    const float xoff = static_cast<float>(-r.jpeak);
    const float ri = static_cast<float>(range_interp);
    return ((xoff / ri) - (r.xfrac / ri)) + static_cast<float>(rshift);
}

//! GMTSAR's dy of a patch, float32 arithmetic in its order.
inline float patch_offset_dy(const patch_result& r, int ashift, int stretch_shift)
{
    const float yoff = static_cast<float>(-r.ipeak);
    return ((yoff - r.yfrac) + static_cast<float>(ashift)) +
           static_cast<float>(stretch_shift);
}

/*!
 * Progress of a correlate() call: \p patches_done of \p npatches have their results.
 * Called on the thread that called correlate(), with increasing counts, the last one
 * npatches.
 */
using patch_progress =
    std::function<void(std::size_t patches_done, std::size_t npatches)>;

/*!
 * Where the last correlate() call spent its time, milliseconds. On the CUDA backend,
 * event-timed on the device: upload_ms is the busy time of the upload stream (the
 * spans from a batch's upload start to its last row on the device, summed; with
 * pageable images that includes waiting for the calling thread's staging copies),
 * compute_ms the sum of the batches' computations, download_ms the results' copy back.
 * The uploads overlap the computation, so the fields do not add up to the call's wall
 * time. On the CPU backend compute_ms is the call's wall time and the transfers are 0.
 */
struct patch_correlator_timing {
    double upload_ms = 0.0;
    double compute_ms = 0.0;
    double download_ms = 0.0;
};

/*!
 * \brief Batched GMTSAR xcorr (frequency method) over patch pairs.
 *
 * Per patch (docs/design/gmtsar_xcorr.md, section 5, has every step and its source):
 * extraction, range interpolation by FFT (factor ri: each row's N = npx-point spectrum
 * zero-padded to ri N with the Nyquist bin on the negative side only, the inverse
 * normalised by 1/(ri N) and multiplied by ri, the middle npx samples kept), amplitude
 * (|z|, float32 of the float64 hypot) with the patch mean removed (float64 mean over
 * the whole npy x npx patch, subtracted in float32), the aligned patch masked to its
 * central 2 ysearch x 2 xsearch block (multiplied by 0 or 1 after the mean removal),
 * 2D FFT correlation, integer peak (first maximum, row-major) over the
 * 2 ysearch x 2 xsearch surface of |correlation|, the normalised time-domain
 * correlation at the peak on integer-truncated amplitudes (64-bit integer sums,
 * percent), then the high-resolution step: the 8 x 8 neighbourhood of the surface scaled
 * to peak = corr, fourth root (cells outside the surface are zeros: GMTSAR reads stale
 * or neighbouring values there), FFT-interpolated by interp in both directions (rows
 * first; Nyquist bin on the negative side), argmax of the real part (first maximum of
 * the values above -1).
 *
 * Precision as GMTSAR: float32 transforms and amplitudes, float64 for the mean, the
 * surface scaling and the correlation value. The CPU backend runs GMTSAR's complex
 * float32 FFTW path literally; the CUDA backend uses real-to-complex 2D transforms (the
 * inputs are real) and evaluates the tiny high-resolution transforms as direct DFTs:
 * the same functions to float32 rounding. Both share every decision rule
 * (lib/core/cross_correlation/patch_correlation_rule.h). Two documented choices where
 * GMTSAR's order is immaterial but a parallel one is needed: the patch mean sums each row
 * in 32 interleaved float64 partial sums combined pairwise, then the row sums the same
 * way (GMTSAR: one running sum); the fourth root is float32(sqrt(sqrt(float64))) (GMTSAR:
 * powf).
 */
class CUDADSP_CORE_API patch_correlator
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<patch_correlator> make(const patch_correlator_config& config);
    virtual ~patch_correlator();

    /*!
     * Correlate \p npatches pairs read from two host images (pageable or pinned; either
     * sample type). Throws std::invalid_argument naming the patch when a window leaves
     * its image, before any work. The CUDA backend uploads the rows each batch of
     * patches needs (samples as stored: int16 stays int16) while the previous batch
     * computes, and extracts the patches on the device; batches are consecutive pairs,
     * so pairs in strip order (GMTSAR's) share their rows.
     *
     * Reports progress to the set_progress() callback, if any (CUDA: as batches
     * complete, polled between enqueues without waiting; CPU: per chunk of patches),
     * and records last_timing().
     */
    virtual void correlate(const image_view& master,
                           const image_view& aligned,
                           const patch_pair* pairs,
                           std::size_t npatches,
                           patch_result* results) = 0;

    /*!
     * Correlate already-extracted patches in host memory: \p master and \p aligned hold
     * npatches * npy * npx complex samples (patch-major, rows of npx).
     */
    virtual void correlate_patches(const std::complex<float>* master,
                                   const std::complex<float>* aligned,
                                   std::size_t npatches,
                                   patch_result* results) = 0;

    /*!
     * CUDA backend only: as correlate_patches() with every buffer in device memory,
     * enqueued on \p stream (nullptr: the engine's own); returns without waiting.
     * Throws std::logic_error on the CPU backend.
     */
    virtual void correlate_patches_device(const std::complex<float>* d_master,
                                          const std::complex<float>* d_aligned,
                                          std::size_t npatches,
                                          patch_result* d_results,
                                          cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    /*! Progress callback of correlate() (an empty function: none). It must not
     *  throw. */
    void set_progress(patch_progress progress) { d_progress = std::move(progress); }
    //! The timing of the last correlate() call (zeros before the first).
    const patch_correlator_timing& last_timing() const { return d_timing; }

    const patch_correlator_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    patch_correlator(const patch_correlator_config& config,
                     const device_selection& device);
    /*! Throws std::invalid_argument for an image without data or size, and naming the
     *  first patch ("patch K: ...") whose master or aligned window leaves its image. */
    void check_pairs(const image_view& master,
                     const image_view& aligned,
                     const patch_pair* pairs,
                     std::size_t npatches) const;
    patch_correlator_config d_config;
    device_selection d_device;
    patch_progress d_progress;
    patch_correlator_timing d_timing;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_PATCH_CORRELATOR_H */
