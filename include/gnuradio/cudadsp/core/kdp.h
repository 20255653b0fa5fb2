/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_KDP_H
#define INCLUDED_CUDADSP_CORE_KDP_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The largest |PhiDP| that is data, degrees: ten turns. Wrapped PhiDP lies in
 * (-180, 180] or [0, 360), and a PhiDP unfolded upstream stays within a few turns (a
 * system offset plus twice the path-integrated KDP: a few hundred degrees in heavy
 * rain at X band). Beyond it a gate is invalid data and is masked like a NaN gate (a
 * +-3e38 gate gave KDP of 1.5e22 deg/km: float64 cannot unfold it exactly).
 */
constexpr double kdp_max_abs_phidp_deg = 3600.0;

/*!
 * \brief Configuration of a KDP processor.
 */
struct CUDADSP_CORE_API kdp_config {
    std::size_t ngates = 0;        //!< range gates per radial, >= 1
    double gate_spacing_m = 150.0; //!< > 0
    /*! Length of the range filter, km: the least-squares window spans 2h gate spacings,
     *  h = round(window_km / (2 gate_spacing_km)), which must be >= 1. 3 km is the
     *  window of CSU's Bringi FIR filter (21 taps at 150 m). */
    double window_km = 3.0;
    /*! Interpolation over gaps: a run of masked gates at most this long (km) between
     *  two valid gates is filled by linear interpolation of the unfolded PhiDP; a longer
     *  run breaks the radial into separate segments. >= 0. */
    double max_gap_km = 1.0;
    //! With an RhoHV input: gates with RhoHV below this (or NaN) are masked, [0, 1].
    double min_rhohv = 0.8;
    //! With an SNR input: gates with SNR below this, dB (or NaN), are masked; not NaN.
    double min_snr_db = 3.0;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend, host-pointer calls: radials per pipelined chunk (the transfers of
     *  one chunk overlap the kernel of another). 0: about 8 MB of input per chunk. */
    std::size_t chunk_radials = 0;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;

    //! h: the least-squares window holds 2h + 1 gates.
    std::size_t half_window_gates() const;
    //! The longest run of masked gates that is interpolated over.
    std::size_t max_gap_gates() const;
};

/*!
 * \brief Specific differential phase (KDP) and processed PhiDP along radials.
 *
 * Per radial of ngates gates, in float64, the same rule on both backends
 * (lib/core/polarimetric/kdp_rule.h):
 *
 * 1. Mask: a gate is valid when |PhiDP| <= kdp_max_abs_phidp_deg (so finite) and,
 *    where given, its RhoHV is >= min_rhohv and its SNR is >= min_snr_db.
 * 2. Unfold: PhiDP comes wrapped in (-180, 180] deg. Each valid gate is moved by a
 *    multiple of 360 deg to within (-180, 180] deg of a running reference, the mean of
 *    the unfolded values of the (up to) 5 valid gates before it; the first valid gate
 *    starts the chain. A rise through 180 deg and a system offset near +-180 deg (noise
 *    flipping the raw value between +179 and -179) both stay continuous. The whole
 *    radial is then shifted by a multiple of 360 deg so that the mean of its first 5
 *    valid unfolded gates lies in (-180, 180].
 * 3. Gaps: a run of at most max_gap_gates() masked gates between two valid gates is
 *    filled by linear interpolation; longer runs, and the masked gates before the first
 *    and after the last valid gate, are outside every segment.
 * 4. Filter and derivative: at every gate g of a segment, a straight line
 *    PhiDP ~ a + b (j - g) is fitted by least squares to the unfolded PhiDP of the
 *    gates j of the segment with |j - g| <= h (fewer at a segment's ends). Processed
 *    PhiDP = a (deg), KDP = b / (2 gate_spacing_km) (deg/km, one-way: PhiDP is the
 *    two-way differential phase). A gate whose window holds fewer than h + 1 gates
 *    (a short segment) gives NaN.
 *
 * Outputs are NaN outside every segment. The processed PhiDP is continuous along the
 * radial and may leave (-180, 180]: its differences are the measured ones, its
 * absolute value is the input's modulo 360 deg.
 *
 * Layout: radial r's gate g is element r * ngates + g of every input and output.
 * RhoHV and SNR inputs are optional (null pointers). The CPU and CUDA backends give
 * bit-identical outputs.
 */
class CUDADSP_CORE_API kdp_processor
{
public:
    /*! Validates \p config (std::invalid_argument) and selects the backend. On CUDA,
     *  a radial must fit the device's shared memory (8 bytes per gate; on an H100 up
     *  to about 29000 gates): else std::invalid_argument naming ngates. */
    static std::unique_ptr<kdp_processor> make(const kdp_config& config);
    virtual ~kdp_processor();

    /*! \p nradials radials between host buffers (pageable or pinned); \p rhohv and
     *  \p snr_db may be null. Returns when the outputs are written. */
    virtual void process(const float* phidp_deg,
                         const float* rhohv,
                         const float* snr_db,
                         std::size_t nradials,
                         float* processed_phidp_deg,
                         float* kdp_deg_km) = 0;

    /*!
     * CUDA backend only: every buffer in device memory, enqueued on \p stream
     * (nullptr: the engine's own stream); returns without waiting. Throws
     * std::logic_error on the CPU backend.
     */
    virtual void process_device(const float* d_phidp_deg,
                                const float* d_rhohv,
                                const float* d_snr_db,
                                std::size_t nradials,
                                float* d_processed_phidp_deg,
                                float* d_kdp_deg_km,
                                cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    const kdp_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    kdp_processor(const kdp_config& config, const device_selection& device);
    kdp_config d_config;
    device_selection d_device;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_KDP_H */
