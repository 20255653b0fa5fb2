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
#include <limits>
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
 * input V ("cross-polar") holds the other receiver. The products use the
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
    /*! clutter power removed from H, dB: 10 log10(power before filtering / power
     *  after); 0 where the gate was not filtered or nothing was removed. Never
     *  censored. */
    product_clutter_removed_db,
    /*! clutter phase alignment of H in [0, 1] (Hubbert et al. 2009), before
     *  filtering: |sum of the pulses| / sum of |pulses| over the radial (alternating
     *  mode: over its H pulses). Near 1 for stationary clutter. Never censored. */
    product_cpa,
    polarimetric_product_count
};

//! Short name of a product ("Zh", "ZDR", "V", "W", "PhiDP", "RhoHV", "SNRh", "CLUT",
//! "CPA").
CUDADSP_CORE_API const char* product_name(int product);
//! Unit of a product ("dBZ", "dB", "m/s", "m/s", "deg", "", "dB", "dB", "").
CUDADSP_CORE_API const char* product_unit(int product);

/*
 * Physical bounds of the radar parameters (validate() rejects values outside, naming
 * the field): a value beyond them is a mistake (a unit slip, a garbage number), not a
 * radar.
 */
//! |zcal_db| limit, dB: powers |x|^2 of float32 samples span -897 to +771 dB, so no
//! scaling of the input needs a larger radar constant.
constexpr double max_zcal_db = 1000.0;
//! |zdr_cal_db| limit, dB: a power ratio of 10^10 between the receivers, far beyond
//! any real gain imbalance (a few dB).
constexpr double max_zdr_cal_db = 100.0;
//! noise_h, noise_v limit in |x|^2 units: the largest |x|^2 of a float32 sample.
constexpr double max_noise_power =
    double(std::numeric_limits<float>::max()) * double(std::numeric_limits<float>::max());
//! wavelength_m range, m: 3 THz to 300 kHz.
constexpr double min_wavelength_m = 1e-4;
constexpr double max_wavelength_m = 1e3;
//! prt_s range, s: a pulse repetition frequency of 10 MHz to 0.1 Hz.
constexpr double min_prt_s = 1e-7;
constexpr double max_prt_s = 10.0;
//! antenna_rate_deg_s limit (and the block's scan rate), deg/s: ten turns a second,
//! beyond every mechanically scanned radar (rapid-scan and marine antennas turn at most
//! about two).
constexpr double max_antenna_rate_deg_s = 3600.0;

/*!
 * \brief Calibration, noise and censoring: may change between calls.
 *
 * Noise powers are in the units of |x|^2 of the input samples (per channel: in
 * simultaneous mode the H and V receivers; in alternating mode the co-polar input on H
 * and on V pulses).
 */
struct CUDADSP_CORE_API polarimetric_calibration {
    double zcal_db = 0.0;           //!< added to Zh (radar constant), dB, |x| <= 1000
    double zdr_cal_db = 0.0;        //!< added to ZDR, dB, |x| <= 100
    double phidp_offset_deg = 0.0;  //!< system differential phase, subtracted, |x| <= 360
    double noise_h = 0.0;           //!< H noise power, 0 to max_noise_power
    double noise_v = 0.0;           //!< V noise power, 0 to max_noise_power
    double snr_threshold_db = -1e9; //!< below this SNRh, products 0 to 5 are NaN

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
};

/*!
 * \brief Ground-clutter filter applied to the pulse series of every gate (the same
 * filter on H and V) before the moments.
 *
 * The filter works on two series per gate and radial, of L samples each:
 * simultaneous mode, the H and V pulses (L = pulses_per_radial); alternating mode, the
 * H pulses and the V pulses of the co-polar input, filtered as two interleaved series
 * sampled at 2T (L = pulses_per_radial / 2). Both are filtered with the same filter,
 * chosen from the H series; the moments are then formed from the filtered pulses in
 * time order as without a filter. The exact steps are in
 * docs/blocks/polarimetric_products_cf.md, "Clutter filtering and I/Q conventions".
 *
 * Clutter model shared by both filters: zero mean velocity, Gaussian spectrum of width
 * sigma_c = sqrt(sigma_i^2 + sigma_scan^2), sigma_i = clutter_intrinsic_width_m_s (0.1
 * m/s, wind-blown ground clutter) and the scan modulation of a Gaussian beam (Doviak
 * and Zrnic 1993, chapter 7) sigma_scan = alpha lambda sqrt(ln 2) / (2 pi theta1),
 * alpha the antenna rate and theta1 the one-way 3-dB beamwidth, both in radians.
 */
enum class clutter_filter_kind {
    none, //!< no filtering (CPA is still reported, CLUT is 0)
    /*! polynomial regression across the radial's pulses (Torres and Zrnic 1999;
     *  Hubbert et al. 2021), order from the clutter-to-noise ratio of the gate */
    regression,
    gmap, //!< Gaussian model adaptive processing (Siggia and Passarelli 2004)
};

