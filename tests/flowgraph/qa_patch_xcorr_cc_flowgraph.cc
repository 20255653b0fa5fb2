/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// patch_xcorr_cc inside GNU Radio flowgraphs, from C++: the block tier that runs on the
// GPU host. The engine is tested against a float64 reference in qa_patch_correlator;
// here the block fed line by line must give, bit for bit, the records of the engine's
// correlate() run on the whole images with the patch pairs of the documented grid
// (computed here from the header's definition, not from the block): no record lost,
// duplicated or moved across work() calls, only complete strips, a strip out as soon as
// its last line is in, one message per record. Known integer shifts give exact offsets.

#include "qa_fft_reference.h"
#include "qa_float_bits.h"
#include "qa_message_collector.h"
#include "qa_run_flowgraph.h"
#include "qa_stream_source.h"
#include "qa_support.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/core/patch_correlator.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <limits>
#include <mutex>
#include <sstream>
#include <thread>

namespace gr {
namespace cudadsp {

namespace {

using qa::run_or_die;

using cdouble = std::complex<double>;
using record = std::array<float, 5>; // x, dx, y, dy, corr

//! The block's parameters, in make()'s order (small patches: the tests run anywhere).
struct params {
    int width = 256;
    int nx = 4;
    int first_line = -1;
    int line_step = 20;
    int xsearch = 16;
    int ysearch = 8;
    int range_interp = 2;
    int interp = 16;
    int rshift = 0;
    int ashift = 0;
    std::string device = "cpu";

    patch_xcorr_cc::sptr make_block() const
    {
        return patch_xcorr_cc::make(width,
                                    nx,
                                    first_line,
                                    line_step,
                                    xsearch,
                                    ysearch,
                                    range_interp,
                                    interp,
                                    rshift,
                                    ashift,
                                    device);
    }

    core::patch_correlator_config engine_config() const
    {
        core::patch_correlator_config c;
        c.xsearch = xsearch;
        c.ysearch = ysearch;
        c.range_interp = range_interp;
        c.highres = interp > 0;
        c.interp = interp > 0 ? interp : 1;
        c.device = device;
        return c;
    }

    // The grid, from the header's definition (not from the block).
    int npx() const { return 4 * xsearch; }
    int npy() const { return 4 * ysearch; }
    //! Centre line of strip 0: first_line, or npy/2 + max(0, -ashift) when negative.
    long long line0() const
    {
        return first_line >= 0 ? first_line : npy() / 2 + std::max(0, -ashift);
    }
    long long strip_line(long long k) const { return line0() + k * line_step; }
    std::vector<int> columns() const
    {
        const int x_inc = (width - 6 * xsearch) / (nx + 3);
        std::vector<int> x;
        for (int i = 2; i <= nx + 1; ++i)
            x.push_back(4 * xsearch + i * x_inc);
        return x;
    }
    //! Strips whose windows (master rows y-npy/2 .. y+npy/2-1, aligned the same moved
    //! by ashift) all lie within the first \p lines lines.
    long long complete_strips(long long lines) const
    {
        long long k = 0;
        while (strip_line(k) + std::max(0, ashift) + npy() / 2 <= lines)
            ++k;
        return k;
    }

    std::string describe(const std::string& extra = "") const
    {
        std::ostringstream s;
        s << "patch_xcorr_cc(width " << width << ", nx " << nx << ", first_line "
          << first_line << ", line_step " << line_step << ", xsearch " << xsearch
          << ", ysearch " << ysearch << ", range_interp " << range_interp << ", interp "
          << interp << ", rshift " << rshift << ", ashift " << ashift << ", " << device
          << ")" << extra;
        return s.str();
    }
};

// ---------------------------------------------------------------------------------
// Synthetic images
// ---------------------------------------------------------------------------------

using qa::fft;
using qa::gaussian_source;
using qa::pow2_at_least;

/*! Band-limited complex speckle (spectrum flat inside |f| < 0.4 cycles/sample on both
 *  axes, zero outside) of rows x cols (powers of two), unit variance per component. */
std::vector<cdouble> speckle_field(long rows, long cols, gaussian_source& g)
{
    std::vector<cdouble> z(rows * cols);
    auto freq = [](long k, long n) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c)
            z[r * cols + c] =
                std::fabs(freq(r, rows)) < 0.4 && std::fabs(freq(c, cols)) < 0.4
                    ? g.complex_normal()
                    : 0.0;
    for (long r = 0; r < rows; ++r)
        fft(z.data() + r * cols, cols, true);
    for (long c = 0; c < cols; ++c)
        fft(z.data() + c, rows, true, cols);
    double power = 0.0;
    for (const auto& v : z)
        power += std::norm(v);
    const double k = 1.0 / std::sqrt(power / double(2 * z.size()));
    for (auto& v : z)
        v *= k;
    return z;
}

//! Two images of width x height lines, row-major, one line a stream item.
struct image_pair {
    int width = 0, height = 0;
    std::vector<gr_complex> master, aligned;

