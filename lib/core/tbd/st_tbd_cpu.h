/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_CPU_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_CPU_H

#include "tbd/st_tbd_internal.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: float32 state in the guarded layout (tbd_layout), double-buffered. A
 * frame's rows are shared among the host's cores; within a row each transition is a
 * pass over the row's cells (contiguous, vectorisable), accumulated in the order of the
 * hypothesis' transitions. The detection rule is a second pass over the finished map.
 */
class st_tbd_cpu : public st_tbd
{
public:
    st_tbd_cpu(const st_tbd_config& config, const device_selection& device);

    void process(const float* frames,
                 std::size_t nframes,
                 float* detection_map,
                 std::int32_t* argmax,
                 std::vector<tbd_detection>* detections) override;
    void process_float_argmax(const float* frames,
                              std::size_t nframes,
                              float* detection_map,
                              float* argmax,
                              std::vector<tbd_detection>* detections) override;
    void process_device(const float* d_frames,
                        std::size_t nframes,
                        float* d_detection_map,
                        std::int32_t* d_argmax,
                        std::vector<tbd_detection>* detections,
                        cuda_stream_t stream) override;
    void synchronize() override {}
    double frame_time_ms(std::size_t repeats) override;
    void reset() override;
    void read_state(float* state) override;
    std::string implementation() const override { return "cpu"; }

private:
    //! Motion and information update of rows [y_begin, y_end) of one frame.
    void update_rows(const float* cur,
                     float* next,
                     const float* frame,
                     float* detection_map,
                     std::int32_t* argmax,
                     std::size_t y_begin,
                     std::size_t y_end,
                     std::vector<float>& accumulator) const;
    //! One frame: the spare buffer receives the new state; D and argmax are written.
    void update_frame(const float* frame, float* detection_map, std::int32_t* argmax);
    //! parallel_ranges()'s bound from a frame's work (cells times transitions).
    std::size_t max_workers_by_size() const;

    tbd_layout d_layout;
    tbd_table d_table;
    std::vector<float> d_state[2];
    int d_current = 0; //!< index of the buffer holding P
    std::vector<float> d_map_scratch;
    std::vector<std::int32_t> d_argmax_scratch;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_CPU_H */
