/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <stdexcept>

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

// ---------------------------------------------------------------- fault injection

namespace {

std::mutex fault_mutex;
cuda_fault_spec fault;           // under fault_mutex
std::uint64_t fault_matches = 0; // under fault_mutex
std::atomic<std::uint64_t> faults_injected{ 0 };
thread_local cudaError_t fault_error = cudaSuccess;

} // namespace

namespace detail {
std::atomic<int> cuda_fault_state{ 0 };
} // namespace detail

cuda_fault_spec parse_cuda_fault_spec(const std::string& text, const std::string& source)
{
    const auto bad = [&](const std::string& rule) {
        return std::invalid_argument(source + ": " + rule +
                                     " (form <call>:<nth>[:oom|launch]), got \"" + text +
                                     "\"");
    };
    const std::size_t first = text.find(':');
    if (first == std::string::npos || first == 0)
        throw bad("must start with the call's text (or *) and a colon");
    cuda_fault_spec spec;
    spec.call = text.substr(0, first);
    const std::size_t second = text.find(':', first + 1);
    const std::string nth = text.substr(
        first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
    if (nth.empty() || nth.find_first_not_of("0123456789") != std::string::npos ||
        nth.size() > 18 || std::stoull(nth) == 0)
        throw bad("<nth> must be a whole number from 1 to 10^18");
    spec.nth = std::stoull(nth);
    if (second != std::string::npos) {
        const std::string error = text.substr(second + 1);
        if (error == "oom")
            spec.error = cudaErrorMemoryAllocation;
        else if (error == "launch")
            spec.error = cudaErrorLaunchFailure;
        else
            throw bad("<error> must be oom or launch");
        spec.forced_error = true;
    }
    return spec;
}

void arm_cuda_fault(const cuda_fault_spec& spec)
{
    if (spec.call.empty() || spec.nth == 0)
        throw std::invalid_argument(
            "arm_cuda_fault: call must not be empty and nth >= 1");
    std::lock_guard<std::mutex> lock(fault_mutex);
    fault = spec;
    fault_matches = 0;
    detail::cuda_fault_state.store(2);
}

void disarm_cuda_fault()
{
    std::lock_guard<std::mutex> lock(fault_mutex);
    detail::cuda_fault_state.store(1);
}

std::uint64_t cuda_faults_injected() { return faults_injected.load(); }

namespace detail {

bool cuda_fault_due_slow(const char* text, cudaError_t kind_default)
{
    std::lock_guard<std::mutex> lock(fault_mutex);
    if (cuda_fault_state.load() == 0) {
        // First checked call: the environment decides, once. A bad spec is an error
        // of this call, naming the variable, and leaves the hook inert.
        cuda_fault_state.store(1);
        const char* env = std::getenv("CUDADSP_FAULT_INJECT");
        if (!env || !*env)
            return false;
        fault = parse_cuda_fault_spec(env);
        fault_matches = 0;
        cuda_fault_state.store(2);
    }
    if (cuda_fault_state.load() != 2)
        return false;
    if (fault.call != "*" && !std::strstr(text, fault.call.c_str()))
        return false;
    if (++fault_matches < fault.nth)
        return false;
    cuda_fault_state.store(1); // one fault per arming
    fault_error = fault.forced_error ? fault.error : kind_default;
    ++faults_injected;
    return true;
}

cudaError_t cuda_fault_error() { return fault_error; }

} // namespace detail

} // namespace core
} // namespace cudadsp
} // namespace gr
