/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_PATCH_XCORR_SCENE_H
#define INCLUDED_CUDADSP_QA_PATCH_XCORR_SCENE_H

// qa_patch_xcorr_cc_flowgraph's scene: the block's parameters and its grid (from the
// header's definition, not from the block), a synthetic image pair of known shift, and
// the records the engine's correlate() gives on the whole images.

#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <gnuradio/gr_complex.h>
#include <algorithm>
#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace patch_xcorr_qa {

using record = std::array<float, 5>; // x, dx, y, dy, corr

//! The block's configuration with small patches (the tests run anywhere), and what
//! follows from it by the header's definition.
struct params : patch_xcorr_cc_config {
    params()
    {
        width = 256;
        nx = 4;
        line_step = 20;
        xsearch = 16;
        ysearch = 8;
        device = "cpu";
    }

    patch_xcorr_cc::sptr make_block() const { return patch_xcorr_cc::make(*this); }

    core::patch_correlator_config engine_config() const
    {
        core::patch_correlator_config c;
        c.xsearch = xsearch;
        c.ysearch = ysearch;
        c.range_interp = range_interp;
        c.highres = interp > 0;
        c.interp = interp > 0 ? interp : 1;
        c.device = device;
        return c;
    }

    // The grid, from the header's definition (not from the block).
    int npx() const { return 4 * xsearch; }
    int npy() const { return 4 * ysearch; }
    //! Centre line of strip 0: first_line, or npy/2 + max(0, -ashift) when negative.
    long long line0() const
    {
        return first_line >= 0 ? first_line : npy() / 2 + std::max(0, -ashift);
    }
    long long strip_line(long long k) const { return line0() + k * line_step; }
    std::vector<int> columns() const
    {
        const int x_inc = (width - 6 * xsearch) / (nx + 3);
        std::vector<int> x;
        for (int i = 2; i <= nx + 1; ++i)
            x.push_back(4 * xsearch + i * x_inc);
        return x;
    }
    //! Strips whose windows (master rows y-npy/2 .. y+npy/2-1, aligned the same moved
    //! by ashift) all lie within the first \p lines lines.
    long long complete_strips(long long lines) const
    {
        long long k = 0;
        while (strip_line(k) + std::max(0, ashift) + npy() / 2 <= lines)
            ++k;
        return k;
    }

    std::string describe(const std::string& extra = "") const
    {
        std::ostringstream s;
        s << "patch_xcorr_cc(width " << width << ", nx " << nx << ", first_line "
          << first_line << ", line_step " << line_step << ", xsearch " << xsearch
          << ", ysearch " << ysearch << ", range_interp " << range_interp << ", interp "
          << interp << ", rshift " << rshift << ", ashift " << ashift << ", " << device
          << ")" << extra;
        return s.str();
    }
};

//! Two images of width x height lines, row-major, one line a stream item.
struct image_pair {
    int width = 0, height = 0;
    std::vector<gr_complex> master, aligned;

    core::image_view view(bool is_aligned) const
    {
        return { is_aligned ? aligned.data() : master.data(),
                 core::slc_sample_type::complex_float32,
                 std::size_t(width),
                 std::size_t(height) };
    }
    //! The first \p lines lines of an image.
    std::vector<gr_complex> lines(bool is_aligned, long lines) const
    {
        const auto& img = is_aligned ? aligned : master;
        return { img.begin(), img.begin() + lines * width };
    }
};

/*!
 * A synthetic SLC pair like int16 data (integer I and Q, about 300 RMS per component;
 * no sample is 0): the aligned image's content is the master's moved by \p dy lines and
 * \p dx samples (an integer shift: aligned[r][c] = master[r - dy][c - dx] where both
 * exist), mixed with independent speckle to coherence \p coherence. Fixed seed.
 */
image_pair
make_images(int width, int height, int dy, int dx, double coherence, std::uint64_t seed);

struct expected_records {
    std::vector<record> records;
    std::vector<long long> strips; //!< strip of each record
};

//! correlate() on the whole images with the grid's pairs of strips 0 .. nstrips-1.
expected_records
engine_records(const params& p, const image_pair& img, long long nstrips);

} // namespace patch_xcorr_qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_PATCH_XCORR_SCENE_H */
