/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cuda_check.h"
#include <gnuradio/cudadsp/core/device.h>
#include <cctype>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

std::string version_string(int version)
{
    // CUDA encodes versions as 1000 * major + 10 * minor.
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

int parse_ordinal(const std::string& digits,
                  const std::string& device,
                  const std::string& name)
{
    bool all_digits = !digits.empty() && digits.size() <= 4;
    for (char c : digits)
        all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
    if (!all_digits)
        throw std::invalid_argument(
            name + ": \"" + device +
            "\" is not a device; expected \"auto\", \"cpu\", "
            "\"cuda\" or \"cuda:N\" with N a device ordinal >= 0");
    return std::stoi(digits);
}

} // namespace

std::string device_selection::to_string() const
{
    return backend == backend_kind::cpu ? "cpu" : "cuda:" + std::to_string(cuda_ordinal);
}

int cuda_device_count()
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        // No driver or no device: both mean "run on the CPU"; clear the error state.
        cudaGetLastError();
        return 0;
    }
    return count;
}

std::string cuda_unavailable_reason()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return std::string(cudaGetErrorString(status)) + " (" + cudaGetErrorName(status) +
               ")";
    }
    return count > 0 ? "" : "no CUDA device found";
}

device_selection select_device(const std::string& device, const std::string& name)
{
    device_selection selection;
    if (device == "cpu")
        return selection;
    if (device == "auto") {
        selection.chosen_automatically = true;
        if (cuda_device_count() > 0) {
            selection.backend = backend_kind::cuda;
            selection.cuda_ordinal = 0;
        }
        return selection;
    }
    int ordinal = 0;
    if (device.rfind("cuda:", 0) == 0)
        ordinal = parse_ordinal(device.substr(5), device, name);
    else if (device != "cuda")
        parse_ordinal("", device, name); // throws the invalid_argument message
    const int count = cuda_device_count();
    if (ordinal >= count) {
        std::ostringstream msg;
        msg << name << ": \"" << device << "\" asks for CUDA device " << ordinal
            << " but ";
        if (count == 0)
            msg << "no CUDA device is available (" << cuda_unavailable_reason()
                << "); use device=\"cpu\" or \"auto\"";
        else
            msg << "only " << count << " CUDA device(s) exist (ordinals 0.." << count - 1
                << ")";
        throw std::runtime_error(msg.str());
    }
    selection.backend = backend_kind::cuda;
    selection.cuda_ordinal = ordinal;
    return selection;
}

std::vector<cuda_device_info> list_cuda_devices()
{
    std::vector<cuda_device_info> devices;
    const int count = cuda_device_count();
    for (int i = 0; i < count; ++i) {
        cudaDeviceProp prop{};
        CUDADSP_CUDA(cudaGetDeviceProperties(&prop, i));
        cuda_device_info info;
        info.ordinal = i;
        info.name = prop.name;
        info.compute_major = prop.major;
        info.compute_minor = prop.minor;
        info.multiprocessors = prop.multiProcessorCount;
        info.global_memory_bytes = prop.totalGlobalMem;
        info.l2_cache_bytes = static_cast<std::size_t>(prop.l2CacheSize);
        info.shared_memory_per_block_optin_bytes = prop.sharedMemPerBlockOptin;
        info.memory_bus_width_bits = prop.memoryBusWidth;
        info.async_engine_count = prop.asyncEngineCount;
        devices.push_back(info);
    }
    return devices;
}

std::string cuda_driver_version()
{
    int version = 0;
    if (cudaDriverGetVersion(&version) != cudaSuccess || version == 0) {
        cudaGetLastError();
        return "none";
    }
    return version_string(version);
}

std::string cuda_runtime_version()
{
    int version = 0;
    CUDADSP_CUDA(cudaRuntimeGetVersion(&version));
    return version_string(version);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
