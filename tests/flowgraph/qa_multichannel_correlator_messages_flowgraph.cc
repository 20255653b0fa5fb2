/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The multichannel correlator's channel messages under hostile input, on the CPU
// backend (messages are parsed and queued the same way whatever the backend): nesting
// deeper than the block takes, lists that only partly fit, many bad items in one
// message, and memory over tens of thousands of rejected messages.

#include "qa_support.h"
#include <gnuradio/block.h>
#include <gnuradio/blocks/null_sink.h>
#include <gnuradio/blocks/vector_source.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/io_signature.h>
#include <gnuradio/top_block.h>
#include <cppunit/extensions/HelperMacros.h>
#include <malloc.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

//! The correlator these tests send messages to: 4 Msps, the default three taps (early,
//! prompt, late), 1 ms batches, on the CPU.
multichannel_correlator_cc::sptr cpu_correlator(std::size_t max_channels,
                                                const pmt::pmt_t& channels)
{
    multichannel_correlator_block_config config;
    config.sample_rate_hz = 4e6;
    config.max_channels = max_channels;
    config.channels = channels;
    config.batch_ms = 1.0;
    config.device = "cpu";
    return multichannel_correlator_cc::make(config);
}

pmt::pmt_t channel(std::int64_t id, std::int64_t prn)
{
    pmt::pmt_t d = pmt::make_dict();
    d = pmt::dict_add(d, pmt::intern("id"), pmt::from_long(id));
    d = pmt::dict_add(d, pmt::intern("prn"), pmt::from_long(prn));
    d = pmt::dict_add(d, pmt::intern("mode"), pmt::intern("open_loop"));
    return d;
}

pmt::pmt_t list_of(const std::vector<pmt::pmt_t>& items)
{
    pmt::pmt_t v = pmt::make_vector(items.size(), pmt::PMT_NIL);
    for (std::size_t i = 0; i < items.size(); ++i)
        pmt::vector_set(v, i, items[i]);
    return v;
}

//! A list holding a list holding ... \p depth levels, a channel dict innermost.
pmt::pmt_t nested(std::size_t depth)
{
    pmt::pmt_t v = channel(1, 1);
    for (std::size_t i = 0; i < depth; ++i)
        v = pmt::list1(v);
    return v;
}

//! The std::invalid_argument text of \p f; fails when it throws none.
template <typename F>
std::string refusal_of(F f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    CPPUNIT_FAIL("no std::invalid_argument");
    return {};
}

void assert_contains(const std::string& text, const std::string& needle)
{
    if (text.find(needle) == std::string::npos)
        CPPUNIT_FAIL("\"" + needle + "\" not in: " + text);
}

#ifdef __SANITIZE_ADDRESS__
// libasan's allocator statistics; GCC 12 ships no header for them
// (sanitizer/allocator_interface.h is LLVM's).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

//! Memory this process holds, bytes: its resident set size; under AddressSanitizer the
//! live heap instead, because ASan keeps freed blocks in quarantine and the resident set
//! then grows by tens of MB with nothing leaked (tools/sanitize-test).
double memory_bytes()
{
#ifdef __SANITIZE_ADDRESS__
    return static_cast<double>(__sanitizer_get_current_allocated_bytes());
#else
    // The heap in use (every arena, and the blocks mapped on their own), not the
    // resident set: a queue that peaked while the block's thread was starved leaves
    // its freed pages resident in glibc's arenas, which a loaded machine showed as
    // 1.5 MB of RSS "growth" with nothing kept.
    const struct mallinfo2 heap = mallinfo2();
    return static_cast<double>(heap.uordblks + heap.hblkhd);
#endif
}

