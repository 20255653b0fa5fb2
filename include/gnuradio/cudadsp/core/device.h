/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_DEVICE_H
#define INCLUDED_CUDADSP_CORE_DEVICE_H

#include <gnuradio/cudadsp/core/api.h>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief A CUDA runtime, driver or library call failed.
 *
 * The message names the call, the source location and the CUDA error string, e.g.
 * "cudaMalloc(&ptr, bytes) failed at cuda_resources.h:43: out of memory
 * (cudaErrorMemoryAllocation)". Every CUDA call in gr-cudadsp is checked; none aborts
 * the process.
 */
class CUDADSP_CORE_API cuda_error : public std::runtime_error
{
public:
    explicit cuda_error(const std::string& what) : std::runtime_error(what) {}
};

//! Which implementation an engine runs on.
enum class backend_kind { cpu, cuda };

/*!
 * \brief A resolved device choice: the CPU, or one CUDA device by ordinal.
 */
struct CUDADSP_CORE_API device_selection {
    backend_kind backend = backend_kind::cpu;
    int cuda_ordinal = -1;             //!< valid when backend == cuda
    bool chosen_automatically = false; //!< true when resolved from "auto"

    //! "cpu" or "cuda:N"
    std::string to_string() const;
};

/*!
 * \brief Resolve a device string: "auto", "cpu", "cuda" or "cuda:N".
 *
 * "auto" picks CUDA device 0 when one is present and the CPU otherwise; "cuda" is
 * "cuda:0". Throws std::invalid_argument naming \p parameter_name for a string that is
 * none of these (or a negative / non-numeric N), and std::runtime_error when CUDA is
 * asked for but no such device exists.
 */
CUDADSP_CORE_API device_selection
select_device(const std::string& device, const std::string& parameter_name = "device");

//! Number of usable CUDA devices; 0 when there is no driver, no device or no runtime.
CUDADSP_CORE_API int cuda_device_count();

/*!
 * \brief Why there are no CUDA devices (driver missing, no device, ...), or "" when
 * cuda_device_count() > 0.
 */
CUDADSP_CORE_API std::string cuda_unavailable_reason();

//! What cudadsp_info prints about one device.
struct CUDADSP_CORE_API cuda_device_info {
    int ordinal = 0;
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
    int multiprocessors = 0;
    std::size_t global_memory_bytes = 0;
    std::size_t l2_cache_bytes = 0;
    std::size_t shared_memory_per_block_optin_bytes = 0;
    int memory_bus_width_bits = 0;
    int async_engine_count = 0; //!< copy engines: 2 or more lets H2D and D2H overlap
};

CUDADSP_CORE_API std::vector<cuda_device_info> list_cuda_devices();

//! CUDA driver version as "13.0", or "none" when no driver is installed.
CUDADSP_CORE_API std::string cuda_driver_version();
//! CUDA runtime version this library was built against and loaded, as "13.0".
CUDADSP_CORE_API std::string cuda_runtime_version();

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_DEVICE_H */
