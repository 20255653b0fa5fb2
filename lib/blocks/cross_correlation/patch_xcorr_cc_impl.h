/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PATCH_XCORR_CC_IMPL_H
#define INCLUDED_CUDADSP_PATCH_XCORR_CC_IMPL_H

#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <array>
#include <deque>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {

//! Where a patch_xcorr_cc block's windows lie; validated on construction.
struct patch_strip_geometry {
    int width;
    int nx;
    long long first_line;
    int line_step;
    int rshift;
    int ashift;
    int npx;
    int npy;
    std::vector<int> columns; //!< patch centre columns

    long long centre_line(long long strip) const
    {
        return first_line + strip * line_step;
    }
    //! First line either window of \p strip reads.
    long long first_needed_line(long long strip) const;
    //! One past the last line either window of \p strip reads.
    long long end_needed_line(long long strip) const;
};

class patch_xcorr_cc_impl
    : public guarded_general_work<patch_xcorr_cc_impl, patch_xcorr_cc>
{
public:
    patch_xcorr_cc_impl(const core::patch_correlator_config& config,
                        const patch_strip_geometry& geometry);

    int patch_column(int i) const override;
    long long strip_line(long long k) const override;
    std::string backend() const override;

    void forecast(int noutput_items, gr_vector_int& ninput_items_required) override;
    //! general_work()'s body: guarded_general_work (work_errors.h) runs it.
    int general_work_body(int noutput_items,
                          gr_vector_int& ninput_items,
                          gr_vector_const_void_star& input_items,
                          gr_vector_void_star& output_items);

private:
    using record = std::array<float, 5>; // x, dx, y, dy, corr
    //! Appends \p nlines lines of each image, keeping only lines a strip still needs.
    void append_lines(const gr_complex* master, const gr_complex* aligned, int nlines);
    //! Drops buffered lines before \p line.
    void discard_lines_before(long long line);
    //! Correlates strip d_next_strip from the buffered lines and queues its records.
    void process_strip();

    std::unique_ptr<core::patch_correlator> d_engine;
    const patch_strip_geometry d_geometry;
    // Buffered lines of both images, from line d_buffer_first_line on.
    std::vector<gr_complex> d_master, d_aligned;
    long long d_buffer_first_line = 0;
    //! Lines copied into the buffers, and lines consumed from the inputs (one fewer
    //! while a processed strip's records wait for output space).
    long long d_lines_received = 0;
    long long d_lines_consumed = 0;
    long long d_next_strip = 0;
    std::deque<record> d_pending;
    std::vector<core::patch_pair> d_pairs;
    std::vector<core::patch_result> d_results;
    const pmt::pmt_t d_port;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PATCH_XCORR_CC_IMPL_H */
