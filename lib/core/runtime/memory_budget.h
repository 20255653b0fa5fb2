/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_RUNTIME_MEMORY_BUDGET_H
#define INCLUDED_CUDADSP_CORE_RUNTIME_MEMORY_BUDGET_H

// Memory checked before an engine allocates its workspace. Without the check, a frame
// too large for the machine ends in std::bad_alloc from somewhere inside a
// constructor, or (when the kernel overcommits and then runs out) in a SIGKILL that
// no caller can catch. With it, the factory refuses the request with a message naming
// it, the bytes it needs and the bytes there are.

#include <gnuradio/cudadsp/core/device.h>
#include <cstddef>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

//! Bytes that can still be allocated, and the limit that says so.
struct memory_headroom {
    std::size_t bytes;
    //! "MemAvailable", "RLIMIT_AS", "RLIMIT_DATA", "cgroup memory.max", "cgroup
    //! memory.limit_in_bytes", "cudaMemGetInfo", or "unknown" where none could be read.
    std::string bound;
};

/*!
 * Host memory this process can still allocate: the least of the system's MemAvailable
 * (/proc/meminfo), RLIMIT_AS and RLIMIT_DATA less the address space and data segment
 * in use (VmSize, VmData of /proc/self/status), and the memory cgroup's limit less its
 * usage (v2 memory.max / memory.current, v1 memory.limit_in_bytes / usage_in_bytes).
 */
memory_headroom host_memory_headroom();

//! Free memory of CUDA device \p cuda_ordinal (cudaMemGetInfo).
memory_headroom device_memory_headroom(int cuda_ordinal);

//! What a request will allocate: on the host, and on the device of a CUDA backend.
struct memory_need {
    std::size_t host_bytes = 0;
    std::size_t device_bytes = 0;
};

/*!
 * Throws std::runtime_error when \p need exceeds the host's headroom, or, for a CUDA
 * \p device, the device's: "<request> needs N bytes (x.xx GiB) of host memory; M bytes
 * (y.yy GiB) are available (bound)". \p request names what was asked, e.g.
 * "phase_unwrapper_2d: a 8192 x 8192 frame, reliability method, cpu".
 */
void require_memory(const memory_need& need,
                    const device_selection& device,
                    const std::string& request);

//! The check itself, for a headroom already read: throws as require_memory() does.
void require_headroom(std::size_t bytes_needed,
                      const memory_headroom& headroom,
                      const std::string& memory,
                      const std::string& request);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_RUNTIME_MEMORY_BUDGET_H */