//! Counts the messages it receives and keeps the error texts of the first few.
class event_counter : public gr::block
{
public:
    event_counter()
        : gr::block("event_counter",
                    gr::io_signature::make(0, 0, 0),
                    gr::io_signature::make(0, 0, 0))
    {
        message_port_register_in(pmt::intern("in"));
        set_msg_handler(pmt::intern("in"), [this](const pmt::pmt_t& msg) {
            const pmt::pmt_t error =
                pmt::dict_ref(msg, pmt::intern("error"), pmt::PMT_NIL);
            std::lock_guard<std::mutex> lock(d_mutex);
            if (d_texts.size() < 8 && pmt::is_u8vector(error)) {
                const std::vector<std::uint8_t> bytes = pmt::u8vector_elements(error);
                d_texts.emplace_back(bytes.begin(), bytes.end());
            } else if (d_texts.size() < 8 && !pmt::is_null(error)) {
                // Checked by the texts' contents: an error must be a u8vector (not an
                // interned symbol).
                d_texts.push_back("not a u8vector: " + pmt::write_string(error));
            }
            ++d_count;
        });
    }
    std::size_t count() const { return d_count.load(); }
    //! Waits (up to a minute) until \p n messages have come: they are delivered on
    //! this block's thread, after the correlator published them.
    void wait_for(std::size_t n) const
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (count() < n && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    //! The error text that holds \p needle (messages of different ports come in any
    //! order); fails when none does.
    std::string text_with(const std::string& needle) const
    {
        std::string all;
        for (const std::string& text : texts()) {
            if (text.find(needle) != std::string::npos)
                return text;
            all += " | " + text;
        }
        CPPUNIT_FAIL("no error text holds \"" + needle + "\":" + all);
        return {};
    }
    std::vector<std::string> texts() const
    {
        std::lock_guard<std::mutex> lock(d_mutex);
        return d_texts;
    }

private:
    std::atomic<std::size_t> d_count{ 0 };
    mutable std::mutex d_mutex;
    std::vector<std::string> d_texts;
};

//! The correlator on an endless stream of zeros, its events counted or unconnected.
struct running_block {
    multichannel_correlator_cc::sptr blk;
    std::shared_ptr<event_counter> events;
    gr::top_block_sptr tb;

