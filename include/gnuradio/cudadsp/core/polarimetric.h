/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_POLARIMETRIC_H
#define INCLUDED_CUDADSP_CORE_POLARIMETRIC_H

#include <gnuradio/cudadsp/core/api.h>
#include <gnuradio/cudadsp/core/device.h>
#include <complex>
#include <cstddef>
#include <memory>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Dual-polarisation transmission scheme.
 *
 * simultaneous: H and V are transmitted together on every pulse; input H is the
 * horizontal receiver, input V the vertical receiver.
 *
 * alternating: pulses alternate H, V, H, V, ... transmission, the first pulse of every
 * radial being H. Input H ("co-polar") holds the receiver of the transmitted
 * polarisation on every pulse (the H receiver on H pulses, the V receiver on V pulses);
 * input V ("cross-polar") holds the other receiver. The seven products use the
 * co-polar input only (Zahrai and Zrnic 1993); the cross-polar input is consumed to
 * keep the two streams aligned.
 */
enum class polarimetric_mode { simultaneous, alternating };

//! "simultaneous" or "alternating"; std::invalid_argument naming \p parameter_name else.
CUDADSP_CORE_API polarimetric_mode parse_polarimetric_mode(
    const std::string& name, const std::string& parameter_name = "mode");
CUDADSP_CORE_API std::string to_string(polarimetric_mode mode);

//! Output products, in output-port order.
enum polarimetric_product : int {
    product_zh = 0,   //!< reflectivity, dBZ
    product_zdr,      //!< differential reflectivity, dB
    product_velocity, //!< radial velocity, m/s, positive away from the radar
    product_width,    //!< spectrum width, m/s
    product_phidp,    //!< differential phase, degrees in (-180, 180]
    product_rhohv,    //!< co-polar correlation coefficient
    product_snr_h,    //!< H signal-to-noise ratio, dB
    polarimetric_product_count
};

//! Short name of a product ("Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh").
CUDADSP_CORE_API const char* product_name(int product);
//! Unit of a product ("dBZ", "dB", "m/s", "m/s", "deg", "", "dB").
CUDADSP_CORE_API const char* product_unit(int product);

/*!
 * \brief Calibration, noise and censoring: may change between calls.
 *
 * Noise powers are in the units of |x|^2 of the input samples (per channel: in
 * simultaneous mode the H and V receivers; in alternating mode the co-polar input on H
 * and on V pulses).
 */
struct CUDADSP_CORE_API polarimetric_calibration {
    double zcal_db = 0.0;           //!< added to Zh (radar constant), dB
    double zdr_cal_db = 0.0;        //!< added to ZDR, dB
    double phidp_offset_deg = 0.0;  //!< system differential phase, subtracted
    double noise_h = 0.0;           //!< H noise power, >= 0
    double noise_v = 0.0;           //!< V noise power, >= 0
    double snr_threshold_db = -1e9; //!< below this SNRh, products 0 to 5 are NaN

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

/*!
 * \brief Ground-clutter filter applied to the pulse series of every gate (the same
 * filter on H and V) before the moments.
 */
enum class clutter_filter_kind {
    none,       //!< no filtering
    regression, //!< polynomial regression across the radial's pulses, order from the CNR
    gmap,       //!< Gaussian model adaptive processing (Siggia and Passarelli 2004)
};

//! "none", "regression" or "gmap"; std::invalid_argument naming \p parameter_name else.
CUDADSP_CORE_API clutter_filter_kind parse_clutter_filter(
    const std::string& name, const std::string& parameter_name = "clutter_filter");
CUDADSP_CORE_API std::string to_string(clutter_filter_kind kind);

/*!
 * \brief Ground-clutter filtering and detection settings.
 */
struct CUDADSP_CORE_API clutter_filter_config {
    clutter_filter_kind kind = clutter_filter_kind::none;
    /*! false: every gate is filtered; true: only the gates whose clutter indicator
     *  (clutter phase alignment, product_cpa) reaches cpa_threshold. */
    bool only_where_detected = false;
    //! Clutter phase alignment at or above which a gate is taken to hold clutter, (0, 1].
    double cpa_threshold = 0.5;
    //! Azimuth scan rate of the antenna, deg/s (>= 0): widens the clutter spectrum.
    double antenna_rate_deg_s = 0.0;
    //! One-way 3-dB antenna beamwidth, degrees (> 0).
    double beamwidth_deg = 1.0;
    //! Regression: the highest polynomial order the CNR-based choice may take.
    std::size_t max_regression_order = 7;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

/*!
 * \brief Configuration of a polarimetric product engine.
 */
struct CUDADSP_CORE_API polarimetric_config {
    std::size_t ngates = 0;             //!< range gates per pulse, >= 1
    std::size_t pulses_per_radial = 36; //!< >= 2; alternating: even and >= 4
    double wavelength_m = 0.0531;       //!< > 0
    double prt_s = 1e-3;                //!< pulse repetition time, > 0
    double first_gate_m = 0.0;          //!< range of gate 0, >= 0
    double gate_spacing_m = 150.0;      //!< > 0
    polarimetric_calibration calibration;
    polarimetric_mode mode = polarimetric_mode::simultaneous;
    clutter_filter_config clutter;
    /*! Sign conventions of the I/Q data: true negates the radial velocity (PhiDP) the
     *  engine reports, for data whose Doppler (differential phase) sign is the opposite
     *  of this engine's default; docs/blocks/polarimetric_products_cf.md compares the
     *  defaults with LROSE's. */
    bool invert_velocity = false;
    bool invert_phidp = false;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
    /*! CUDA backend, host-pointer calls: radials per pipelined chunk (the transfers of
     *  one chunk overlap the kernel of another). 0: about 32 MB of input per chunk. */
    std::size_t chunk_radials = 0;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;

