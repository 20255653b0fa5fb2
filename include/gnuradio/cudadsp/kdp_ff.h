/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_KDP_FF_H
#define INCLUDED_CUDADSP_KDP_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/sync_block.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief Specific differential phase (KDP) and processed PhiDP along radials.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: port 0 PhiDP (degrees, wrapped to (-180, 180], e.g. output 4 of
 * polarimetric_products_cf); with \p use_rhohv the next port is RhoHV, with \p use_snr
 * the next one SNR (dB). Each item is one radial, a vector of \p ngates floats.
 *
 * Outputs, per radial: 0 the processed PhiDP (unfolded and filtered, degrees,
 * continuous along the radial), 1 KDP (deg/km). Gates with low RhoHV or SNR (where
 * those inputs are used) or a NaN PhiDP are masked; short gaps are interpolated over,
 * longer ones break the radial; KDP is half the slope of a least-squares line fitted
 * over a window of \p window_km along range. NaN where not computable.
 *
 * Tags: every input tag is passed through unchanged on the same radial of both
 * outputs (a tag that arrives identically on several inputs, as the tags of
 * polarimetric_products_cf do, is passed once).
 *
 * Algorithm, its sources and measured accuracy: docs/blocks/kdp_ff.md.
 */
class CUDADSP_API kdp_ff : virtual public gr::sync_block
{
public:
    typedef std::shared_ptr<kdp_ff> sptr;

    /*!
     * \param ngates range gates per radial (>= 1).
     * \param gate_spacing_m gate spacing, metres (> 0).
     * \param window_km length of the range filter, km: the least-squares window spans
     * round(window_km / (2 gate spacing)) gates on each side of a gate (>= 1 of them).
     * \param max_gap_km longest run of masked gates interpolated over, km (>= 0).
     * \param use_rhohv true: an RhoHV input follows PhiDP.
     * \param use_snr true: an SNR input (dB) follows (after RhoHV when both are used).
     * \param min_rhohv gates with RhoHV below this are masked, [0, 1].
     * \param min_snr_db gates with SNR below this are masked, dB.
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     */
    static sptr make(int ngates,
                     double gate_spacing_m = 150.0,
                     double window_km = 3.0,
                     double max_gap_km = 1.0,
                     bool use_rhohv = false,
                     bool use_snr = false,
                     double min_rhohv = 0.8,
                     double min_snr_db = 3.0,
                     const std::string& device = "auto");

    //! Gates on each side of a gate in the least-squares window (h; 2h + 1 in all).
    virtual int half_window_gates() const = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_KDP_FF_H */
