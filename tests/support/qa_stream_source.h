/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_STREAM_SOURCE_H
#define INCLUDED_CUDADSP_QA_STREAM_SOURCE_H

// A source for the C++ flowgraph tests: fixed streams, tags and an optional pause.

#include <gnuradio/io_signature.h>
#include <gnuradio/sync_block.h>
#include <pmt/pmt.h>
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! A tag the source puts on output \p port at the absolute item \p offset.
struct stream_tag {
    int port;
    std::uint64_t offset;
    pmt::pmt_t key;
    pmt::pmt_t value;
};

/*!
 * \brief One output per stream, items of \p vlen T (a radial, a line, a sample), with
 * tags at absolute item offsets, and an optional pause: before producing item
 * \p pause_at it waits until \p ready() (at most 30 s; pause_timed_out() says whether
 * that ran out), then calls \p at_pause() if given, then goes on.
 *
 * Written for the tests because vector_source with tags and a small max_noutput_items
 * downstream deadlocked in GNU Radio 3.10.5, and because the pause lets a test act
 * between two known items (change a setting, check a latency). The streams must be
 * equally long.
 */
template <class T>
class stream_source : public gr::sync_block
{
public:
    using sptr = std::shared_ptr<stream_source>;
    static constexpr std::uint64_t no_pause = std::numeric_limits<std::uint64_t>::max();

    static sptr make(std::size_t vlen,
                     std::vector<std::vector<T>> streams,
                     std::vector<stream_tag> tags = {},
                     std::uint64_t pause_at = no_pause,
                     std::function<bool()> ready = {},
                     std::function<void()> at_pause = {})
    {
        return gnuradio::make_block_sptr<stream_source>(vlen,
                                                        std::move(streams),
                                                        std::move(tags),
                                                        pause_at,
                                                        std::move(ready),
                                                        std::move(at_pause));
    }

    stream_source(std::size_t vlen,
                  std::vector<std::vector<T>> streams,
                  std::vector<stream_tag> tags,
                  std::uint64_t pause_at,
                  std::function<bool()> ready,
                  std::function<void()> at_pause)
        : gr::sync_block("stream_source",
                         gr::io_signature::make(0, 0, 0),
                         gr::io_signature::make(static_cast<int>(streams.size()),
                                                static_cast<int>(streams.size()),
                                                sizeof(T) * vlen)),
          d_vlen(vlen),
          d_streams(std::move(streams)),
          d_tags(std::move(tags)),
          d_pause_at(pause_at),
          d_ready(std::move(ready)),
          d_at_pause(std::move(at_pause))
    {
    }

    bool pause_timed_out() const { return d_timed_out; }

    int work(int noutput_items,
             gr_vector_const_void_star&,
             gr_vector_void_star& output_items) override
    {
        const std::uint64_t total = d_streams[0].size() / d_vlen;
        if (d_pos >= total)
            return WORK_DONE;
        std::uint64_t n = std::min<std::uint64_t>(noutput_items, total - d_pos);
        if (!d_paused && d_pos < d_pause_at && d_pos + n > d_pause_at)
            n = d_pause_at - d_pos;
        if (!d_paused && d_pos == d_pause_at) {
            const auto deadline =
                std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (!d_ready()) {
                if (std::chrono::steady_clock::now() > deadline) {
                    d_timed_out = true;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
            }
            if (d_at_pause)
                d_at_pause();
            d_paused = true;
        }
        for (std::size_t s = 0; s < d_streams.size(); ++s)
            std::memcpy(output_items[s],
                        d_streams[s].data() + d_pos * d_vlen,
                        n * d_vlen * sizeof(T));
        for (const stream_tag& t : d_tags)
            if (t.offset >= d_pos && t.offset < d_pos + n)
                add_item_tag(t.port, t.offset, t.key, t.value);
        d_pos += n;
        return static_cast<int>(n);
    }

private:
    const std::size_t d_vlen;
    const std::vector<std::vector<T>> d_streams;
    const std::vector<stream_tag> d_tags;
    const std::uint64_t d_pause_at;
    std::function<bool()> d_ready;
    std::function<void()> d_at_pause;
    std::uint64_t d_pos = 0;
    bool d_paused = false;
    bool d_timed_out = false;
};

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_STREAM_SOURCE_H */
