/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_RUN_FLOWGRAPH_H
#define INCLUDED_CUDADSP_QA_RUN_FLOWGRAPH_H

// Running a C++ test flowgraph with a bound on its duration.

#include "qa_support.h"
#include <gnuradio/top_block.h>
#include <chrono>
#include <cstdlib>
#include <future>
#include <iostream>
#include <string>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * Runs \p tb to completion. A flowgraph still running after \p seconds is a hang: it is
 * reported (naming \p what) and the process ends at once with status 3, rather than
 * blocking the whole suite or unwinding through a scheduler that is still running.
 * Under a CUDA sanitizer (sanitizer_run()) the bound is five times longer.
 */
inline void
run_or_die(gr::top_block_sptr tb, const std::string& what, double seconds = 120.0)
{
    seconds *= scaled(1.0, 5.0);
    tb->start();
    auto done = std::async(std::launch::async, [tb] { tb->wait(); });
    if (done.wait_for(std::chrono::duration<double>(seconds)) !=
        std::future_status::ready) {
        std::cerr << what << ": flowgraph still running after " << seconds
                  << " s (hang); aborting" << std::endl;
        std::_Exit(3);
    }
    done.get();
}

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_RUN_FLOWGRAPH_H */
