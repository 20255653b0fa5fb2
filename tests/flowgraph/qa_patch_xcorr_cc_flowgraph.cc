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
//
// The scene (parameters, grid, images, the engine's records) is in
// qa_patch_xcorr_scene.h, the runs of the block and their comparison in
// qa_patch_xcorr_block_run.h.

#include "qa_message_collector.h"
#include "qa_patch_xcorr_block_run.h"
#include "qa_patch_xcorr_scene.h"
#include "qa_run_flowgraph.h"
#include "qa_stream_source.h"
#include "qa_support.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/cudadsp/patch_xcorr_cc.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

using patch_xcorr_qa::assert_same_records;
using patch_xcorr_qa::block_output;
using patch_xcorr_qa::engine_records;
using patch_xcorr_qa::image_pair;
using patch_xcorr_qa::make_images;
using patch_xcorr_qa::params;
using patch_xcorr_qa::record_text;
using patch_xcorr_qa::run_block;
using patch_xcorr_qa::run_options;
using qa::message_collector;
using qa::run_or_die;

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
