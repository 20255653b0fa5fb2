/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraphs, one per block, defined by family in soak_cases_<family>.cc. Each
// input is a deterministic function of the item index whose expected output is known in
// closed form (a delay, a power ratio, a phase slope, an image shift, a satellite's
// truth), so the sink checks the content of what arrives as well as its count, and an
// item lost or repeated shifts the stream off its definition. Each case also churns what
// the block takes at run time: reset messages and tags, scan messages and tags, channels
// added, re-initialised and removed, lost satellites, and malformed messages among them.
// This file: the list of cases and what they share.

#include "runtime/splitmix64.h"
#include "soak_case_builders.h"
#include <algorithm>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace soak {

float hashed_unit(std::uint64_t key)
{
    return static_cast<float>(
        static_cast<double>(core::splitmix64::mix(key) >> 11) * 0x1p-52 - 1.0);
}

gr_complex hashed_complex(std::uint64_t key)
{
    return { hashed_unit(2 * key), hashed_unit(2 * key + 1) };
}

double pmt_number(const pmt::pmt_t& x)
{
    if (pmt::is_uint64(x))
        return static_cast<double>(pmt::to_uint64(x));
    if (pmt::is_integer(x))
        return static_cast<double>(pmt::to_long(x));
    if (pmt::is_real(x))
        return pmt::to_double(x);
    return std::nan("");
}

std::uint64_t check_item_tags(const std::vector<gr::tag_t>& tags,
                              const pmt::pmt_t& key,
                              std::uint64_t first,
                              int n,
                              const std::function<double(std::uint64_t)>& value_of)
{
    std::uint64_t good = 0;
    for (const gr::tag_t& t : tags)
        if (pmt::eqv(t.key, key) && t.offset >= first && t.offset < first + n &&
            pmt_number(t.value) == value_of(t.offset))
            ++good;
    return static_cast<std::uint64_t>(n) - std::min<std::uint64_t>(good, n);
}

soak_flowgraph finish(gr::top_block_sptr tb,
                      counted_source::sptr source,
                      counted_sink::sptr sink,
                      std::function<std::uint64_t(std::uint64_t)> expected_out)
{
    soak_flowgraph f;
    f.tb = tb;
    f.source = source;
    f.items_out = [sink] { return sink->items(); };
    f.lost = [source, sink, expected_out] {
        return static_cast<std::int64_t>(expected_out(source->produced())) -
               static_cast<std::int64_t>(sink->items());
    };
    f.bad = [sink] { return sink->bad_items(); };
    f.messages = [] { return std::uint64_t(0); };
    f.messages_queued = [] { return std::uint64_t(0); };
    f.messages_queued_max = [] { return std::uint64_t(0); };
    f.churn = [](std::mt19937_64&) {};
    return f;
}

void count_messages(soak_flowgraph& f, const message_counter::sptr& counter)
{
    f.messages = [counter] { return counter->count(); };
    f.messages_queued = [counter] { return counter->queued(); };
    f.messages_queued_max = [counter] { return counter->queued_max(); };
}

std::vector<soak_case> soak_cases()
{
    return { { "phase_unwrap_ff", phase_unwrap_ff_soak },
             { "phase_unwrap_2d_ff", phase_unwrap_2d_ff_soak },
             { "cross_correlator_cc", cross_correlator_cc_soak },
             { "polarimetric_products_cf", polarimetric_products_cf_soak },
             { "kdp_ff", kdp_ff_soak },
             { "st_tbd_ff", st_tbd_ff_soak },
             { "patch_xcorr_cc", patch_xcorr_cc_soak },
             { "multichannel_correlator_cc", multichannel_correlator_cc_soak },
             { "pcps_acquisition_cc", pcps_acquisition_cc_soak } };
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
