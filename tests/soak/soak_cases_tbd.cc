/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The soak flowgraph of the track-before-detect family: st_tbd_ff.

#include "soak_case_builders.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <gnuradio/cudadsp/st_tbd_ff.h>
#include <algorithm>
#include <cmath>

namespace gr {
namespace cudadsp {
namespace soak {

// ---------------------------------------------------------------- st_tbd_ff
// One stationary hypothesis and frames c_f g(x, y) of one fixed pattern g: the state,
// however reset, stays s_f g, so D / g is one number per frame, and the argmax is 0.
soak_flowgraph st_tbd_ff_soak(const std::string& device, double seconds)
{
    constexpr int width = 48, height = 48, pixels = width * height;
    auto pattern = std::make_shared<std::vector<float>>(pixels);
    for (int p = 0; p < pixels; ++p)
        (*pattern)[p] = 0.75f + 0.25f * hashed_unit(p);
    auto fill = [pattern](std::uint64_t first, int n, gr_vector_void_star& out) {
        auto* o = static_cast<float*>(out[0]);
        for (int i = 0; i < n; ++i) {
            const float c = 1.0f + 0.25f * float((first + i) % 9);
            for (int p = 0; p < pixels; ++p)
                o[std::size_t(i) * pixels + p] = c * (*pattern)[p];
        }
    };
    const pmt::pmt_t key = pmt::mp("soak_item"), reset = pmt::mp("tbd_reset");
    auto tag = [key, reset](counted_source& s, std::uint64_t first, int n) {
        for (int i = 0; i < n; ++i) {
            s.tag(first + i, key, pmt::from_uint64(first + i));
            if ((first + i) % 101 == 100)
                s.tag(first + i, reset, pmt::PMT_T);
        }
    };
    auto check = [pattern, key](std::uint64_t first,
                                int n,
                                const gr_vector_const_void_star& in,
                                const std::vector<gr::tag_t>& tags) {
        const auto* d = static_cast<const float*>(in[0]);
        const auto* argmax = static_cast<const float*>(in[1]);
        std::uint64_t bad = check_item_tags(
            tags, key, first, n, [](std::uint64_t i) { return double(i); });
        for (int i = 0; i < n; ++i) {
            const float* map = d + std::size_t(i) * pixels;
            const double s = map[0] / (*pattern)[0];
            bool ok = s >= 0.0 && s <= 3.0 + 1e-4;
            for (int p = 29; p < pixels; p += 211)
                ok = ok && std::abs(map[p] / (*pattern)[p] - s) <= 1e-4 * (1.0 + s) &&
                     argmax[std::size_t(i) * pixels + p] == 0.0f;
            bad += ok ? 0 : 1;
        }
        return bad;
    };
    core::tbd_hypothesis still;
    still.transitions.push_back(core::tbd_transition{});
    auto source = counted_source::make({ sizeof(float) * pixels }, seconds, fill, tag);
    st_tbd_ff_config config;
    config.tbd.width = width;
    config.tbd.height = height;
    config.tbd.hypotheses = { still };
    config.tbd.threshold = 1.5f;
    config.tbd.device = device;
    config.tbd.max_detections_per_frame = 2;
    auto blk = st_tbd_ff::make(config);
    auto sink =
        counted_sink::make({ sizeof(float) * pixels, sizeof(float) * pixels }, check);
    auto detections = message_counter::make();
    auto tb = gr::make_top_block("soak_st_tbd_ff");
    tb->connect(source, 0, blk, 0);
    tb->connect(blk, 0, sink, 0);
    tb->connect(blk, 1, sink, 1);
    tb->msg_connect(blk, "detections", detections, "in");
    soak_flowgraph f = finish(tb, source, sink, [](std::uint64_t in) { return in; });
    count_messages(f, detections);
    // A detection dropped at the counter (which never stalls) is one lost.
    f.bad = [sink, blk] { return sink->bad_items() + blk->detections_dropped(); };
    f.churn = [blk](std::mt19937_64& rng) {
        if (rng() % 4 == 0)
            blk->_post(pmt::mp("reset"), pmt::PMT_T);
    };
    return f;
}

} // namespace soak
} // namespace cudadsp
} // namespace gr
