/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp_info: the CUDA devices gr-cudadsp can use, or plainly that there are none.
// Exits 0 either way, so scripts can call it to decide on a device string.

#include <gnuradio/cudadsp/core/device.h>
#include <cstdio>
#include <exception>

int main()
{
    namespace core = gr::cudadsp::core;
    try {
        std::printf("gr-cudadsp: CUDA runtime %s, driver %s\n",
                    core::cuda_runtime_version().c_str(),
                    core::cuda_driver_version().c_str());
        const auto devices = core::list_cuda_devices();
        if (devices.empty()) {
            std::printf("No CUDA device: %s.\n", core::cuda_unavailable_reason().c_str());
            std::printf("Blocks with device=\"auto\" run on the CPU backend; "
                        "device=\"cuda\" is an error.\n");
            return 0;
        }
        for (const auto& d : devices) {
            std::printf("cuda:%d  %s\n", d.ordinal, d.name.c_str());
            std::printf(
                "  compute capability  %d.%d\n", d.compute_major, d.compute_minor);
            std::printf("  multiprocessors     %d\n", d.multiprocessors);
            std::printf("  global memory       %.1f GiB\n",
                        d.global_memory_bytes / double(1ull << 30));
            std::printf("  L2 cache            %.1f MiB\n",
                        d.l2_cache_bytes / double(1 << 20));
            std::printf("  memory bus          %d bits\n", d.memory_bus_width_bits);
            std::printf("  shared memory/block %zu KiB (opt-in)\n",
                        d.shared_memory_per_block_optin_bytes / 1024);
            std::printf("  copy engines        %d%s\n",
                        d.async_engine_count,
                        d.async_engine_count >= 2 ? " (uploads and downloads overlap)"
                                                  : "");
        }
        std::printf("device=\"auto\" selects cuda:0.\n");
    } catch (const std::exception& e) {
        // A broken driver still gets a plain answer, not a crash.
        std::printf("CUDA is present but not usable: %s\n", e.what());
    }
    return 0;
}
