/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_KDP_FF_H
#define INCLUDED_CUDADSP_KDP_FF_H

#include <gnuradio/cudadsp/api.h>
#include <gnuradio/cudadsp/core/kdp.h>
#include <gnuradio/sync_block.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief The parameters of kdp_ff: the engine's, with its defaults, and the block's
 * optional quality inputs.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (ngates,
 * gate_spacing_m, window_km, max_gap_km, use_rhohv, use_snr, min_rhohv, min_snr_db,
 * device): docs/blocks/kdp_ff.md names the field each one sets.
 *
 * The engine's core::kdp_config nested: each of the block's filter parameters is the
 * engine's field of the same name with the same default.
 */
struct CUDADSP_API kdp_ff_config {
    /*!
     * Gates per radial (required: >= 1), gate spacing, filter window, longest filled
     * gap, RhoHV and SNR thresholds and device: see core::kdp_config. chunk_radials 0
     * (Python and GRC): a quarter of the block's CUDA batch; another value is passed
     * on to the engine.
     */
    core::kdp_config kdp;
    //! An RhoHV input follows PhiDP.
    bool use_rhohv = false;
    //! An SNR input (dB) follows (after RhoHV when both are used).
    bool use_snr = false;
};

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
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name) and selects the backend. Python and GRC: kdp_ff(ngates,
     * gate_spacing_m=150.0, ...), keyword for keyword the fields of kdp_ff_config.
     */
    static sptr make(const kdp_ff_config& config);

    //! Gates on each side of a gate in the least-squares window (h; 2h + 1 in all).
    virtual int half_window_gates() const = 0;

    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_KDP_FF_H */
