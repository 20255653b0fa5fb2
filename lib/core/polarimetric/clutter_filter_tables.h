/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_TABLES_H
#define INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_TABLES_H

#include "polarimetric/clutter_filter_rule.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * The clutter filter's tables for one configuration, computed once on the host in
 * float64: the regression's orthonormal polynomials and the clutter power each order
 * leaves, GMAP's window, DFT rows and the clutter power per bin, all for the model
 * clutter of clutter_filter_config (a zero-velocity Gaussian spectrum of width
 * sigma_c sampled every T, or 2T in alternating mode).
 */
struct clutter_filter_tables {
    clutter_filter_constants constants{}; //!< table pointers into the vectors below
    std::vector<double> basis, window, analysis, synthesis;

    explicit clutter_filter_tables(const polarimetric_config& config);
    clutter_filter_tables(const clutter_filter_tables&) = delete;
    clutter_filter_tables& operator=(const clutter_filter_tables&) = delete;

    /*! The constants for one call, with the calibration's noise and the table
     *  pointers given (the CPU backend passes the vectors above, the CUDA backend
     *  their device copies). */
    clutter_filter_constants for_call(double noise_h,
                                      const double* basis_at,
                                      const double* window_at,
                                      const double* analysis_at,
                                      const double* synthesis_at) const;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CLUTTER_FILTER_TABLES_H */
