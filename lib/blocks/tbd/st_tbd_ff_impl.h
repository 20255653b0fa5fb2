/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ST_TBD_FF_IMPL_H
#define INCLUDED_CUDADSP_ST_TBD_FF_IMPL_H

#include "blocks/common/batch_gate.h"
#include "blocks/common/bounded_message_port.h"
#include "blocks/common/registered_gr_buffers.h"
#include "blocks/common/work_errors.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/cudadsp/st_tbd_ff.h>
#include <atomic>
#include <memory>
#include <mutex>

namespace gr {
namespace cudadsp {

class st_tbd_ff_impl : public guarded_work<st_tbd_ff_impl, st_tbd_ff>
{
public:
    st_tbd_ff_impl(const core::st_tbd_config& config, int batch_frames);

    void set_alpha(float alpha) override;
    float alpha() const override;
    void set_threshold(float threshold) override;
    float threshold() const override;
    void reset() override;

    int width() const override;
    int height() const override;
    const std::vector<core::tbd_hypothesis>& hypotheses() const override;
    int max_detections_per_frame() const override;
    int batch_frames() const override;
    std::uint64_t detections_dropped() const override;
    int detection_queue_limit() const override;
    std::string backend() const override;
    std::string implementation() const override;

    bool start() override;
    bool stop() override;

    //! work()'s body: guarded_work (work_errors.h) runs it in work().
    int work_body(int noutput_items,
                  gr_vector_const_void_star& input_items,
                  gr_vector_void_star& output_items);

private:
    //! Applies a pending reset, alpha or threshold (they come from other threads).
    void apply_pending_changes();
    /*! Runs the engine on frames [begin, end) of this call and publishes their
     *  detections; \p argmax (int32 in the float output's memory) may be nullptr. */
    void process_frames(const float* in,
                        float* detection_map,
                        float* argmax,
                        std::size_t begin,
                        std::size_t end);

    const std::size_t d_cells;
    batch_gate d_batch;
    registered_gr_buffers d_registered_buffers;
    std::unique_ptr<core::st_tbd> d_engine;
    std::vector<core::tbd_detection> d_detections;

    mutable std::mutex d_settings_mutex;
    float d_alpha;
    float d_threshold;
    bool d_alpha_changed = false;
    bool d_threshold_changed = false;
    std::atomic<bool> d_reset_requested{ false };

    const pmt::pmt_t d_port;
    const pmt::pmt_t d_reset_tag_key;
    const pmt::pmt_t d_key_frame, d_key_x, d_key_y, d_key_vx, d_key_vy, d_key_value;
    bounded_message_port d_detections_out;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_ST_TBD_FF_IMPL_H */
