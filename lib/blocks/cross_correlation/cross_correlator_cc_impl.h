/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_IMPL_H
#define INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/cross_correlator.h>
#include <gnuradio/cudadsp/cross_correlator_cc.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {

class cross_correlator_cc_impl
    : public guarded_work<cross_correlator_cc_impl, cross_correlator_cc>
{
public:
    cross_correlator_cc_impl(const core::cross_correlator_config& config,
                             bool spectrum_output,
                             bool correlation_output);

    int transform_len() const override;
    int correlation_len() const override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    std::unique_ptr<core::cross_correlator> d_engine;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
    //! Output port of the cross-spectrum and of the correlation vector, or -1.
    const int d_spectrum_port;
    const int d_correlation_port;
    std::vector<core::cross_correlation_peak> d_peaks;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CROSS_CORRELATOR_CC_IMPL_H */