    //! Largest unambiguous velocity, m/s: lambda/(4 T), or lambda/(8 T) alternating.
    double nyquist_velocity() const;
    //! Range of gate \p gate, metres.
    double gate_range_m(std::size_t gate) const
    {
        return first_gate_m + static_cast<double>(gate) * gate_spacing_m;
    }
    //! Samples of one input (H or V) per radial.
    std::size_t samples_per_radial() const { return pulses_per_radial * ngates; }
};

/*!
 * \brief Weather-radar moments and polarimetric products from dual-polarisation I/Q.
 *
 * For every radial (pulses_per_radial consecutive pulses) and range gate, the engine
 * estimates the correlations of the pulse series at that gate in float64 and derives
 * the seven products (see docs/blocks/polarimetric_products_cf.md for the formulas
 * and their references). Both backends share the product formulas
 * (polarimetric_estimators.h) and sum in the same order.
 *
 * Layout: an input holds nradials * pulses_per_radial pulses in time order, each pulse
 * ngates contiguous complex samples (its range profile). Product p of radial r at gate
 * g is products[p][r * ngates + g].
 */
class CUDADSP_CORE_API polarimetric_processor
{
public:
    //! Validates \p config (std::invalid_argument) and selects the backend.
    static std::unique_ptr<polarimetric_processor>
    make(const polarimetric_config& config);
    virtual ~polarimetric_processor();

    /*! Products of \p nradials radials between host buffers (pageable or pinned).
     *  Returns when the products are in \p products. */
    virtual void process(const std::complex<float>* h,
                         const std::complex<float>* v,
                         std::size_t nradials,
                         float* const products[polarimetric_product_count]) = 0;

    /*!
     * CUDA backend only: inputs and products in device memory, enqueued on \p stream
     * (nullptr: the engine's own stream); returns without waiting. Throws
     * std::logic_error on the CPU backend.
     */
    virtual void process_device(const std::complex<float>* d_h,
                                const std::complex<float>* d_v,
                                std::size_t nradials,
                                float* const d_products[polarimetric_product_count],
                                cuda_stream_t stream = nullptr) = 0;

    //! Wait until all work this engine enqueued has finished (no-op on the CPU).
    virtual void synchronize() = 0;

    /*! Calibration for the calls that follow. Throws std::invalid_argument (and keeps
     *  the old values) if invalid. */
    void set_calibration(const polarimetric_calibration& calibration);
    const polarimetric_calibration& calibration() const { return d_config.calibration; }

    const polarimetric_config& config() const { return d_config; }
    const device_selection& device() const { return d_device; }

protected:
    polarimetric_processor(const polarimetric_config& config,
                           const device_selection& device);
    polarimetric_config d_config;
    device_selection d_device;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_POLARIMETRIC_H */