    core::image_view view(bool is_aligned) const
    {
        return { is_aligned ? aligned.data() : master.data(),
                 core::slc_sample_type::complex_float32,
                 std::size_t(width),
                 std::size_t(height) };
    }
    //! The first \p lines lines of an image.
    std::vector<gr_complex> lines(bool is_aligned, long lines) const
    {
        const auto& img = is_aligned ? aligned : master;
        return { img.begin(), img.begin() + lines * width };
    }
};

/*!
 * A synthetic SLC pair like int16 data (integer I and Q, about 300 RMS per component;
 * no sample is 0): the aligned image's content is the master's moved by \p dy lines and
 * \p dx samples (an integer shift: aligned[r][c] = master[r - dy][c - dx] where both
 * exist), mixed with independent speckle to coherence \p coherence. Fixed seed.
 */
image_pair
make_images(int width, int height, int dy, int dx, double coherence, std::uint64_t seed)
{
    gaussian_source g(seed);
    const long margin = 64;
    const long rows = pow2_at_least(height + 2 * margin);
    const long cols = pow2_at_least(width + 2 * margin);
    const auto common = speckle_field(rows, cols, g);
    const auto own = speckle_field(rows, cols, g);
    const double scale = 300.0;
    const double noise = std::sqrt(std::max(0.0, 1.0 - coherence * coherence));
    auto quantise = [&](cdouble v) {
        float re = float(std::round(scale * v.real()));
        float im = float(std::round(scale * v.imag()));
        re = std::max(-32767.0f, std::min(32767.0f, re));
        im = std::max(-32767.0f, std::min(32767.0f, im));
        if (re == 0.0f && im == 0.0f)
            re = 1.0f; // never a zero sample (a zero is GMTSAR's no-data)
        return gr_complex(re, im);
    };
    image_pair p;
    p.width = width;
    p.height = height;
    p.master.resize(std::size_t(width) * height);
    p.aligned.resize(p.master.size());
    for (long r = 0; r < height; ++r)
        for (long c = 0; c < width; ++c) {
            const long m = (r + margin) * cols + c + margin;
            const long a = (r + margin - dy) * cols + c + margin - dx;
            p.master[r * width + c] = quantise(common[m]);
            p.aligned[r * width + c] = quantise(coherence * common[a] + noise * own[a]);
        }
    return p;
}

// ---------------------------------------------------------------------------------
// Expected records: the engine on the whole images
// ---------------------------------------------------------------------------------

struct expected_records {
    std::vector<record> records;
    std::vector<long long> strips; //!< strip of each record
};

//! correlate() on the whole images with the grid's pairs of strips 0 .. nstrips-1.
expected_records engine_records(const params& p, const image_pair& img, long long nstrips)
{
    auto engine = core::patch_correlator::make(p.engine_config());
    const std::vector<int> columns = p.columns();
    std::vector<core::patch_pair> pairs;
    expected_records e;
    for (long long k = 0; k < nstrips; ++k) {
        const long long y = p.strip_line(k);
        for (int x : columns) {
            pairs.push_back({ x - p.npx() / 2,
                              y - p.npy() / 2,
                              x + p.rshift - p.npx() / 2,
                              y + p.ashift - p.npy() / 2 });
            e.strips.push_back(k);
        }
    }
    std::vector<core::patch_result> results(pairs.size());
    if (!pairs.empty())
        engine->correlate(
            img.view(false), img.view(true), pairs.data(), pairs.size(), results.data());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
        const core::patch_result& r = results[i];
        const long long y = p.strip_line(e.strips[i]);
        e.records.push_back({ float(columns[i % columns.size()]),
                              core::patch_offset_dx(r, p.range_interp, p.rshift),
                              float(y),
                              core::patch_offset_dy(r, p.ashift, 0),
                              r.corr });
    }
    return e;
}

// ---------------------------------------------------------------------------------
// Test blocks and flowgraphs
// ---------------------------------------------------------------------------------

using qa::message_collector;

//! A consumer of records that takes at most \p per_call items a call and sleeps
//! \p delay in each call: the block's output buffer fills and stays full.
class slow_record_sink : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<slow_record_sink>;
    static sptr make(int per_call, std::chrono::microseconds delay)
    {
        return gnuradio::make_block_sptr<slow_record_sink>(per_call, delay);
    }

