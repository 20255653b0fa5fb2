/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/fftw_support.h"

namespace gr {
namespace cudadsp {
namespace core {

std::unique_lock<std::mutex> fftw_planner_lock()
{
    static std::once_flag once;
    std::call_once(once, [] { fftwf_make_planner_thread_safe(); });
    static std::mutex mutex;
    return std::unique_lock<std::mutex>(mutex);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
