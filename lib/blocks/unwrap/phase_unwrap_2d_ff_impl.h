/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_IMPL_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_IMPL_H

#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <gnuradio/cudadsp/phase_unwrap_2d_ff.h>
#include <memory>

namespace gr {
namespace cudadsp {

class phase_unwrap_2d_ff_impl
    : public guarded_work<phase_unwrap_2d_ff_impl, phase_unwrap_2d_ff>
{
public:
    phase_unwrap_2d_ff_impl(const core::phase_unwrap_2d_config& config,
                            bool weight_input);

    int width() const override;
    int height() const override;
    std::string method() const override;
    double period() const override;
    bool wrap_around_x() const override;
    bool wrap_around_y() const override;
    int gradient_window() const override;
    bool congruent() const override;
    int max_iterations() const override;
    double tolerance() const override;
    bool weight_input() const override;
    int tile_size() const override;
    int tile_overlap() const override;
    int looks() const override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    //! The "unwrap_2d" tag of one frame.
    pmt::pmt_t report_dict(const core::unwrap_2d_report& report) const;

    const std::size_t d_pixels;
    const bool d_weight_input;
    std::unique_ptr<core::phase_unwrapper_2d> d_engine;
    registered_gr_buffers d_registered_buffers;
    const pmt::pmt_t d_tag_key;
    const pmt::pmt_t d_key_valid_pixels;
    const pmt::pmt_t d_key_components;
    const pmt::pmt_t d_key_iterations;
    const pmt::pmt_t d_key_relative_residual;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PHASE_UNWRAP_2D_FF_IMPL_H */
