/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The device runtime for Python (core/device.h): which devices there are, what a
// device string resolves to, and CUDA failures as their own exception type. Written by
// hand; device.h has no BINDTOOL hash (it is no block's header).

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <gnuradio/cudadsp/core/device.h>

namespace py = pybind11;

void bind_device(py::module& m)
{
    using namespace gr::cudadsp::core;

    // A failed CUDA call (out of device memory, a lost device): a RuntimeError, so
    // callers that caught RuntimeError before keep working.
    py::register_exception<cuda_error>(m, "cuda_error", PyExc_RuntimeError);

    m.def(
        "select_device",
        [](const std::string& device) { return select_device(device).to_string(); },
        py::arg("device") = "auto",
        "What a device string (\"auto\", \"cpu\", \"cuda\" or \"cuda:N\") resolves to "
        "here: \"cpu\" or \"cuda:N\". ValueError for a malformed string, RuntimeError "
        "when CUDA is asked for and there is no such device.");
    m.def("cuda_device_count",
          &cuda_device_count,
          "Usable CUDA devices; 0 without a driver, a device or the runtime.");
    m.def("cuda_unavailable_reason",
          &cuda_unavailable_reason,
          "Why there is no CUDA device (\"\" when there is one).");
    m.def("cuda_driver_version",
          &cuda_driver_version,
          "The CUDA driver's version, \"13.0\", or \"none\".");
    m.def("cuda_runtime_version",
          &cuda_runtime_version,
          "The CUDA runtime's version this library loaded, \"13.0\".");
    m.def(
        "list_cuda_devices",
        [] {
            py::list devices;
            for (const cuda_device_info& d : list_cuda_devices()) {
                py::dict entry;
                entry["ordinal"] = d.ordinal;
                entry["name"] = d.name;
                entry["compute_capability"] = std::to_string(d.compute_major) + "." +
                                              std::to_string(d.compute_minor);
                entry["multiprocessors"] = d.multiprocessors;
                entry["global_memory_bytes"] = d.global_memory_bytes;
                entry["l2_cache_bytes"] = d.l2_cache_bytes;
                entry["shared_memory_per_block_optin_bytes"] =
                    d.shared_memory_per_block_optin_bytes;
                entry["memory_bus_width_bits"] = d.memory_bus_width_bits;
                entry["async_engine_count"] = d.async_engine_count;
                devices.append(entry);
            }
            return devices;
        },
        "The CUDA devices as dicts (what cudadsp_info prints about each).");
}
