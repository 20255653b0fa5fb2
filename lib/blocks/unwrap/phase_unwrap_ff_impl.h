/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <atomic>
#include <memory>
#include <mutex>

namespace gr {
namespace cudadsp {

class phase_unwrap_ff_impl : public guarded_work<phase_unwrap_ff_impl, phase_unwrap_ff>
{
public:
    phase_unwrap_ff_impl(int vlen,
                         double period,
                         const std::string& device,
                         int batch_samples);

    void set_period(double period) override;
    double period() const override;
    void reset() override;
    std::uint64_t out_of_range_samples() override;
    std::string backend() const override;
    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    void handle_reset_message(const pmt::pmt_t& msg);
    //! Applies a pending reset or period change (they come from other threads).
    void apply_pending_changes();

    const int d_vlen;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
    std::unique_ptr<core::phase_unwrapper> d_engine;
    mutable std::mutex d_settings_mutex;
    double d_period;
    bool d_period_changed = false;
    std::atomic<bool> d_reset_requested{ false };
    const pmt::pmt_t d_reset_tag_key;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H */