    slow_record_sink(int per_call, std::chrono::microseconds delay)
        : gr::sync_block("slow_record_sink",
                         gr::io_signature::make(1, 1, sizeof(record)),
                         gr::io_signature::make(0, 0, 0)),
          d_per_call(per_call),
          d_delay(delay)
    {
    }

    int work(int noutput_items,
             gr_vector_const_void_star& input_items,
             gr_vector_void_star&) override
    {
        std::this_thread::sleep_for(d_delay);
        const int n = std::min(noutput_items, d_per_call);
        const auto* in = static_cast<const record*>(input_items[0]);
        std::lock_guard<std::mutex> lock(d_mutex);
        d_records.insert(d_records.end(), in, in + n);
        return n;
    }

    std::vector<float> data()
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        std::vector<float> out;
        for (const record& r : d_records)
            out.insert(out.end(), r.begin(), r.end());
        return out;
    }

private:
    const int d_per_call;
    const std::chrono::microseconds d_delay;
    std::mutex d_mutex;
    std::vector<record> d_records;
};

struct block_output {
    std::vector<float> stream; //!< 5 floats a record
    std::vector<pmt::pmt_t> messages;
};

//! How the test feeds the block and drains it.
struct run_options {
    long lines = -1;           //!< lines of each image to send; < 0: all
    int max_noutput = 0;       //!< set_max_noutput_items on the block; 0: none
    int slow_per_call = 0;     //!< > 0: a slow consumer taking this many records a call
    bool whole_buffer = false; //!< the source's buffer holds every line at once
};

block_output run_block(const params& p,
                       const image_pair& img,
                       const run_options& o,
                       const std::string& what = "")
{
    const long lines = o.lines < 0 ? img.height : o.lines;
    auto tb = gr::make_top_block("patch_xcorr_cc");
    auto src_m =
        gr::blocks::vector_source_c::make(img.lines(false, lines), false, p.width);
    auto src_a =
        gr::blocks::vector_source_c::make(img.lines(true, lines), false, p.width);
    if (o.whole_buffer) {
        src_m->set_min_output_buffer(lines + 1);
        src_a->set_min_output_buffer(lines + 1);
    }
    auto block = p.make_block();
    if (o.max_noutput > 0)
        block->set_max_noutput_items(o.max_noutput);
    auto collector = message_collector::make();
    tb->connect(src_m, 0, block, 0);
    tb->connect(src_a, 0, block, 1);
    tb->msg_connect(block, "patches", collector, "in");
    gr::blocks::vector_sink_f::sptr sink;
    slow_record_sink::sptr slow;
    if (o.slow_per_call > 0) {
        slow = slow_record_sink::make(o.slow_per_call, std::chrono::microseconds(300));
        tb->connect(block, 0, slow, 0);
    } else {
        sink = gr::blocks::vector_sink_f::make(5);
        tb->connect(block, 0, sink, 0);
    }
    run_or_die(tb, what.empty() ? p.describe() : what, 60.0);
    block_output out;
    out.stream = slow ? slow->data() : sink->data();
    out.messages = collector->messages();
    return out;
}

using qa::same_bits_or_nan;

