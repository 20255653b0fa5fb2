/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PATCH_XCORR_CC_H
#define INCLUDED_CUDADSP_PATCH_XCORR_CC_H

#include <gnuradio/block.h>
#include <gnuradio/cudadsp/api.h>
#include <string>

namespace gr {
namespace cudadsp {

/*!
 * \brief The parameters of patch_xcorr_cc.
 * \ingroup cudadsp
 *
 * \details Python and GRC take the same values as keyword arguments (width, nx,
 * first_line, line_step, xsearch, ysearch, range_interp, interp, rshift, ashift,
 * device), each the field of the same name: docs/blocks/patch_xcorr_cc.md.
 *
 * Flat rather than holding the engine's core::patch_correlator_config: the block's
 * interp folds that one's highres and interp into one count (0: the high-resolution
 * step off, which the engine's interp refuses), and the patch grid (width, nx,
 * first_line, line_step) and the shifts (rshift, ashift) are the block's own. The
 * integers stay C++ ints, as the engine and the grid hold them: first_line, rshift and
 * ashift are signed, and make() names a count below its bound as before.
 */
struct CUDADSP_API patch_xcorr_cc_config {
    //! Samples a line (required: >= the patch read width plus the range shift; 0,
    //! unset, is refused).
    int width = 0;
    //! Patches per strip (>= 1).
    int nx = 16;
    //! Centre line of strip 0; < 0: the first line where every window fits
    //! (npy/2 + max(0, -ashift)).
    int first_line = -1;
    //! Lines between strips (>= 1).
    int line_step = 256;
    //! Range search half-width (power of two, 8 .. 1024).
    int xsearch = 64;
    //! Azimuth search half-width (power of two, 8 .. 1024).
    int ysearch = 64;
    //! Range interpolation factor (power of two, 1 .. 16).
    int range_interp = 2;
    //! High-resolution factor (power of two, 1 .. 64); 0 turns the high-resolution
    //! step off (GMTSAR's -nointerp).
    int interp = 16;
    //! Integer range shift of the aligned image, samples.
    int rshift = 0;
    //! Integer azimuth shift of the aligned image, lines.
    int ashift = 0;
    //! "auto", "cpu", "cuda" or "cuda:N".
    std::string device = "auto";
};

/*!
 * \brief InSAR coregistration offsets (GMTSAR xcorr's frequency method) on streams of
 * image lines.
 * \ingroup cudadsp
 *
 * \details
 * Inputs: port 0 the master image, port 1 the aligned image, one line (a vector of
 * \p width gr_complex) per item, lines in order from line 0.
 *
 * Patch grid: strips of \p nx patches. Strip k is centred on line
 * first_line + k * line_step; its patches are centred on the columns GMTSAR uses for a
 * width-sample image: x = 4 xsearch + i * x_inc, i = 2 .. nx+1, with
 * x_inc = (width - 6 xsearch) / (nx + 3). Patch (x, y) correlates the master window
 * centred on (x, y) with the aligned window centred on (x + rshift, y + ashift).
 *
 * Output: one item per patch, a vector of 5 floats (x, dx, y, dy, corr) as in
 * GMTSAR's freq_xcorr.dat: dx and dy are the aligned position minus the master
 * position in original pixels, rshift and ashift included; corr in percent. Each
 * record is also published on the message port "patches" as a dict with the keys x,
 * dx, y, dy, corr and strip. A strip is processed as soon as the lines its windows
 * need have arrived (both images); strips are independent, so the stream may be of any
 * length. Docs: docs/blocks/patch_xcorr_cc.md.
 */
class CUDADSP_API patch_xcorr_cc : virtual public gr::block
{
public:
    typedef std::shared_ptr<patch_xcorr_cc> sptr;

    /*!
     * Validates \p config (std::invalid_argument naming the field by its keyword
     * name) and selects the backend. Python and GRC: patch_xcorr_cc(width, nx=16,
     * ...), keyword for keyword the fields of patch_xcorr_cc_config.
     */
    static sptr make(const patch_xcorr_cc_config& config);

    //! Centre column of patch \p i of every strip (0 .. nx-1).
    virtual int patch_column(int i) const = 0;
    //! Centre line of strip \p k.
    virtual long long strip_line(long long k) const = 0;
    //! The backend in use: "cpu" or "cuda:N".
    virtual std::string backend() const = 0;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PATCH_XCORR_CC_H */
