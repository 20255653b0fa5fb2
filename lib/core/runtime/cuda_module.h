/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CUDA_MODULE_H
#define INCLUDED_CUDADSP_CORE_CUDA_MODULE_H

// A module of run-time compiled kernels (CUBIN or PTX from nvrtc_compile), loaded and
// launched through the CUDA driver API. The driver functions are looked up through the
// runtime (cudaGetDriverEntryPointByVersion) instead of linking libcuda: the library
// and its tests must load on machines without an NVIDIA driver (build hosts, CI),
// where only the runtime's own lazy driver loading is allowed to fail, and only when
// a GPU is actually used.

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cstddef>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

/*! Throws cuda_error naming \p call, the place and the driver's error name and string
 *  when \p status is not CUDA_SUCCESS. */
void check_cu(CUresult status, const char* call, const char* file, int line);

} // namespace core
} // namespace cudadsp
} // namespace gr

//! Wrap every driver API call made through cuda_module.
#define CUDADSP_CU(call) ::gr::cudadsp::core::check_cu((call), #call, __FILE__, __LINE__)

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Owner of a loaded CUmodule (move-only; unloaded with the object).
 *
 * Load and use it with the device it belongs to current (device_guard); the runtime's
 * primary context of that device is the one the driver calls use.
 */
class cuda_module
{
public:
    cuda_module() = default;
    /*! Loads \p image (a CUBIN, or NUL-terminated PTX that the driver JIT-compiles);
     *  cuda_error with the JIT log when it does not load. */
    explicit cuda_module(const std::string& image);
    ~cuda_module();
    cuda_module(cuda_module&& o) noexcept;
    cuda_module& operator=(cuda_module&& o) noexcept;
    cuda_module(const cuda_module&) = delete;
    cuda_module& operator=(const cuda_module&) = delete;

    bool loaded() const { return d_module != nullptr; }
    //! The kernel \p name (an extern "C" __global__ function); cuda_error if absent.
    CUfunction function(const char* name) const;

    /*! Enqueues \p kernel on \p stream; \p args points to each kernel argument, in
     *  order (cuLaunchKernel's kernelParams). */
    static void launch(CUfunction kernel,
                       dim3 grid,
                       dim3 block,
                       std::size_t shared_bytes,
                       cudaStream_t stream,
                       void** args);

private:
    CUmodule d_module = nullptr;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUDA_MODULE_H */
