/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_KERNEL_SHARED_MEMORY_H
#define INCLUDED_CUDADSP_CORE_KERNEL_SHARED_MEMORY_H

#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * Lets \p kernel (a __global__ function's address) launch on the current device with
 * up to the returned number of bytes of dynamic shared memory: the device's opt-in
 * limit per block less the kernel's static shared memory.
 *
 * Why always the limit: cudaFuncAttributeMaxDynamicSharedMemorySize belongs to the
 * kernel, for the whole process, not to the engine that sets it. An engine that set
 * it to its own need would lower it under another engine's launch of the same kernel
 * (another receiver's correlator, on another thread or built later), whose launch
 * then fails with cudaErrorInvalidValue. Every caller setting the same value, the
 * limit, leaves nothing to race on. Checked; throws cuda_error.
 */
std::size_t allow_dynamic_shared_memory(const void* kernel);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_KERNEL_SHARED_MEMORY_H */
