/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pair_setup.h"
#include <cmath>
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

std::string number_text(double v)
{
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}

} // namespace

pair_inputs read_pair_inputs(const std::string& master_prm,
                             const std::string& aligned_prm,
                             const xcorr_options& o)
{
    const prm_file master_file = prm_file::read(master_prm);
    const prm_file aligned_file = prm_file::read(aligned_prm);
    prm_read_options ro;
    ro.require_size = !o.cfloat32;
    ro.given_width = o.cfloat32_width;
    ro.given_height = o.cfloat32_height;
    ro.require_prf = !o.cfloat32;
    ro.read_shifts = false;
    pair_inputs in;
    in.master = read_prm_keys(master_file, ro);
    ro.read_shifts = !o.noshift;
    in.aligned = read_prm_keys(aligned_file, ro);
    const prm_keys& mk = in.master;
    const prm_keys& ak = in.aligned;
    if (mk.has_prf != ak.has_prf)
        throw input_error("key 'PRF' is in " + (mk.has_prf ? mk.path : ak.path) +
                          " but not in " + (mk.has_prf ? ak.path : mk.path) +
                          " (with -cfloat32: give it in both files or in neither)");
    // GMTSAR: astretcha = (PRF2 - PRF1)/PRF1.
    in.stretch = mk.has_prf ? (ak.prf - mk.prf) / mk.prf : 0.0;
    const double largest_shift = std::abs(in.stretch) * static_cast<double>(mk.height);
    if (!(largest_shift < 2147483648.0))
        throw input_error(
            "key 'PRF': the azimuth stretch (PRF of " + ak.path + " - PRF of " + mk.path +
            ") / PRF of " + mk.path + " = (" + ak.prf_text + " - " + mk.prf_text +
            ") / " + mk.prf_text + " = " + number_text(in.stretch) +
            " would move rows by up to " + number_text(largest_shift) +
            " (row * stretch, over " + std::to_string(mk.height) +
            " rows), beyond a 32-bit integer: the PRFs of a pair differ by a small "
            "fraction");
    in.rshift = o.noshift ? 0 : ak.rshift;
    in.ashift = o.noshift ? 0 : ak.ashift;
    return in;
}

patch_layout make_patch_layout(const xcorr_options& o, const pair_inputs& in)
{
    const prm_keys& mk = in.master;
    const prm_keys& ak = in.aligned;
    grid_config gc;
    gc.width = mk.width;
    gc.height = mk.height;
    gc.nx = o.nx;
    gc.ny = o.ny;
    gc.xsearch = o.xsearch;
    gc.ysearch = o.ysearch;
    patch_layout layout;
    layout.grid = make_grid(gc);
    layout.pairs =
        make_pairs(layout.grid, o.xsearch, o.ysearch, in.rshift, in.ashift, in.stretch);
    check_pairs_inside(layout.grid,
                       layout.pairs,
                       o.xsearch,
                       o.ysearch,
                       mk.width,
                       mk.height,
                       ak.width,
                       ak.height);
    return layout;
}

std::unique_ptr<prepared_pair> prepare_pair(const std::string& master_prm,
                                            const std::string& aligned_prm,
                                            const xcorr_options& o)
{
    auto p = std::make_unique<prepared_pair>();
    p->in = read_pair_inputs(master_prm, aligned_prm, o);
    p->type = o.cfloat32 ? core::slc_sample_type::complex_float32
                         : core::slc_sample_type::complex_int16;
    p->master = std::make_unique<slc_image>(p->in.master.slc_file,
                                            p->type,
                                            p->in.master.width,
                                            p->in.master.height,
                                            "SLC_file of " + p->in.master.path);
    p->aligned = std::make_unique<slc_image>(p->in.aligned.slc_file,
                                             p->type,
                                             p->in.aligned.width,
                                             p->in.aligned.height,
                                             "SLC_file of " + p->in.aligned.path);
    p->layout = make_patch_layout(o, p->in);
    return p;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
