/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CUDA_CHECK_H
#define INCLUDED_CUDADSP_CORE_CUDA_CHECK_H

#include <gnuradio/cudadsp/core/device.h>
#include <cuda_runtime_api.h>

namespace gr {
namespace cudadsp {
namespace core {

/*! Throws cuda_error naming \p call, the place and the CUDA error when \p status is not
 *  cudaSuccess. Clears the sticky "last error" so that one failure is reported once. */
void check_cuda(cudaError_t status, const char* call, const char* file, int line);

} // namespace core
} // namespace cudadsp
} // namespace gr

//! Wrap every CUDA runtime call: CUDADSP_CUDA(cudaMalloc(&p, n));
#define CUDADSP_CUDA(call) \
    ::gr::cudadsp::core::check_cuda((call), #call, __FILE__, __LINE__)

//! After a kernel launch: reports launch-configuration errors at the launch site.
#define CUDADSP_CUDA_LAUNCHED(kernel_name) \
    ::gr::cudadsp::core::check_cuda(cudaGetLastError(), kernel_name, __FILE__, __LINE__)

#endif /* INCLUDED_CUDADSP_CORE_CUDA_CHECK_H */
