/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_KDP_FF_IMPL_H
#define INCLUDED_CUDADSP_KDP_FF_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/kdp.h>
#include <gnuradio/cudadsp/kdp_ff.h>
#include <memory>

namespace gr {
namespace cudadsp {

class kdp_ff_impl : public guarded_work<kdp_ff_impl, kdp_ff>
{
public:
    kdp_ff_impl(const core::kdp_config& config, bool use_rhohv, bool use_snr);

    int half_window_gates() const override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    //! Every input tag of this call's radials, once, on both outputs.
    void pass_tags(int noutput_items);

    std::unique_ptr<core::kdp_processor> d_engine;
    //! Input ports of the optional inputs, -1 when not used.
    const int d_rhohv_port;
    const int d_snr_port;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_KDP_FF_IMPL_H */
