/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BATCH_GATE_H
#define INCLUDED_CUDADSP_BATCH_GATE_H

#include <gnuradio/block.h>
#include <gnuradio/logger.h>
#include <chrono>

namespace gr {
namespace cudadsp {

/*!
 * \brief Decides when a GPU-backed block's work() should wait for a batch.
 *
 * GNU Radio calls work() as soon as any input arrives, typically a few thousand items
 * at a time; a GPU launch per such call costs more than the items are worth. A block
 * on the CUDA backend therefore returns 0 from work() until a batch has gathered, the
 * upstream is done, or the first waiting item has waited max_wait (which bounds the
 * latency a slow source sees). Gathering a batch needs an upstream buffer that can
 * hold one: it belongs to the upstream block, so start() only warns if it is small.
 */
class batch_gate
{
public:
    //! How long a partial batch may wait for more input.
    static constexpr std::chrono::milliseconds max_wait{ 20 };

    //! \p batch_items: the items a full batch holds (the block's max_noutput_items).
    explicit batch_gate(int batch_items) : d_batch_items(batch_items) {}

    /*!
     * From the block's constructor: hands work() at most a batch, so the GPU gets large
     * transfers and launches and the block holds at most one batch (its latency), and
     * asks for output buffers of two batches.
     */
    void limit_work_calls(gr::block& block) const;

    /*!
     * From \p block's start() on the CUDA backend; \p inputs_per_output: input items
     * per output item (a decimator's decimation, else 1). Waiting then asks for at
     * most half of the smallest upstream buffer, and a warning says how to enlarge a
     * small one.
     */
    void start(gr::block& block, int inputs_per_output, gr::logger_ptr logger);

    /*! True when \p block's work() should return 0 now, having \p available_items
     *  output items' worth of input: a partial batch waits (at most max_wait) unless an
     *  upstream block is done. Never true on the CPU backend (start() not called). */
    bool should_wait(const gr::block& block, int available_items);

    int batch_items() const { return d_batch_items; }

private:
    const int d_batch_items;
    int d_min_call_items = 1;
    bool d_waiting = false;
    std::chrono::steady_clock::time_point d_wait_started;
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BATCH_GATE_H */
