/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp_info: the CUDA devices gr-cudadsp can use, or plainly that there are none.
// Exits 0 either way, so scripts can call it to decide on a device string (2 only for
// a bad command line).

#include "common/documentation_page.h"
#include <gnuradio/cudadsp/core/device.h>
#include <boost/program_options.hpp>
#include <cstdio>
#include <exception>
#include <iostream>

namespace {

namespace po = boost::program_options;

const char* const usage_synopsis = R"(usage: cudadsp_info [options]

Lists the CUDA devices gr-cudadsp can use, with what the CUDA engines depend on
(compute capability, multiprocessors, memory, copy engines), or says why there are
none. The device strings it prints ("cuda:N") are what the blocks' device parameter
and cudadsp_bench --device take; device="auto" selects cuda:0, or the CPU backend
when no device is listed.
)";

const char* const usage_exit_status = R"(
Exit status: 0, with or without a CUDA device; 2 for bad usage.
)";

//! True when the command line asks for the usage text; throws po::error on bad input.
bool parse_asks_for_help(int argc, char** argv, const po::options_description& options)
{
    po::variables_map values;
    // An empty positional description makes any stray argument an error.
    po::store(po::command_line_parser(argc, argv)
                  .options(options)
                  .positional(po::positional_options_description())
                  .run(),
              values);
    po::notify(values);
    return values.count("help") > 0;
}

} // namespace

int main(int argc, char** argv)
{
    namespace core = gr::cudadsp::core;
    po::options_description options("options");
    options.add_options()("help,h", "this text");
    try {
        if (parse_asks_for_help(argc, argv, options)) {
            std::cout << usage_synopsis << '\n'
                      << options << usage_exit_status
                      << cudadsp_apps::documentation_line("device.md");
            return 0;
        }
    } catch (const po::too_many_positional_options_error&) {
        std::cerr << "cudadsp_info: takes no arguments, only options "
                     "('cudadsp_info --help' for usage)\n";
        return 2;
    } catch (const po::error& e) {
        std::cerr << "cudadsp_info: " << e.what()
                  << " ('cudadsp_info --help' for usage)\n";
        return 2;
    }

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
