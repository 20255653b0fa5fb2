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
#include "common/documentation_page.h"
#include "runtime/cuda_resources.h"
#include <boost/program_options.hpp>
#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

namespace bench = gr::cudadsp::bench;

namespace po = boost::program_options;

const char* const usage_synopsis = R"(usage: cudadsp_bench <section|all|list> [options]

Times gr-cudadsp engines and blocks side by side with the copy floors of the same
bytes, measured in the same run, and prints ratios: absolute times drift on a shared
machine, ratios within one run hold.

  list                     the sections, with what each measures
  all                      every section, one after the other
  <section>                one section, e.g. phase_unwrap
)";

const char* const usage_reading = R"(
Each row gives the median, min and max of its repeats: device rows timed with CUDA
events, host and flowgraph rows with the wall clock. Ratio columns compare time per
sample. "x d2d copy" and "x pinned ..." are multiples of a copy floor of the same
bytes (1.0 is the floor): H2D+D2H is the two copies one after the other, H2D||D2H
both at once on two streams, the floor of an engine that overlaps them. "speed-up vs
cpu" is the CPU counterpart's time over the row's (engine rows against the CPU
engine, the CUDA flowgraph against the CPU flowgraph).
check: ok = the output matched a float64 reference; FAIL = it did not, and the row
then gets no ratio and no target; - = nothing to check.

Environment: CUDADSP_BENCH_UNWRAP2D_DIR=<folder> makes section unwrap2d also write
its field and CUDA outputs there (raw files and unwrap2d.json), the input of
tools/unwrap2d-vs-skimage. CUDADSP_BENCH_GNSS_SDR_MS_PER_PRN=<ms or file> gives
section acquisition GNSS-SDR's acquisition time per PRN, measured elsewhere (a number,
or a file whose first word is one), for its GNSS-SDR row and ratios.

Exit status: 0; 1 when a row failed its check or a measurement failed; 2 for bad usage.
)";

constexpr int max_repeats = 100000;
// The width of the text around the options.
constexpr unsigned usage_line_length = 86;

struct command_line {
    bool help = false;
    std::string section;
    std::string json_file;
    std::string device = "auto";
    bench::bench_options options;
};

po::options_description visible_options()
{
    po::options_description options("options", usage_line_length);
    // Counts are read as text: parse_count takes the binary suffixes (64M).
    options.add_options()(
        "samples",
        po::value<std::string>()->value_name("N"),
        "samples per engine call (default: the section's, 64M for phase_unwrap); K, "
        "M and G are binary: 64M = 67108864")(
        "repeats",
        po::value<std::string>()->value_name("R"),
        "timed repeats per row after warm-up, 1 to 100000 (default 20); CPU and "
        "flowgraph rows take at most 3")(
        "flowgraph-samples",
        po::value<std::string>()->value_name("N"),
        "samples per flowgraph run (default: the section's)")(
        "device",
        po::value<std::string>()->value_name("DEV"),
        "auto (default), cpu, cuda or cuda:N; auto without a CUDA device runs the CPU "
        "rows and skips the CUDA rows")("json",
                                        po::value<std::string>()->value_name("FILE"),
                                        "also write the rows as JSON to FILE")(
        "help,h", "this text");
    return options;
}

void print_usage(const po::options_description& options)
{
    std::cout << usage_synopsis << '\n'
              << options << usage_reading
              << cudadsp_apps::documentation_line("performance.md");
}

std::size_t count_option(const po::variables_map& values, const std::string& name)
{
    return bench::parse_count(values[name].as<std::string>(), "--" + name);
}

command_line parse(int argc, char** argv, const po::options_description& options)
{
    po::options_description section_argument;
    section_argument.add_options()("section", po::value<std::string>());
    po::options_description all_options;
    all_options.add(options).add(section_argument);
    po::positional_options_description positional;
    positional.add("section", 1);

    po::variables_map values;
    try {
        po::store(po::command_line_parser(argc, argv)
                      .options(all_options)
                      .positional(positional)
                      .run(),
                  values);
    } catch (const po::too_many_positional_options_error&) {
        throw std::invalid_argument("one section only: name a section, 'all' or 'list'");
    }
    po::notify(values);

    command_line cl;
    if (values.count("help")) {
        cl.help = true;
        return cl;
    }
    if (values.count("samples"))
        cl.options.samples = count_option(values, "samples");
    if (values.count("flowgraph-samples"))
        cl.options.flowgraph_samples = count_option(values, "flowgraph-samples");
    if (values.count("repeats")) {
        const std::size_t repeats = count_option(values, "repeats");
        if (repeats > max_repeats)
            throw std::invalid_argument("--repeats must be in [1, " +
                                        std::to_string(max_repeats) + "]");
        cl.options.repeats = int(repeats);
    }
    if (values.count("device"))
        cl.device = values["device"].as<std::string>();
    if (values.count("json"))
        cl.json_file = values["json"].as<std::string>();
    if (values.count("section"))
        cl.section = values["section"].as<std::string>();
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
    const po::options_description options = visible_options();
    command_line cl;
    std::vector<const bench::section*> selected;
    bench::bench_device device;
    try {
        cl = parse(argc, argv, options);
        if (cl.help) {
            print_usage(options);
            return 0;
        }
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
        // po::error and the count parser both name the option at fault.
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
