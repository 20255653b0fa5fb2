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
#include <atomic>
#include <cstdint>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*! Throws cuda_error naming \p call, the place and the CUDA error when \p status is not
 *  cudaSuccess. Clears the sticky "last error" so that one failure is reported once. */
void check_cuda(cudaError_t status, const char* call, const char* file, int line);

/*!
 * \brief Fault injection: make one checked CUDA call fail, to test what a device fault
 * does to an engine, a block and a flowgraph.
 *
 * Compiled into every build and inert unless armed, by the environment variable
 * CUDADSP_FAULT_INJECT (read once, at the first checked call) or by
 * arm_cuda_fault(). The spec is "<call>:<nth>[:<error>]": the nth checked call (from 1,
 * counted from arming) whose text contains <call> fails with <error> instead of running.
 * The text is the call as written in the source for CUDADSP_CUDA (e.g.
 * "cudaMemcpyAsync(") and the kernel's name for CUDADSP_CUDA_LAUNCHED; "*" matches every
 * checked call. <error> is "oom" (cudaErrorMemoryAllocation) or "launch"
 * (cudaErrorLaunchFailure); by default "launch" for a launch check and "oom" for a
 * runtime call. A call made to fail is not made (no allocation leaks, no copy runs);
 * a launch check made to fail follows a launch that did run. One fault per arming:
 * afterwards the hook is inert again. Disarmed, each check costs one relaxed atomic load.
 */
struct cuda_fault_spec {
    std::string call;          //!< substring of the call's text; "*" for any call
    std::uint64_t nth = 1;     //!< which matching call fails, from 1
    bool forced_error = false; //!< error below given, rather than chosen by the call kind
    cudaError_t error = cudaErrorMemoryAllocation;
};

/*! Parses a spec as above. Throws std::invalid_argument naming \p source (the variable
 *  or parameter the text came from) and the rule broken. */
cuda_fault_spec parse_cuda_fault_spec(const std::string& text,
                                      const std::string& source = "CUDADSP_FAULT_INJECT");
//! Arms the hook with \p spec (replacing any armed spec; the count starts again).
void arm_cuda_fault(const cuda_fault_spec& spec);
//! Disarms the hook; also keeps CUDADSP_FAULT_INJECT from arming it later.
void disarm_cuda_fault();
//! Faults injected so far in this process.
std::uint64_t cuda_faults_injected();

namespace detail {
//! 0: environment not read yet, 1: inert, 2: armed.
extern std::atomic<int> cuda_fault_state;
bool cuda_fault_due_slow(const char* text, cudaError_t kind_default);
cudaError_t cuda_fault_error();

/*! Whether this checked call is the one to fail; its error is then cuda_fault_error()
 *  (kept per thread). */
inline bool cuda_fault_due(const char* text, cudaError_t kind_default)
{
    return cuda_fault_state.load(std::memory_order_relaxed) != 1 &&
           cuda_fault_due_slow(text, kind_default);
}
} // namespace detail

} // namespace core
} // namespace cudadsp
} // namespace gr

//! Wrap every CUDA runtime call: CUDADSP_CUDA(cudaMalloc(&p, n));
#define CUDADSP_CUDA(call)                                                            \
    ::gr::cudadsp::core::check_cuda(                                                  \
        ::gr::cudadsp::core::detail::cuda_fault_due(#call, cudaErrorMemoryAllocation) \
            ? ::gr::cudadsp::core::detail::cuda_fault_error()                         \
            : (call),                                                                 \
        #call,                                                                        \
        __FILE__,                                                                     \
        __LINE__)

//! After a kernel launch: reports launch-configuration errors at the launch site.
#define CUDADSP_CUDA_LAUNCHED(kernel_name)                                               \
    ::gr::cudadsp::core::check_cuda(                                                     \
        ::gr::cudadsp::core::detail::cuda_fault_due(kernel_name, cudaErrorLaunchFailure) \
            ? ::gr::cudadsp::core::detail::cuda_fault_error()                            \
            : cudaGetLastError(),                                                        \
        kernel_name,                                                                     \
        __FILE__,                                                                        \
        __LINE__)

#endif /* INCLUDED_CUDADSP_CORE_CUDA_CHECK_H */