std::string record_text(const float* r)
{
    std::ostringstream s;
    s.precision(9);
    s << "(x " << r[0] << ", dx " << r[1] << ", y " << r[2] << ", dy " << r[3]
      << ", corr " << r[4] << ")";
    return s.str();
}

double number_in(const pmt::pmt_t& dict, const char* key, const std::string& what)
{
    const pmt::pmt_t k = pmt::intern(key);
    CPPUNIT_ASSERT_MESSAGE(what + ": no key " + key, pmt::dict_has_key(dict, k));
    const pmt::pmt_t v = pmt::dict_ref(dict, k, pmt::PMT_NIL);
    CPPUNIT_ASSERT_MESSAGE(what + ": " + key + " not a number", pmt::is_number(v));
    return pmt::to_double(v);
}

/*! The block's stream equals the expected records bit for bit (NaN matching NaN), in
 *  order, and its messages, one a record in the same order, carry the same values and
 *  the record's strip, with the keys x, dx, y, dy, corr, strip and no others. */
void assert_same_records(const expected_records& e,
                         const block_output& got,
                         const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": whole records", std::size_t(0), got.stream.size() % 5);
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": records", e.records.size(), got.stream.size() / 5);
    for (std::size_t i = 0; i < e.records.size(); ++i) {
        const float* b = got.stream.data() + 5 * i;
        for (int f = 0; f < 5; ++f)
            if (!same_bits_or_nan(e.records[i][f], b[f]))
                CPPUNIT_FAIL(what + ": record " + std::to_string(i) + " (strip " +
                             std::to_string(e.strips[i]) + "): engine " +
                             record_text(e.records[i].data()) + ", block " +
                             record_text(b));
    }
    CPPUNIT_ASSERT_EQUAL_MESSAGE(
        what + ": messages", e.records.size(), got.messages.size());
    static const char* keys[] = { "x", "dx", "y", "dy", "corr" };
    for (std::size_t i = 0; i < e.records.size(); ++i) {
        const std::string m = what + ": message " + std::to_string(i);
        const pmt::pmt_t& d = got.messages[i];
        CPPUNIT_ASSERT_MESSAGE(m + ": not a dict", pmt::is_dict(d));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            m + ": keys", std::size_t(6), pmt::length(pmt::dict_keys(d)));
        for (int f = 0; f < 5; ++f) {
            const double v = number_in(d, keys[f], m);
            if (!same_bits_or_nan(e.records[i][f], float(v)) ||
                (!std::isnan(v) && double(float(v)) != v))
                CPPUNIT_FAIL(m + ": " + keys[f] + " " + std::to_string(v) + ", record " +
                             record_text(e.records[i].data()));
        }
        const pmt::pmt_t strip = pmt::dict_ref(d, pmt::intern("strip"), pmt::PMT_NIL);
        CPPUNIT_ASSERT_MESSAGE(m + ": strip not an integer", pmt::is_integer(strip));
        CPPUNIT_ASSERT_EQUAL_MESSAGE(
            m + ": strip", e.strips[i], (long long)pmt::to_long(strip));
        CPPUNIT_ASSERT_MESSAGE(
            m + ": x not an integer",
            pmt::is_integer(pmt::dict_ref(d, pmt::intern("x"), pmt::PMT_NIL)));
        CPPUNIT_ASSERT_MESSAGE(
            m + ": y not an integer",
            pmt::is_integer(pmt::dict_ref(d, pmt::intern("y"), pmt::PMT_NIL)));
    }
}

} // namespace

class qa_patch_xcorr_cc_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_patch_xcorr_cc_flowgraph);
    QA_BACKEND_TEST(records_match_engine);
    QA_BACKEND_TEST(integer_shifts_exact);
    QA_BACKEND_TEST(shifts_compensated_by_rshift_ashift);
    QA_BACKEND_TEST(negative_ashift_default_first_line);
    QA_BACKEND_TEST(only_complete_strips);
    QA_BACKEND_TEST(strip_out_when_its_last_line_arrives);
    QA_BACKEND_TEST(no_record_lost_with_small_calls_and_slow_consumer);
    QA_BACKEND_TEST(grid_getters_and_ports);
    CPPUNIT_TEST(auto_device_picks_cuda_else_cpu);
    CPPUNIT_TEST(bad_parameters);
    CPPUNIT_TEST_SUITE_END();

