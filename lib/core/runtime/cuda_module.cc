/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include "runtime/cuda_module.h"
#include <cstring>
#include <mutex>
#include <sstream>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! The driver functions used here, looked up once.
struct driver_api {
    decltype(&cuModuleLoadDataEx) module_load_data_ex = nullptr;
    decltype(&cuModuleUnload) module_unload = nullptr;
    decltype(&cuModuleGetFunction) module_get_function = nullptr;
    decltype(&cuLaunchKernel) launch_kernel = nullptr;
    decltype(&cuGetErrorName) get_error_name = nullptr;
    decltype(&cuGetErrorString) get_error_string = nullptr;
};

template <typename F>
void look_up(const char* symbol, F& fn)
{
    void* ptr = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    // 12000: the ABI version of these functions as declared in CUDA 12 and 13.
    CUDADSP_CUDA(
        cudaGetDriverEntryPointByVersion(symbol, &ptr, 12000, cudaEnableDefault, &found));
    if (found != cudaDriverEntryPointSuccess || ptr == nullptr)
        throw cuda_error(std::string("cudaGetDriverEntryPointByVersion: the CUDA "
                                     "driver has no ") +
                         symbol);
    fn = reinterpret_cast<F>(ptr);
}

const driver_api& driver()
{
    static driver_api api;
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] {
        try {
            look_up("cuModuleLoadDataEx", api.module_load_data_ex);
            look_up("cuModuleUnload", api.module_unload);
            look_up("cuModuleGetFunction", api.module_get_function);
            look_up("cuLaunchKernel", api.launch_kernel);
            look_up("cuGetErrorName", api.get_error_name);
            look_up("cuGetErrorString", api.get_error_string);
            ok = true;
        } catch (const cuda_error&) {
            ok = false;
        }
    });
    if (!ok)
        throw cuda_error("cuda_module: the CUDA driver API is not available "
                         "(cudaGetDriverEntryPointByVersion found no cuModuleLoadDataEx, "
                         "cuLaunchKernel, ...)");
    return api;
}

} // namespace

void check_cu(CUresult status, const char* call, const char* file, int line)
{
    if (status == CUDA_SUCCESS)
        return;
    const char* name = "unknown";
    const char* text = "unknown driver error";
    const driver_api& api = driver();
    api.get_error_name(status, &name);
    api.get_error_string(status, &text);
    const char* base = std::strrchr(file, '/');
    std::ostringstream msg;
    msg << call << " failed at " << (base ? base + 1 : file) << ":" << line << ": "
        << text << " (" << name << ")";
    throw cuda_error(msg.str());
}

cuda_module::cuda_module(const std::string& image)
{
    const driver_api& api = driver();
    constexpr std::size_t log_size = 8192;
    std::string error_log(log_size, '\0');
    CUjit_option options[] = { CU_JIT_ERROR_LOG_BUFFER,
                               CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
    void* values[] = { &error_log[0],
                       reinterpret_cast<void*>(static_cast<std::uintptr_t>(log_size)) };
    const CUresult status =
        api.module_load_data_ex(&d_module, image.data(), 2, options, values);
    if (status != CUDA_SUCCESS) {
        d_module = nullptr;
        error_log.resize(std::strlen(error_log.c_str()));
        try {
            check_cu(status, "cuModuleLoadDataEx", __FILE__, __LINE__);
        } catch (const cuda_error& e) {
            throw cuda_error(std::string(e.what()) +
                             (error_log.empty() ? "" : "\nJIT log:\n" + error_log));
        }
    }
}

cuda_module::~cuda_module()
{
    if (d_module)
        driver().module_unload(d_module);
}

cuda_module::cuda_module(cuda_module&& o) noexcept
    : d_module(std::exchange(o.d_module, nullptr))
{
}

cuda_module& cuda_module::operator=(cuda_module&& o) noexcept
{
    std::swap(d_module, o.d_module);
    return *this;
}

CUfunction cuda_module::function(const char* name) const
{
    CUfunction fn = nullptr;
    CUDADSP_CU(driver().module_get_function(&fn, d_module, name));
    return fn;
}

void cuda_module::launch(CUfunction kernel,
                         dim3 grid,
                         dim3 block,
                         std::size_t shared_bytes,
                         cudaStream_t stream,
                         void** args)
{
    CUDADSP_CU(driver().launch_kernel(kernel,
                                      grid.x,
                                      grid.y,
                                      grid.z,
                                      block.x,
                                      block.y,
                                      block.z,
                                      static_cast<unsigned int>(shared_bytes),
                                      reinterpret_cast<CUstream>(stream),
                                      args,
                                      nullptr));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
