/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_xcorr_block_run.h: the block in a flowgraph, and its records and messages
// compared with the engine's.

#include "qa_float_bits.h"
#include "qa_message_collector.h"
#include "qa_patch_xcorr_block_run.h"
#include "qa_run_flowgraph.h"
#include <gnuradio/blocks/vector_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <mutex>
#include <sstream>
#include <thread>

namespace gr {
namespace cudadsp {
namespace patch_xcorr_qa {

namespace {

using qa::message_collector;
using qa::run_or_die;
using qa::same_bits_or_nan;

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

double number_in(const pmt::pmt_t& dict, const char* key, const std::string& what)
{
    const pmt::pmt_t k = pmt::intern(key);
    CPPUNIT_ASSERT_MESSAGE(what + ": no key " + key, pmt::dict_has_key(dict, k));
    const pmt::pmt_t v = pmt::dict_ref(dict, k, pmt::PMT_NIL);
    CPPUNIT_ASSERT_MESSAGE(what + ": " + key + " not a number", pmt::is_number(v));
    return pmt::to_double(v);
}

} // namespace

block_output run_block(const params& p,
                       const image_pair& img,
                       const run_options& o,
                       const std::string& what)
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

std::string record_text(const float* r)
{
    std::ostringstream s;
    s.precision(9);
    s << "(x " << r[0] << ", dx " << r[1] << ", y " << r[2] << ", dy " << r[3]
      << ", corr " << r[4] << ")";
    return s.str();
}

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

} // namespace patch_xcorr_qa
} // namespace cudadsp
} // namespace gr
