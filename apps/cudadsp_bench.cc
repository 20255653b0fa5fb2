/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// cudadsp_bench: times the gr-cudadsp engines and blocks next to copy floors measured
// in the same run. The sections live in bench/bench_<engine>.cc and register
// themselves with the harness.

#include "bench/bench_harness.h"
#include "runtime/cuda_resources.h"
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace bench = gr::cudadsp::bench;

const char* const usage_text =
    R"(usage: cudadsp_bench <section|all|list> [options]

Times gr-cudadsp engines and blocks side by side with the copy floors of the same
bytes, measured in the same run, and prints ratios: absolute times drift on a shared
machine, ratios within one run hold.

  list                     the sections, with what each measures
  all                      every section, one after the other
  <section>                one section, e.g. phase_unwrap

options:
  --samples N              samples per engine call (default: the section's, 64M for
                           phase_unwrap); K, M and G are binary: 64M = 67108864
  --repeats R              timed repeats per row after warm-up (default 20); CPU and
                           flowgraph rows take at most 3
  --flowgraph-samples N    samples per flowgraph run (default: the section's)
  --device DEV             auto (default), cpu, cuda or cuda:N; auto without a CUDA
                           device runs the CPU rows and skips the CUDA rows
  --json FILE              also write the rows as JSON to FILE
  -h, --help               this text

Each row gives the median, min and max of its repeats: device rows timed with CUDA
events, host and flowgraph rows with the wall clock. Ratio columns compare time per
sample. "x d2d copy" and "x pinned ..." are multiples of a copy floor of the same
bytes (1.0 is the floor): H2D+D2H is the two copies one after the other, H2D||D2H
both at once on two streams, the floor of an engine that overlaps them. "speed-up vs
cpu" is the CPU counterpart's time over the row's (engine rows against the CPU
engine, the CUDA flowgraph against the CPU flowgraph).
check: ok = the output matched a float64 reference; FAIL = it did not, and the row
then gets no ratio and no target; - = nothing to check.

Exit status: 0; 1 when a row failed its check or a measurement failed; 2 for bad usage.
)";

struct command_line {
    std::string section;
    std::string json_file;
    std::string device = "auto";
    bench::bench_options options;
};

std::string option_value(int argc, char** argv, int& i)
{
    if (i + 1 >= argc)
        throw std::invalid_argument(std::string(argv[i]) + " needs a value");
    return argv[++i];
}

command_line parse(int argc, char** argv)
{
    command_line cl;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--samples") {
            cl.options.samples = bench::parse_count(option_value(argc, argv, i), arg);
        } else if (arg == "--flowgraph-samples") {
            cl.options.flowgraph_samples =
                bench::parse_count(option_value(argc, argv, i), arg);
        } else if (arg == "--repeats") {
            const std::size_t repeats =
                bench::parse_count(option_value(argc, argv, i), arg);
            if (repeats > 100000)
                throw std::invalid_argument("--repeats must be in [1, 100000]");
            cl.options.repeats = int(repeats);
        } else if (arg == "--device") {
            cl.device = option_value(argc, argv, i);
        } else if (arg == "--json") {
            cl.json_file = option_value(argc, argv, i);
        } else if (!arg.empty() && arg[0] == '-') {
            throw std::invalid_argument("unknown option " + arg);
        } else if (cl.section.empty()) {
            cl.section = arg;
        } else {
            throw std::invalid_argument("one section only, got '" + cl.section +
                                        "' and '" + arg + "'");
        }
    }
    if (cl.section.empty())
        throw std::invalid_argument("name a section, 'all' or 'list'");
    return cl;
}

void list_sections()
{
    for (const auto& s : bench::registry())
        std::cout << s.name << "\n    " << s.description << "\n";
}

} // namespace

int main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "-h" || arg == "--help") {
            std::cout << usage_text;
            return 0;
        }
    }

    command_line cl;
    std::vector<const bench::section*> selected;
    bench::bench_device device;
    try {
        cl = parse(argc, argv);
        if (cl.section == "list") {
            list_sections();
            return 0;
        }
        for (const auto& s : bench::registry())
            if (cl.section == "all" || cl.section == s.name)
                selected.push_back(&s);
        if (selected.empty())
            throw std::invalid_argument("no section '" + cl.section +
                                        "'; 'cudadsp_bench list' names them");
        device = bench::resolve_device(cl.device);
    } catch (const std::exception& e) {
        std::cerr << "cudadsp_bench: " << e.what()
                  << " ('cudadsp_bench --help' for usage)\n";
        return 2;
    }

    // The floors and the sections' own buffers must live on the device the engines use.
    std::unique_ptr<gr::cudadsp::core::device_guard> guard;
    bool failed = false;
    std::vector<bench::section_report> reports;
    try {
        if (device.cuda)
            guard = std::make_unique<gr::cudadsp::core::device_guard>(device.ordinal);
        for (const bench::section* s : selected) {
            bench::section_report report(s->name);
            try {
                s->run(cl.options, device, report);
            } catch (const std::exception& e) {
                // Rows measured so far still print; the failure is the last row.
                report.error("section aborted", e.what());
            }
            bench::print_table(std::cout, report, device);
            failed = failed || report.any_failure();
            reports.push_back(std::move(report));
        }
    } catch (const std::exception& e) {
        std::cerr << "cudadsp_bench: " << e.what() << "\n";
        return 1;
    }

    if (!cl.json_file.empty()) {
        std::ofstream json(cl.json_file);
        bench::write_json(json, device, reports);
        json.close();
        if (!json) {
            std::cerr << "cudadsp_bench: cannot write " << cl.json_file << "\n";
            return 1;
        }
        std::cerr << "cudadsp_bench: wrote " << cl.json_file << "\n";
    }
    return failed ? 1 : 0;
}
