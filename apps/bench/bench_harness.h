/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BENCH_HARNESS_H
#define INCLUDED_CUDADSP_BENCH_HARNESS_H

// Measurement code shared by every section of cudadsp_bench: the section registry,
// CUDA-event and wall-clock timing, the copy floors, and the result table (text and
// JSON). A section measures its rows in one run next to the floors, so that the
// ratios between rows hold even where absolute times drift on a shared machine.

#include <gnuradio/cudadsp/core/device.h>
#include <cuda_runtime_api.h>
#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {

//! Command-line settings shared by all sections; 0 means "the section's default".
struct bench_options {
    std::size_t samples = 0;
    int repeats = 20;
    std::size_t flowgraph_samples = 0;

    std::size_t samples_or(std::size_t section_default) const
    {
        return samples ? samples : section_default;
    }
    std::size_t flowgraph_samples_or(std::size_t section_default) const
    {
        return flowgraph_samples ? flowgraph_samples : section_default;
    }
};

//! The device the run uses. Without CUDA, sections skip their CUDA rows with skip_reason.
struct bench_device {
    bool cuda = false;
    int ordinal = -1;
    std::string device_string = "cpu"; //!< what engines and blocks are given: "cuda:N"
    std::string
        skip_reason; //!< short, on each skipped row: "no CUDA device", "--device cpu"
    std::string skip_detail; //!< for the header: what the CUDA runtime said
    core::cuda_device_info info;
    std::string driver_version;
    std::string runtime_version;
    std::string host_cpu; //!< CPU model and hardware threads, for the CPU rows
};

/*!
 * Resolve --device ("auto", "cpu", "cuda", "cuda:N"). "auto" without a CUDA device
 * gives a CPU-only run; an explicit "cuda..." that cannot be honoured throws.
 */
bench_device resolve_device(const std::string& device);

//! Median, min and max of the timed repeats (warm-up runs excluded), in milliseconds.
struct timing {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    int repeats = 0;
};

timing summarize(std::vector<double> ms);

/*!
 * Time the device work that \p enqueue puts on \p stream with a pair of CUDA events
 * around each repeat, after \p warmup untimed calls. Events measure device time only,
 * so launch overhead on the host does not count. The current device must own \p stream.
 */
timing time_cuda(cudaStream_t stream,
                 int warmup,
                 int repeats,
                 const std::function<void()>& enqueue);

/*! Time \p run on the host clock (std::chrono::steady_clock); \p run must return only
 *  when its work is complete (synchronise inside it for asynchronous work). */
timing time_host(int warmup, int repeats, const std::function<void()>& run);

//! How a row's result was checked.
enum class row_status {
    ok,        //!< output compared with the reference and matched
    unchecked, //!< nothing to compare (floors, flowgraphs into a null sink)
    failed,    //!< output did not match the reference: no ratio or target is reported
    error,     //!< the measurement threw
    skipped    //!< not run (no CUDA device)
};

struct ratio {
    std::string column;
    double value;
};

//! One line of the result table.
struct row {
    std::string name;
    std::string clock; //!< "events" or "wall"
    timing time;
    double samples = 0; //!< samples processed per timed repeat (0: not meaningful)
    double bytes = 0;   //!< bytes moved through memory or a bus per timed repeat
    row_status status = row_status::unchecked;
    std::string note;
    std::vector<ratio> ratios;
    std::string target;  //!< e.g. "<= 2.0 x d2d copy"
    int target_met = -1; //!< -1: no target, 0: missed, 1: met

    bool measured() const
    {
        return status == row_status::ok || status == row_status::unchecked;
    }
    double ms_per_sample() const { return time.median_ms / samples; }
};

/*!
 * The rows of one section. Ratio columns compare time per sample, so rows that
 * process different sample counts (a shorter CPU flowgraph run) compare fairly.
 * Rows that failed their check, errored or were skipped get no ratio and no target.
 */
class section_report
{
public:
    explicit section_report(std::string name) : d_name(std::move(name)) {}

    const std::string& name() const { return d_name; }
    void add_parameter(const std::string& key, const std::string& value);
    const std::vector<std::pair<std::string, std::string>>& parameters() const
    {
        return d_parameters;
    }

    //! A line printed below the table (and in the JSON "notes"): context for the rows.
    void add_note(const std::string& text);
    const std::vector<std::string>& notes() const { return d_notes; }

    /*! Run \p measure to fill a row named \p name; an exception it throws becomes an
     *  error row carrying the message, and the section goes on. */
    void measure(const std::string& name, const std::function<void(row&)>& measure);
    void skip(const std::string& name, const std::string& reason);
    //! A row named \p name that reports a failed measurement.
    void error(const std::string& name, const std::string& message);
    /*! A row named \p name whose times are the sums of those of rows \p a and \p b
     *  (the two copies of a host round trip); an error row when either is missing. */
    void add_sum(const std::string& name, const std::string& a, const std::string& b);

