/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include "runtime/kernel_shared_memory.h"
#include <cuda_runtime.h>

namespace gr {
namespace cudadsp {
namespace core {

std::size_t allow_dynamic_shared_memory(const void* kernel)
{
    int device = 0;
    CUDADSP_CUDA(cudaGetDevice(&device));
    int optin = 0;
    CUDADSP_CUDA(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attributes{};
    CUDADSP_CUDA(cudaFuncGetAttributes(&attributes, kernel));
    const int dynamic = optin - static_cast<int>(attributes.sharedSizeBytes);
    CUDADSP_CUDA(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dynamic));
    return static_cast<std::size_t>(dynamic);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