//! "none", "regression" or "gmap"; std::invalid_argument naming \p parameter_name else.
CUDADSP_CORE_API clutter_filter_kind parse_clutter_filter(
    const std::string& name, const std::string& parameter_name = "clutter_filter");
CUDADSP_CORE_API std::string to_string(clutter_filter_kind kind);

/*!
 * \brief Ground-clutter filtering and detection settings.
 *
 * Regression: the polynomial order of each gate is the smallest p in [0,
 * min(max_regression_order, L - 2)] for which the clutter power left by an order-p fit,
 * for the clutter model above at the gate's estimated clutter-to-noise ratio (CNR),
 * is at most the noise power; with noise_h = 0 the largest. GMAP: the notch half-width
 * (in spectral bins, at least 1) is the largest k in [1, min(8, (L - 4) / 2)] whose
 * bin still holds more clutter than noise at the gate's CNR; with noise_h = 0 the
 * largest.
 */
struct CUDADSP_CORE_API clutter_filter_config {
    //! The largest max_regression_order accepted.
    static constexpr std::size_t regression_order_limit = 12;
    //! GMAP: the widest notch, bins either side of zero velocity.
    static constexpr std::size_t gmap_notch_limit = 8;
    //! Intrinsic width of ground clutter added to the scan modulation, m/s.
    static constexpr double clutter_intrinsic_width_m_s = 0.1;

    clutter_filter_kind kind = clutter_filter_kind::none;
    /*! false: every gate is filtered; true: only the gates whose clutter indicator
     *  (clutter phase alignment, product_cpa) reaches cpa_threshold. */
    bool only_where_detected = false;
    //! Clutter phase alignment at or above which a gate is taken to hold clutter, (0, 1].
    double cpa_threshold = 0.7;
    //! Azimuth scan rate of the antenna, deg/s (0 to max_antenna_rate_deg_s): widens
    //! the clutter spectrum.
    double antenna_rate_deg_s = 0.0;
    //! One-way 3-dB antenna beamwidth, degrees (finite, in (0, 360]).
    double beamwidth_deg = 1.0;
    //! Regression: the highest polynomial order the CNR-based choice may take, 0 to
    //! regression_order_limit.
    std::size_t max_regression_order = 7;

    //! Throws std::invalid_argument naming the offending field.
    void validate() const;
    //! Clutter spectrum width sigma_c of the model above, m/s.
    double clutter_width_m_s(double wavelength_m) const;
};

/*!
 * \brief Configuration of a polarimetric product engine.
 */
struct CUDADSP_CORE_API polarimetric_config {
    std::size_t ngates = 0;             //!< range gates per pulse, >= 1
    std::size_t pulses_per_radial = 36; //!< >= 2; alternating: even and >= 4
    double wavelength_m = 0.0531;       //!< min_wavelength_m to max_wavelength_m
    double prt_s = 1e-3;                //!< pulse repetition time, min_prt_s to max_prt_s
    double first_gate_m = 0.0;          //!< range of gate 0, >= 0
    double gate_spacing_m = 150.0;      //!< > 0
    polarimetric_calibration calibration;
    polarimetric_mode mode = polarimetric_mode::simultaneous;
    clutter_filter_config clutter;
    /*! Sign conventions of the I/Q data: true negates the radial velocity (PhiDP) the
     *  engine reports, for data whose Doppler (differential phase) sign is the opposite
     *  of this engine's default. With invert_phidp, PhiDP = wrap(-arg<H V*> -
     *  phidp_offset_deg): the offset is the system phase in the reported convention
     *  (as LROSE's system PhiDP is). Defaults: velocity -lambda/(4 pi T) arg(R1), the
     *  same as LROSE RadarMoments with velSign = 1; PhiDP arg<H V*>, the opposite of
     *  LROSE's arg<V H*> (invert_phidp = true gives LROSE's sign).
     *  docs/blocks/polarimetric_products_cf.md compares them, with sources. */
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
 * measures the clutter phase alignment, filters ground clutter from the pulse series
 * if configured (clutter_filter_config), estimates the correlations of the (filtered)
 * series at that gate in float64 and derives the nine products (see
 * docs/blocks/polarimetric_products_cf.md for the formulas and their references).
 * Both backends share the filter and product rules (clutter_filter_rule.h,
 * polarimetric_estimators.h) and sum in the same order: without a filter they agree
 * to a few float32 ulps; with one, to 1e-4 relative on powers (1e-4 dB), 1e-4 of the
 * Nyquist velocity on V and W and 0.01 degree on PhiDP (the filters' transcendental
 * functions and iteration stops differ by rounding only).
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
