/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_H
#define INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <gnuradio/sync_decimator.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief The parameters of polarimetric_products_cf: the engine's, with its defaults,
 * and the simple scan.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (ngates,
 * pulses_per_radial, ..., scan_elevation_deg): docs/blocks/polarimetric_products_cf.md
 * names the field each one sets.
 */
struct CUDADSP_API polarimetric_products_cf_config {
    /*!
     * Range gates (ngates, >= 1; required), pulses per radial (>= 2; alternating:
     * even, >= 4), wavelength, PRT, range geometry, calibration and noise, censoring
     * threshold, mode, clutter filter (antenna_rate_deg_s is also the rate at which
     * the azimuth advances), I/Q sign conventions and device: see
     * core::polarimetric_config. chunk_radials is the block's own (from its batch
     * size): a value given here is replaced.
     */
    core::polarimetric_config processing;
    //! Simple scan: azimuth of the first pulse, degrees in [-360, 360], where no
    //! "azimuth_deg" tag has been seen.
    double scan_start_azimuth_deg = 0.0;
    //! Simple scan: elevation, degrees in [-90, 90], where no "elevation_deg" tag has
    //! been seen.
    double scan_elevation_deg = 0.5;
};

/*!
 * \brief Weather-radar moments and polarimetric products from dual-pol I/Q pulses.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: port 0 H, port 1 V; each item is one pulse, a vector of \p ngates
 * gr_complex (its range profile), pulses in time order. In alternating mode port 0 is
 * the co-polar receive and port 1 the cross-polar receive of every pulse, the first
 * pulse of each radial being an H pulse.
 *
 * Every \p pulses_per_radial pulses make one radial; per radial each output port
 * carries one float vector of \p ngates: 0 Zh (dBZ), 1 ZDR (dB), 2 radial velocity
 * (m/s, positive away from the radar), 3 spectrum width (m/s), 4 PhiDP (degrees,
 * wrapped to (-180, 180]), 5 RhoHV, 6 SNRh (dB), and, when connected (ports 7 and 8
 * are optional), 7 CLUT, the clutter power removed from H (dB), and 8 CPA, the clutter
 * phase alignment of H. Where SNRh is below the threshold, outputs 0 to 5 are NaN.
 *
 * Tags: every output radial carries, on every connected output port, "radial_index"
 * (uint64, counting from 0 at the flowgraph start), "azimuth_deg", "elevation_deg"
 * and "time_s" (double: the antenna at the radial's centre pulse; time in seconds,
 * UTC since 1970 when the input carries "rx_time") and "sweep_index" (uint64). They
 * come from the tags "azimuth_deg", "elevation_deg" (double) and "rx_time" (GNU
 * Radio's (uint64 seconds, double fraction)) on pulses of input 0, the azimuth advanced
 * at the scan rate, and from the simple scan (scan_start_azimuth_deg,
 * scan_elevation_deg, antenna_rate_deg_s; set_scan(); message port "scan") where no
 * such tag has been seen. Other input tags are passed to the radial that contains the
 * tagged pulse; those three keys are consumed.
 *
 * Formulas, conventions and references: docs/blocks/polarimetric_products_cf.md.
 */
class CUDADSP_API polarimetric_products_cf : virtual public gr::sync_decimator
{
public:
    typedef std::shared_ptr<polarimetric_products_cf> sptr;

    /*!
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name) and selects the backend. Python and GRC:
     * polarimetric_products_cf(ngates, pulses_per_radial=36, ...), keyword for keyword
     * the fields of polarimetric_products_cf_config.
     */
    static sptr make(const polarimetric_products_cf_config& config);

    /*!
     * Pulses the upstream buffers (of both inputs) should hold for full GPU batches:
     * two batches of radials. On the CUDA backend work() gathers a batch of radials
     * (about 32 MiB of input, at most 1024 radials) before it launches; a smaller
     * upstream buffer gives smaller launches and a warning at start. Set it as the
     * upstream block's minimum output buffer (GRC: Advanced > Min Output Buffer).
     */
    static int upstream_buffer_pulses(int ngates, int pulses_per_radial);

    //! Calibration, noise and threshold setters: apply from the next radial processed.
    virtual void set_zcal_db(double zcal_db) = 0;
    virtual void set_zdr_cal_db(double zdr_cal_db) = 0;
    virtual void set_phidp_offset_deg(double phidp_offset_deg) = 0;
    virtual void set_noise_h(double noise_h) = 0;
    virtual void set_noise_v(double noise_v) = 0;
    virtual void set_snr_threshold_db(double snr_threshold_db) = 0;

    virtual double zcal_db() const = 0;
    virtual double zdr_cal_db() const = 0;
    virtual double phidp_offset_deg() const = 0;
    virtual double noise_h() const = 0;
    virtual double noise_v() const = 0;
    virtual double snr_threshold_db() const = 0;

    /*!
     * The simple scan from the next radial processed: the azimuth starts at
     * \p start_azimuth_deg on that radial's first pulse and turns at \p rate_deg_s;
     * the elevation is \p elevation_deg. Tags on the input, once seen, take precedence
     * (the rate still advances a tagged azimuth). The clutter filter keeps the antenna
     * rate given to make(). Throws std::invalid_argument naming the argument (and keeps
     * the old values) if one is out of range. The message port "scan" takes a dict
     * with any of these three keys and applies it the same way.
     */
    virtual void
    set_scan(double start_azimuth_deg, double elevation_deg, double rate_deg_s) = 0;
    virtual double scan_start_azimuth_deg() const = 0;
    virtual double scan_elevation_deg() const = 0;
    //! The rate at which the azimuth advances, deg/s (make()'s antenna_rate_deg_s
    //! until set_scan() or a "scan" message changes it).
    virtual double scan_rate_deg_s() const = 0;

    //! The clutter filter and I/Q conventions, as given to make().
    virtual std::string clutter_filter() const = 0;
    virtual bool clutter_only_where_detected() const = 0;
    virtual double cpa_threshold() const = 0;
    virtual double antenna_rate_deg_s() const = 0;
    virtual double beamwidth_deg() const = 0;
    virtual bool invert_velocity() const = 0;
    virtual bool invert_phidp() const = 0;

    //! Largest unambiguous velocity, m/s (lambda/(4 PRT); lambda/(8 PRT) alternating).
    virtual double nyquist_velocity() const = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_POLARIMETRIC_PRODUCTS_CF_H */
