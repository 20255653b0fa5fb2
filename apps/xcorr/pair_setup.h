/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_XCORR_PAIR_SETUP_H
#define INCLUDED_CUDADSP_XCORR_PAIR_SETUP_H

// One pair made ready to correlate: its PRM files read, its SLC files mapped, GMTSAR's
// patch grid laid out and checked.

#include "prm_file.h"
#include "slc_image.h"
#include "xcorr_grid.h"
#include "xcorr_options.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace xcorr {

//! The two PRM files' keys and the geometry they give the aligned image.
struct pair_inputs {
    prm_keys master;
    prm_keys aligned;
    double stretch = 0.0; //!< GMTSAR's astretcha = (PRF2 - PRF1)/PRF1
    int rshift = 0;       //!< 0 under -noshift
    int ashift = 0;
};

/*!
 * Reads both PRM files with the options' rules (-cfloat32, -noshift). Besides
 * read_prm_keys()'s errors, throws input_error when PRF is in one file only (with
 * -cfloat32) or when the stretch would move rows by 2^31 or more in the master's height
 * (GMTSAR converts row * stretch to int), naming both PRF values as written.
 */
pair_inputs read_pair_inputs(const std::string& master_prm,
                             const std::string& aligned_prm,
                             const xcorr_options& options);

//! GMTSAR's patch grid on the master and the windows of each patch in both images.
struct patch_layout {
    xcorr_grid grid;
    std::vector<core::patch_pair> pairs;
};

//! make_grid(), make_pairs() and check_pairs_inside() with the options' grid.
patch_layout make_patch_layout(const xcorr_options& options, const pair_inputs& in);

//! A pair ready for the engine.
struct prepared_pair {
    pair_inputs in;
    core::slc_sample_type type = core::slc_sample_type::complex_int16;
    std::unique_ptr<slc_image> master;
    std::unique_ptr<slc_image> aligned;
    patch_layout layout;
};

//! Reads the PRM files, maps both SLC files and lays out the grid; throws input_error
//! naming the file, key or patch at fault.
std::unique_ptr<prepared_pair> prepare_pair(const std::string& master_prm,
                                            const std::string& aligned_prm,
                                            const xcorr_options& options);

} // namespace xcorr
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_XCORR_PAIR_SETUP_H */
