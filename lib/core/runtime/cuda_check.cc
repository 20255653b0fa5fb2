/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include <cstring>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

void check_cuda(cudaError_t status, const char* call, const char* file, int line)
{
    if (status == cudaSuccess)
        return;
    // Consume the error so that the next, unrelated check does not report it again.
    // Sticky errors (a kernel fault) stay set in the context whatever we do here.
    cudaGetLastError();
    const char* base = std::strrchr(file, '/');
    std::ostringstream msg;
    msg << call << " failed at " << (base ? base + 1 : file) << ":" << line << ": "
        << cudaGetErrorString(status) << " (" << cudaGetErrorName(status) << ")";
    throw cuda_error(msg.str());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