public:
    void records_match_engine(const std::string& device)
    {
        // Coherence 0.8 and a content offset of (+3 lines, -5 samples): varied dx, dy
        // and corr. Configurations: the defaults of the grid; strips overlapping
        // (line_step < npy) with ri 1, a coarse high-resolution step and shifted
        // windows; no high-resolution step, an explicit first line.
        const image_pair img = make_images(256, 200, 3, -5, 0.8, 11);
        std::vector<params> configs(3);
        configs[1].line_step = 7;
        configs[1].range_interp = 1;
        configs[1].interp = 4;
        configs[1].rshift = -4;
        configs[1].ashift = 2;
        configs[2].first_line = 50;
        configs[2].line_step = 31;
        configs[2].interp = 0;
        configs[2].nx = 7;
        for (params p : configs) {
            p.device = device;
            const auto e = engine_records(p, img, p.complete_strips(img.height));
            CPPUNIT_ASSERT_MESSAGE(p.describe(": no strip"), e.records.size() > 0);
            assert_same_records(e, run_block(p, img, {}), p.describe());
        }
    }

    void integer_shifts_exact(const std::string& device)
    {
        // aligned = master moved by (+3 lines, -5 samples), coherence 1, rshift =
        // ashift = 0: without the high-resolution step every record is exactly
        // dx = -5, dy = +3 (ri 1 and 2). With it, GMTSAR's sub-pixel estimate of an
        // integer offset need not be 0 (the masked surface is not symmetric about its
        // peak; with these small 32-line patches up to 2/16 in dy, and with ri 2 the
        // half-width range patches add a few 1/32 in dx): within 1/4 pixel, equal to the
        // engine's (which qa_patch_correlator checks against a float64 reference).
        const image_pair img = make_images(256, 160, 3, -5, 1.0, 21);
        for (int ri : { 1, 2 })
            for (int interp : { 0, 16 }) {
                params p;
                p.device = device;
                p.range_interp = ri;
                p.interp = interp;
                p.line_step = 16;
                const std::string what = p.describe(" shift (+3, -5)");
                const auto e = engine_records(p, img, p.complete_strips(img.height));
                const block_output got = run_block(p, img, {});
                assert_same_records(e, got, what);
                const double tol = interp ? 0.25 : 0.0;
                double worst_x = 0.0, worst_y = 0.0;
                std::size_t exact = 0;
                for (std::size_t i = 0; i < got.stream.size(); i += 5) {
                    worst_x = std::max(worst_x, std::fabs(got.stream[i + 1] + 5.0));
                    worst_y = std::max(worst_y, std::fabs(got.stream[i + 3] - 3.0));
                    exact += got.stream[i + 1] == -5.0f && got.stream[i + 3] == 3.0f;
                    const std::string r = what + ": " + record_text(&got.stream[i]);
                    CPPUNIT_ASSERT_MESSAGE(r, std::fabs(got.stream[i + 1] + 5.0) <= tol);
                    CPPUNIT_ASSERT_MESSAGE(r, std::fabs(got.stream[i + 3] - 3.0) <= tol);
                    CPPUNIT_ASSERT_MESSAGE(r + ": corr", got.stream[i + 4] > 99.0f);
                }
                CPPUNIT_ASSERT_MESSAGE(what, !got.stream.empty());
                std::cout << "qa_patch_xcorr_cc_flowgraph: " << what << ": " << exact
                          << " of " << got.stream.size() / 5
                          << " records exactly (-5, +3); largest error dx " << worst_x
                          << " dy " << worst_y << std::endl;
            }
    }

    void shifts_compensated_by_rshift_ashift(const std::string& device)
    {
        // A larger offset (+14 lines, -27 samples), beyond the search window: rshift
        // and ashift move the aligned windows onto it, exactly (residual 0) or to a
        // residual of (+1, -1). dx and dy include the shifts: exactly -27 and +14.
        const image_pair img = make_images(256, 200, 14, -27, 1.0, 31);
        for (int residual : { 0, 1 })
            for (int ri : { 1, 2 }) {
                params p;
                p.device = device;
                p.range_interp = ri;
                p.interp = 0;
                p.line_step = 25;
                p.rshift = -27 + residual;
                p.ashift = 14 - residual;
                const std::string what = p.describe(" shift (+14, -27)");
                const auto e = engine_records(p, img, p.complete_strips(img.height));
                const block_output got = run_block(p, img, {});
                assert_same_records(e, got, what);
                CPPUNIT_ASSERT_MESSAGE(what, !got.stream.empty());
                for (std::size_t i = 0; i < got.stream.size(); i += 5) {
                    const std::string r = what + ": " + record_text(&got.stream[i]);
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(r, -27.0f, got.stream[i + 1]);
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(r, 14.0f, got.stream[i + 3]);
                }
            }
    }

    void negative_ashift_default_first_line(const std::string& device)
    {
        // aligned content 9 lines above the master's: ashift = -9 with the default
        // first_line puts strip 0 at npy/2 + 9 = 25, where the aligned windows start at
        // line 0. Records equal the engine's and the offsets are exact.
        const image_pair img = make_images(256, 150, -9, 4, 1.0, 41);
        params p;
        p.device = device;
        p.interp = 0;
        p.line_step = 9;
        p.ashift = -9;
        p.rshift = 4;
        auto block = p.make_block();
        CPPUNIT_ASSERT_EQUAL(16LL + 9LL, block->strip_line(0));
        CPPUNIT_ASSERT_EQUAL(p.line0(), block->strip_line(0));
        const std::string what = p.describe();
        const auto e = engine_records(p, img, p.complete_strips(img.height));
        const block_output got = run_block(p, img, {});
        assert_same_records(e, got, what);
        // Strip 0 needs lines 0 .. 40 (master) and 0 .. 31 (aligned).
        CPPUNIT_ASSERT_EQUAL(std::size_t(p.nx) * ((150 - 41) / 9 + 1), e.records.size());
        for (std::size_t i = 0; i < got.stream.size(); i += 5) {
            const std::string r = what + ": " + record_text(&got.stream[i]);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r, 4.0f, got.stream[i + 1]);
            CPPUNIT_ASSERT_EQUAL_MESSAGE(r, -9.0f, got.stream[i + 3]);
        }
        // And with an ashift of -ysearch*4: strip 0 at npy/2 + 32.
        params q = p;
        q.ashift = -32;
        CPPUNIT_ASSERT_EQUAL(16LL + 32LL, q.make_block()->strip_line(0));
    }

    void only_complete_strips(const std::string& device)
    {
        // Streams ending mid-strip, just before and at the last line a strip needs:
        // exactly the strips whose lines (both images) all arrived, with positive and
        // negative ashift (the aligned windows end later or earlier than the master's).
        const image_pair img = make_images(256, 160, 3, -5, 0.9, 51);
        for (int ashift : { 0, 5, -5 }) {
            params p;
            p.device = device;
            p.line_step = 13;
            p.ashift = ashift;
            p.interp = 4;
            const long long last = p.strip_line(4) + std::max(0, ashift) + 16;
            for (long long lines : { last - 1, last, last + 5, 20LL, 0LL }) {
                const std::string what =
                    p.describe(" " + std::to_string(lines) + " lines");
                run_options o;
                o.lines = lines;
                const long long n = p.complete_strips(lines);
                const auto e = engine_records(p, img, n);
                assert_same_records(e, run_block(p, img, o), what);
                if (lines == last - 1)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 4LL, n);
                if (lines == last)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(what, 5LL, n);
            }
        }
    }

    void strip_out_when_its_last_line_arrives(const std::string& device)
    {
        // The source stops after the last line strip K needs and waits for strip K's
        // records downstream: they must come without a further line.
        const image_pair img = make_images(256, 160, 3, -5, 0.9, 61);
        for (int ashift : { 0, 6, -6 }) {
            params p;
            p.device = device;
            p.line_step = 11;
            p.ashift = ashift;
            const long long K = 3;
            const long pause_at = long(p.strip_line(K) + std::max(0, ashift) + 16);
            const std::string what =
                p.describe(" pause after line " + std::to_string(pause_at));
            gr::blocks::vector_sink_f::sptr sink;
            message_collector::sptr collector;
            auto ready = [&]() {
                return sink->data().size() >= std::size_t(5 * p.nx * (K + 1)) &&
                       collector->handled() >= std::size_t(p.nx * (K + 1));
            };
            auto tb = gr::make_top_block("patch_xcorr_cc_latency");
            auto src = qa::stream_source<gr_complex>::make(
                img.width, { img.master, img.aligned }, {}, pause_at, ready);
            auto block = p.make_block();
            sink = gr::blocks::vector_sink_f::make(5);
            collector = message_collector::make();
            tb->connect(src, 0, block, 0);
            tb->connect(src, 1, block, 1);
            tb->connect(block, 0, sink, 0);
            tb->msg_connect(block, "patches", collector, "in");
            run_or_die(tb, what, 60.0);
            CPPUNIT_ASSERT_MESSAGE(what + ": strip " + std::to_string(K) +
                                       " not out before the next line",
                                   !src->pause_timed_out());
            block_output got{ sink->data(), collector->messages() };
            assert_same_records(
                engine_records(p, img, p.complete_strips(img.height)), got, what);
        }
    }

    void no_record_lost_with_small_calls_and_slow_consumer(const std::string& device)
    {
        // Many strips (line_step 2, strips overlapping) through work() calls of at most
        // 1, 3 or nx+1 records, a consumer taking 1 or 3 records a call and sleeping in
        // between, and the whole image in the source's buffer at once: every record
        // once, in order, with its message.
        const image_pair img = make_images(256, 120, 3, -5, 0.9, 71);
        params p;
        p.device = device;
        p.line_step = 2;
        p.interp = 4;
        const auto e = engine_records(p, img, p.complete_strips(img.height));
        std::vector<run_options> runs;
        for (int max_noutput : { 1, 3, p.nx + 1 }) {
            run_options o;
            o.max_noutput = max_noutput;
            runs.push_back(o);
        }
        for (int per_call : { 1, 3 }) {
            run_options o;
            o.slow_per_call = per_call;
            runs.push_back(o);
        }
        for (bool slow : { false, true }) {
            run_options o;
            o.whole_buffer = true;
            o.slow_per_call = slow ? 2 : 0;
            runs.push_back(o);
        }
        run_options o;
        o.max_noutput = 2;
        o.slow_per_call = 1;
        o.whole_buffer = true;
        runs.push_back(o);
        for (const run_options& r : runs) {
            const std::string what =
                p.describe(" max_noutput_items " + std::to_string(r.max_noutput) +
                           ", slow consumer " + std::to_string(r.slow_per_call) +
                           (r.whole_buffer ? ", whole image buffered" : ""));
            assert_same_records(e, run_block(p, img, r, what), what);
        }
    }

    void grid_getters_and_ports(const std::string& device)
    {
        for (int width : { 256, 257, 300, 1000 })
            for (int nx : { 1, 4, 9 }) {
                params p;
                p.device = device;
                p.width = width;
                p.nx = nx;
                p.first_line = 40;
                p.line_step = 33;
                if (width - 6 * p.xsearch < nx + 3)
                    continue;
                auto block = p.make_block();
                const auto columns = p.columns();
                for (int i = 0; i < nx; ++i)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        p.describe(" column " + std::to_string(i)),
                        columns[i],
                        block->patch_column(i));
                CPPUNIT_ASSERT_THROW(block->patch_column(-1), std::out_of_range);
                CPPUNIT_ASSERT_THROW(block->patch_column(nx), std::out_of_range);
                for (long long k : { 0LL, 1LL, 7LL, 1000000LL })
                    CPPUNIT_ASSERT_EQUAL(40 + 33 * k, block->strip_line(k));
                CPPUNIT_ASSERT_EQUAL(device == "cpu" ? std::string("cpu")
                                                     : std::string("cuda:0"),
                                     block->backend());
                CPPUNIT_ASSERT_EQUAL(2, block->input_signature()->max_streams());
                CPPUNIT_ASSERT_EQUAL(1, block->output_signature()->max_streams());
                CPPUNIT_ASSERT_EQUAL(int(sizeof(gr_complex)) * width,
                                     block->input_signature()->sizeof_stream_item(0));
                CPPUNIT_ASSERT_EQUAL(int(sizeof(gr_complex)) * width,
                                     block->input_signature()->sizeof_stream_item(1));
                CPPUNIT_ASSERT_EQUAL(int(sizeof(float)) * 5,
                                     block->output_signature()->sizeof_stream_item(0));
                CPPUNIT_ASSERT_MESSAGE("message port patches",
                                       block->has_msg_port(pmt::intern("patches")));
            }
        // GMTSAR's defaults on a 2000-sample line.
        params p;
        p.device = device;
        p.width = 2000;
        p.nx = 16;
        p.xsearch = 64;
        p.ysearch = 64;
        auto block = p.make_block();
        const int x_inc = (2000 - 384) / 19; // 85
        CPPUNIT_ASSERT_EQUAL(256 + 2 * x_inc, block->patch_column(0));
        CPPUNIT_ASSERT_EQUAL(256 + 17 * x_inc, block->patch_column(15));
        CPPUNIT_ASSERT_EQUAL(128LL, block->strip_line(0));
    }

    void auto_device_picks_cuda_else_cpu()
    {
        params p;
        p.device = "auto";
        const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
        CPPUNIT_ASSERT_EQUAL(expected, p.make_block()->backend());
    }

    void bad_parameters()
    {
        auto expect_error = [](params p, const std::string& name) {
            try {
                p.make_block();
            } catch (const std::invalid_argument& e) {
                const std::string msg = e.what();
                CPPUNIT_ASSERT_MESSAGE(p.describe(": " + name + ": " + msg),
                                       msg.compare(0, name.size() + 1, name + ":") == 0);
                return;
            }
            CPPUNIT_FAIL(p.describe(": no std::invalid_argument for a bad " + name));
        };
        // One parameter changed from the defaults (which are valid).
        auto bad = [&](const std::string& name, const std::function<void(params&)>& set) {
            params p;
            set(p);
            expect_error(p, name);
        };
        for (int width : { 0, -5, 96, 96 + 6, 1 << 28, 1 << 30 })
            bad("width", [=](params& p) { p.width = width; });
        for (int nx : { 0, -1 })
            bad("nx", [=](params& p) { p.nx = nx; });
        for (int step : { 0, -3 })
            bad("line_step", [=](params& p) { p.line_step = step; });
        for (int first : { 0, 15 })
            bad("first_line", [=](params& p) { p.first_line = first; });
        bad("first_line", [](params& p) {
            p.ashift = -3;
            p.first_line = 18;
        });
        // Aligned windows off the line: the first column is 64 + 2 x_inc = 108, its
        // window starts at 108 - 32 + rshift; the last column is 174, ending at 206.
        for (int rshift : { -77, 51, 1000, -1000 })
            bad("rshift", [=](params& p) { p.rshift = rshift; });
        for (int xs : { 0, 4, 12, 2048 })
            bad("xsearch", [=](params& p) { p.xsearch = xs; });
        for (int ys : { 0, 24 })
            bad("ysearch", [=](params& p) { p.ysearch = ys; });
        for (int ri : { 0, 3, 32 })
            bad("range_interp", [=](params& p) { p.range_interp = ri; });
        for (int interp : { -1, 3, 128 })
            bad("interp", [=](params& p) { p.interp = interp; });
        for (const char* device : { "gpu", "cuda:x", "" })
            bad("device", [=](params& p) { p.device = device; });
        // The extremes that fit are accepted.
        auto good = [](const std::function<void(params&)>& set) {
            params p;
            set(p);
            CPPUNIT_ASSERT_NO_THROW_MESSAGE(p.describe(), p.make_block());
        };
        good([](params& p) { p.rshift = -76; });
        good([](params& p) { p.rshift = 50; });
        good([](params& p) { p.first_line = 16; });
        good([](params& p) {
            p.ashift = -3;
            p.first_line = 19;
        });
        good([](params& p) { p.width = 96 + 7; });
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_patch_xcorr_cc_flowgraph);

} // namespace cudadsp
} // namespace gr
