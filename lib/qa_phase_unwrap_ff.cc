/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include <gnuradio/attributes.h>
#include <gnuradio/cudadsp/phase_unwrap_ff.h>
#include <boost/test/unit_test.hpp>

namespace gr {
namespace cudadsp {

BOOST_AUTO_TEST_CASE(test_phase_unwrap_ff_replace_with_specific_test_name)
{
    // Put test here
}

} /* namespace cudadsp */
} /* namespace gr */
