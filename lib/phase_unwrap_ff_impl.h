/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H
#define INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H

#include <gnuradio/cudadsp/phase_unwrap_ff.h>

namespace gr {
namespace cudadsp {

class phase_unwrap_ff_impl : public phase_unwrap_ff
{
private:
    // Nothing to declare in this block.

public:
    phase_unwrap_ff_impl(int vlen, double period, const std::string& device);
    ~phase_unwrap_ff_impl();

    // Where all the action really happens
    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star& output_items);
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PHASE_UNWRAP_FF_IMPL_H */