    //! Column "x <ref_label>": time per sample of \p name over that of \p ref.
    void ratio_to(const std::string& name,
                  const std::string& ref,
                  const std::string& ref_label);
    //! Column \p column: time per sample of \p ref over that of \p name (a speed-up).
    void speedup_over(const std::string& name,
                      const std::string& ref,
                      const std::string& column);
    /*! Column \p column: GB/s of \p name over GB/s of \p ref, each row counting the
     *  bytes it must move (a fraction of a floor's bandwidth, for rows that move other
     *  byte counts than their floor: a kernel that reads much and writes little). */
    void bandwidth_fraction_of(const std::string& name,
                               const std::string& ref,
                               const std::string& column);
    //! Target on an existing ratio column of \p name: ratio <= \p limit.
    void
    target_max_ratio(const std::string& name, const std::string& column, double limit);
    //! Target on an existing ratio column of \p name: ratio >= \p limit.
    void
    target_min_ratio(const std::string& name, const std::string& column, double limit);
    //! Target on throughput: Msamples/s >= \p limit.
    void target_min_msamples(const std::string& name, double limit);
    /*! Target on throughput in units of \p samples_per_unit samples (e.g. the samples
     *  of one pulse): units per second >= \p limit, shown as ">= <limit> <unit>/s". */
    void target_min_rate(const std::string& name,
                         double samples_per_unit,
                         double limit,
                         const std::string& unit);

    const std::vector<row>& rows() const { return d_rows; }
    //! Ratio columns in the order they were first filled.
    const std::vector<std::string>& ratio_columns() const { return d_ratio_columns; }
    //! True when any row failed its check or threw.
    bool any_failure() const;

private:
    row* find(const std::string& name);
    void add_ratio(row& r, const std::string& column, double value);

    std::string d_name;
    std::vector<std::pair<std::string, std::string>> d_parameters;
    std::vector<std::string> d_notes;
    std::vector<row> d_rows;
    std::vector<std::string> d_ratio_columns;
};

//! Aligned text table of \p report, headed by the section, its parameters and the device.
void print_table(std::ostream& os,
                 const section_report& report,
                 const bench_device& device);

//! The same rows as JSON, for every section of the run.
void write_json(std::ostream& os,
                const bench_device& device,
                const std::vector<section_report>& reports);

/*!
 * Copy floors, measured in the same run as the rows they are compared with. Each
 * allocates its own buffers of \p bytes, times cudaMemcpyAsync on a stream of its own
 * with CUDA events and returns a row with \p samples as its sample count.
 * d2d counts read + write (2 x bytes) for GB/s, like the kernels it is compared with.
 */
row floor_d2d_copy(std::size_t bytes, double samples, int repeats);
//! The names the floor functions give their rows, for the sections to refer to.
inline const std::string floor_row_d2d = "floor: d2d copy";
inline const std::string floor_row_h2d = "floor: pinned H2D";
inline const std::string floor_row_d2h = "floor: pinned D2H";
inline const std::string floor_row_h2d_d2h_concurrent = "floor: pinned H2D || D2H";
inline const std::string floor_row_h2d_plus_d2h = "floor: pinned H2D + D2H";

row floor_h2d_pinned(std::size_t bytes, double samples, int repeats);
row floor_d2h_pinned(std::size_t bytes, double samples, int repeats);
/*! H2D and D2H of \p bytes each at the same time on two streams: the floor of an
 *  engine that pipelines its host round trip, where GPUs with two copy engines move
 *  both directions at once and the sum of the two copies overstates the cost. */
row floor_h2d_d2h_concurrent_pinned(std::size_t bytes, double samples, int repeats);
//! As above with \p h2d_bytes up and \p d2h_bytes down (an engine that reads more
//! than it writes).
row floor_h2d_d2h_concurrent_pinned(std::size_t h2d_bytes,
                                    std::size_t d2h_bytes,
                                    double samples,
                                    int repeats);
/*! The d2d, pinned H2D and pinned D2H floors of \p bytes, then their sum
 *  (floor_row_h2d_plus_d2h): the floor of an engine that moves as much in as out, one
 *  direction after the other. */
void measure_round_trip_floors(section_report& report,
                               std::size_t bytes,
                               double samples,
                               int repeats);

//! A long step is under way (stderr, so that the table on stdout stays clean).
void progress(const std::string& section, const std::string& message);

//! Warns (through progress()) when \p bytes of device input would sit in the L2
//! cache, so that the device rows would time the cache rather than DRAM.
void warn_if_cache_resident(const std::string& section,
                            std::size_t bytes,
                            const bench_device& device);

//! "64M" = 64 * 2^20, "1K", "2G", or a plain count; throws std::invalid_argument.
std::size_t parse_count(const std::string& text, const std::string& option);

//! A section: fills \p report; CUDA rows are skipped when !device.cuda.
using section_function = std::function<void(
    const bench_options& options, const bench_device& device, section_report& report)>;

struct section {
    std::string name;
    std::string description;
    section_function run;
};

//! Sections in name order.
std::vector<section>& registry();

//! Registers a section at static initialisation; see CUDADSP_BENCH_SECTION.
struct section_registrar {
    section_registrar(const char* name, const char* description, section_function run);
};

} // namespace bench
} // namespace cudadsp
} // namespace gr

/*! Register a section from its own source file. Section sources must be compiled into
 *  the cudadsp_bench executable itself (not a static library, whose unreferenced
 *  objects the linker would drop together with their registrations). */
#define CUDADSP_BENCH_SECTION(ident, name, description, function)           \
    static const ::gr::cudadsp::bench::section_registrar ident##_registrar( \
        name, description, function)

#endif /* INCLUDED_CUDADSP_BENCH_HARNESS_H */
