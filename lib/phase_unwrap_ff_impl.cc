/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "phase_unwrap_ff_impl.h"
#include <gnuradio/io_signature.h>

namespace gr {
namespace cudadsp {

#pragma message("set the following appropriately and remove this warning")
using input_type = float;
#pragma message("set the following appropriately and remove this warning")
using output_type = float;
phase_unwrap_ff::sptr
phase_unwrap_ff::make(int vlen, double period, const std::string& device)
{
    return gnuradio::make_block_sptr<phase_unwrap_ff_impl>(vlen, period, device);
}


/*
 * The private constructor
 */
phase_unwrap_ff_impl::phase_unwrap_ff_impl(int vlen,
                                           double period,
                                           const std::string& device)
    : gr::sync_block("phase_unwrap_ff",
                     gr::io_signature::make(
                         1 /* min inputs */, 1 /* max inputs */, sizeof(input_type)),
                     gr::io_signature::make(
                         1 /* min outputs */, 1 /*max outputs */, sizeof(output_type)))
{
}

/*
 * Our virtual destructor.
 */
phase_unwrap_ff_impl::~phase_unwrap_ff_impl() {}

int phase_unwrap_ff_impl::work(int noutput_items,
                               gr_vector_const_void_star& input_items,
                               gr_vector_void_star& output_items)
{
    auto in = static_cast<const input_type*>(input_items[0]);
    auto out = static_cast<output_type*>(output_items[0]);

#pragma message("Implement the signal processing in your block and remove this warning")
    // Do <+signal processing+>

    // Tell runtime system how many output items we produced.
    return noutput_items;
}

} /* namespace cudadsp */
} /* namespace gr */