    running_block(bool connect_events, int max_channels)
    {
        blk = cpu_correlator(max_channels, pmt::PMT_NIL);
        blk->set_log_level("off"); // thousands of refusals, each an error log line
        tb = gr::make_top_block("qa_multichannel_correlator_messages_flowgraph");
        auto src = gr::blocks::vector_source_c::make(
            std::vector<gr_complex>(4096, gr_complex(0.0f, 0.0f)), true);
        tb->connect(src, 0, blk, 0);
        tb->connect(blk, 0, gr::blocks::null_sink::make(sizeof(gr_complex) * 3), 0);
        tb->connect(blk, 1, gr::blocks::null_sink::make(sizeof(double) * 17), 0);
        if (connect_events) {
            events = gnuradio::make_block_sptr<event_counter>();
            tb->msg_connect(blk, "events", events, "in");
        }
        tb->start();
    }
    ~running_block()
    {
        tb->stop();
        tb->wait();
    }
    void post(const char* port, const pmt::pmt_t& msg)
    {
        blk->to_basic_block()->_post(pmt::intern(port), msg);
    }
    //! Posts an add of channel \p id (valid) and waits until it runs: every message
    //! posted before it has been handled.
    void sync(std::uint32_t id)
    {
        post("add", channel(id, 1 + id % 32));
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        for (;;) {
            const auto ids = blk->channel_ids();
            if (std::find(ids.begin(), ids.end(), id) != ids.end())
                return;
            CPPUNIT_ASSERT(std::chrono::steady_clock::now() < deadline);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
};

/*!
 * Posts \p n refused messages, each with its own error text (a PRN or an id out of
 * range, distinct in every message), in bursts so that the message queue stays short.
 */
void post_refusals(running_block& rb,
                   std::size_t first,
                   std::size_t n,
                   std::uint32_t& sync)
{
    for (std::size_t i = first; i < first + n; ++i) {
        if (i % 2)
            rb.post("add", channel(1, 1000 + static_cast<std::int64_t>(i)));
        else
            rb.post("remove", pmt::from_long(10000000 + static_cast<long>(i)));
        if (i % 2000 == 1999)
            rb.sync(sync++);
    }
    rb.sync(sync++);
    rb.post("remove", pmt::intern("all"));
}

} // namespace

class qa_multichannel_correlator_messages_flowgraph : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator_messages_flowgraph);
    CPPUNIT_TEST(deep_nesting_is_refused_before_printing);
    CPPUNIT_TEST(partial_lists_are_refused_whole);
    CPPUNIT_TEST(many_bad_items_give_one_bounded_error);
    CPPUNIT_TEST(refused_messages_do_not_grow_memory);
    CPPUNIT_TEST(names_in_errors_are_quoted_and_cut);
    CPPUNIT_TEST_SUITE_END();

public:
    /*!
     * 100000 levels of lists around a channel (far beyond what printing the value
     * recursively survives): refused naming the nesting, by make(), the methods and
     * the message ports; the flowgraph goes on.
     */
    void deep_nesting_is_refused_before_printing()
    {
        const pmt::pmt_t deep = nested(100000);
        const pmt::pmt_t nine = nested(9); // list in ... list around a dict: too deep
        assert_contains(refusal_of([&] { cpu_correlator(8, deep); }),
                        "channels: nested deeper than 8 levels");
        running_block rb(true, 8);
        assert_contains(refusal_of([&] { rb.blk->add_channels(deep); }),
                        "add: nested deeper than 8 levels");
        assert_contains(refusal_of([&] { rb.blk->reinit_channels(nine); }),
                        "reinit: nested deeper than 8 levels");
        assert_contains(refusal_of([&] { rb.blk->remove_channels(deep); }),
                        "remove: nested deeper than 8 levels");
        rb.post("add", deep);
        rb.post("remove", deep);
        rb.sync(7);
        rb.events->wait_for(3); // 2 errors, 1 add
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), rb.events->count());
        rb.events->text_with("add: nested deeper than 8 levels");
        rb.events->text_with("remove: nested deeper than 8 levels");
        // Tear the value down a level at a time: its destructor recurses otherwise.
        for (pmt::pmt_t v = deep; pmt::is_pair(v);) {
            const pmt::pmt_t inner = pmt::car(v);
            pmt::set_car(v, pmt::PMT_NIL);
            v = inner;
        }
    }

    /*!
     * A list that only partly fits is refused whole and nothing of it is queued:
     * capacity, an id twice in the list, an id in use, an id queued for removal,
     * removing an absent id. The error names the item and the rule.
     */
    void partial_lists_are_refused_whole()
    {
        auto blk = cpu_correlator(4, list_of({ channel(1, 1), channel(2, 2) }));
        using method = void (multichannel_correlator_base::*)(const pmt::pmt_t&);
        const method add = &multichannel_correlator_base::add_channels;
        const method reinit = &multichannel_correlator_base::reinit_channels;
        const method remove = &multichannel_correlator_base::remove_channels;
        const struct {
            method call;
            pmt::pmt_t items;
            const char* needle;
        } refused[] = {
            { add,
              list_of({ channel(3, 3), channel(4, 4), channel(5, 5) }),
              "1 of 3 channels refused, none applied (all or nothing): channels[2].id: "
              "channel 5 would exceed max_channels = 4" },
            { add,
              list_of({ channel(3, 3), channel(3, 4) }),
              "channels[1].id: channel 3 already exists" },
            { add,
              list_of({ channel(3, 3), channel(1, 4) }),
              "channels[1].id: channel 1 already exists" },
            { reinit,
              list_of({ channel(2, 3), channel(9, 4) }),
              "channels[1].id: no channel 9" },
            { remove,
              list_of({ pmt::from_long(1), pmt::from_long(99) }),
              "ids[1].id: no channel 99" },
            // A parse error in one item refuses the others too.
            { add, list_of({ channel(3, 3), channel(4, 40) }), "channels[1].prn" },
        };
        for (const auto& r : refused) {
            assert_contains(refusal_of([&] { ((*blk).*r.call)(r.items); }), r.needle);
            CPPUNIT_ASSERT((blk->channel_ids() == std::vector<std::uint32_t>{ 1, 2 }));
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), blk->pending_changes());
        }

        // Checks count what is queued: remove 1, then 1 may be added again, but not 3
        // beyond the capacity.
        blk->remove_channels(pmt::from_long(1));
        blk->add_channels(list_of({ channel(1, 5), channel(3, 3), channel(4, 4) }));
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), blk->pending_changes());
        std::string text = refusal_of([&] { blk->add_channels(channel(5, 5)); });
        assert_contains(text, "id: channel 5 would exceed max_channels = 4");
        text = refusal_of([&] { blk->remove_channels(list_of({ pmt::from_long(7) })); });
        assert_contains(text, "id: no channel 7");
        CPPUNIT_ASSERT_EQUAL(std::size_t(4), blk->pending_changes());
    }

    /*!
     * A "system" or "mode" name is shown as the docs say of names: quoted, control
     * bytes escaped, cut at 80 characters (tests/fuzz found both echoed whole: a
     * terminal escape reached the log, a 100000-byte name gave a 100000-byte error).
     */
    void names_in_errors_are_quoted_and_cut()
    {
        auto blk = cpu_correlator(4, pmt::PMT_NIL);
        const std::string hostile = "\x1b]0;owned\x07" + std::string(100000, 'g');
        for (const char* key : { "system", "mode" }) {
            pmt::pmt_t d = channel(1, 1);
            d = pmt::dict_add(d, pmt::intern(key), pmt::intern(hostile));
            const std::string text = refusal_of([&] { blk->add_channels(d); });
            // Cut once the quoted text passes 80 bytes: 17 bytes of '"', the escaped
            // ESC, "]0;owned" and the escaped BEL, then 64 of the g's.
            const std::string shown =
                "got \"\\x1b]0;owned\\x07" + std::string(64, 'g') + "\"";
            assert_contains(text, std::string(key) + ": must be ");
            CPPUNIT_ASSERT_EQUAL(text.size() - shown.size(), text.find(shown));
            for (const char c : text)
                CPPUNIT_ASSERT(static_cast<unsigned char>(c) >= 0x20);
        }
        CPPUNIT_ASSERT(blk->channel_ids().empty());
    }

    /*!
     * 100000 bad items in one message (ids in use, absent ids, bad PRNs): one error
     * event of bounded length, naming the count and the first three items.
     */
    void many_bad_items_give_one_bounded_error()
    {
        running_block rb(true, 64);
        const std::size_t n = 100000;
        std::vector<pmt::pmt_t> bad_prns, absent_ids;
        for (std::size_t i = 0; i < n; ++i) {
            bad_prns.push_back(channel(static_cast<std::int64_t>(i), 33 + (i % 5)));
            absent_ids.push_back(pmt::from_long(static_cast<long>(1000 + i)));
        }
        rb.post("add", list_of(bad_prns));
        rb.post("remove", list_of(absent_ids));
        rb.sync(5);
        rb.events->wait_for(3); // 2 errors, 1 add
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), rb.events->count());
        const std::string add = rb.events->text_with("channels[0].prn");
        const std::string remove = rb.events->text_with("ids[0].id");
        for (const std::string& text : { add, remove }) {
            std::cout << "qa_multichannel_correlator_messages_flowgraph: " << text
                      << std::endl;
            CPPUNIT_ASSERT(text.size() < 600);
            assert_contains(text, "100000 of 100000");
            assert_contains(text, "and 99997 more");
        }
        assert_contains(add, "channels[0].prn: must be an integer in [1, 32]");
        assert_contains(remove, "ids[2].id: no channel 1002");
        CPPUNIT_ASSERT((rb.blk->channel_ids() == std::vector<std::uint32_t>{ 5 }));
    }

    /*!
     * 40000 refused messages, each with its own error text, with the events port
     * connected and unconnected: memory grows by less than 1 MB (an interned
     * symbol per error text cost about 130 bytes each, 5 MB here).
     */
    void refused_messages_do_not_grow_memory()
    {
        for (const bool connected : { true, false }) {
            running_block rb(connected, 64);
            std::uint32_t sync = 0;
            post_refusals(rb, 0, 4000, sync); // the allocator's pools settle
            const double before = memory_bytes();
            post_refusals(rb, 4000, 40000, sync);
            // Measured once the events are handled: what stays, not the events still
            // queued at the counter (their number depends on the threads' timing).
            if (connected)
                rb.events->wait_for(44000);
            const double growth = memory_bytes() - before;
            std::cout << "qa_multichannel_correlator_messages_flowgraph: 40000 refused "
                         "messages, events "
                      << (connected ? "connected" : "unconnected") << ": memory "
                      << growth / 1e3 << " kB more" << std::endl;
            if (connected)
                CPPUNIT_ASSERT(rb.events->count() >= 44000);
            CPPUNIT_ASSERT(growth < 1e6);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator_messages_flowgraph);

} // namespace cudadsp
} // namespace gr
