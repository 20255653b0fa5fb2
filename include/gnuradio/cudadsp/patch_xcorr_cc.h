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
     * \param width samples a line (>= the patch read width plus the range shift).
     * \param nx patches per strip (>= 1).
     * \param first_line centre line of strip 0; < 0: the first line where every window
     * fits (npy/2 + max(0, -ashift)).
     * \param line_step lines between strips (>= 1).
     * \param xsearch range search half-width (power of two, 8 .. 1024).
     * \param ysearch azimuth search half-width (power of two, 8 .. 1024).
     * \param range_interp range interpolation factor (power of two, 1 .. 16).
     * \param interp high-resolution factor (power of two, 1 .. 64); 0 turns the
     * high-resolution step off (GMTSAR's -nointerp).
     * \param rshift integer range shift of the aligned image, samples.
     * \param ashift integer azimuth shift of the aligned image, lines.
     * \param device "auto", "cpu", "cuda" or "cuda:N".
     */
    static sptr make(int width,
                     int nx = 16,
                     int first_line = -1,
                     int line_step = 256,
                     int xsearch = 64,
                     int ysearch = 64,
                     int range_interp = 2,
                     int interp = 16,
                     int rshift = 0,
                     int ashift = 0,
                     const std::string& device = "auto");

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
