/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_WORK_ERRORS_H
#define INCLUDED_CUDADSP_WORK_ERRORS_H

#include <gnuradio/block.h>
#include <gnuradio/logger.h>
#include <exception>

namespace gr {
namespace cudadsp {

/*!
 * Runs a block's work() body; an exception from it (a CUDA failure mid-stream, a search
 * thread's error) ends the block instead of leaving work().
 *
 * Why: GNU Radio 3.10's thread-per-block scheduler lets an exception end the block's
 * thread, logged as "ERROR thread[...]", without marking the block done, so its
 * neighbours wait for it and top_block::wait() never returns. Here the error is logged
 * through the block's logger, naming the block (its alias) and what failed (a
 * core::cuda_error names the call, file and line), and work() returns WORK_DONE: the
 * scheduler then ends the block as at the end of a stream, downstream blocks drain
 * and end, upstream blocks end once nothing reads them, and wait() returns. A fresh
 * block or engine can be made afterwards.
 */
template <class Body>
int stop_on_error(const gr::logger_ptr& logger, const gr::basic_block& block, Body&& body)
{
    try {
        return body();
    } catch (const std::exception& e) {
        // The alias is a string built on request: only here, not on every call.
        logger->error("{}: stopped by an error in work(): {}", block.alias(), e.what());
    }
    return gr::block::WORK_DONE;
}

/*!
 * The work() of a block whose body may throw: derive the implementation from
 * guarded_work<Impl, Public> instead of Public (CRTP), give it a public
 * work_body() with work()'s parameters, and work() is stop_on_error() around it.
 * For sync_block, sync_decimator and sync_interpolator blocks; general blocks take
 * guarded_general_work. Public's virtual GNU Radio base is still constructed by Impl.
 */
template <class Impl, class Public>
class guarded_work : public Public
{
public:
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items) final
    {
        return stop_on_error(this->d_logger, *this, [&] {
            return static_cast<Impl&>(*this).work_body(
                noutput_items, input_items, output_items);
        });
    }
};

//! guarded_work for general blocks: Impl's general_work_body() runs in general_work().
template <class Impl, class Public>
class guarded_general_work : public Public
{
public:
    int general_work(int noutput_items,
                     gr_vector_int& ninput_items,
                     gr_vector_const_void_star& input_items,
                     gr_vector_void_star& output_items) final
    {
        return stop_on_error(this->d_logger, *this, [&] {
            return static_cast<Impl&>(*this).general_work_body(
                noutput_items, ninput_items, input_items, output_items);
        });
    }
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_WORK_ERRORS_H */
