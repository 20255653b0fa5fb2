/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the float64 reference, the random inputs and configurations, the
// engine runs and the comparison its cases share (declared in qa_st_tbd.h).

#include "qa_st_tbd.h"
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

std::vector<tbd_detection> reference_detections(const std::vector<float>& map,
                                                const std::vector<std::int32_t>& argmax,
                                                const st_tbd_config& c,
                                                std::uint64_t frame)
{
    const long w = long(c.width), h = long(c.height);
    struct cand {
        long x, y;
        float v;
    };
    std::vector<cand> found;
    for (long y = 0; y < h; ++y)
        for (long x = 0; x < w; ++x) {
            const float d = map[std::size_t(y * w + x)];
            if (!(d > c.threshold))
                continue;
            bool ok = true;
            for (long dy = -1; dy <= 1 && ok; ++dy)
                for (long dx = -1; dx <= 1 && ok; ++dx) {
                    if (dx == 0 && dy == 0)
                        continue;
                    const long u = x + dx, v = y + dy;
                    if (u < 0 || v < 0 || u >= w || v >= h)
                        continue;
                    const float n = map[std::size_t(v * w + u)];
                    const bool precedes = dy < 0 || (dy == 0 && dx < 0);
                    ok = precedes ? d > n : d >= n;
                }
            if (ok)
                found.push_back({ x, y, d });
        }
    std::stable_sort(found.begin(), found.end(), [](const cand& a, const cand& b) {
        return a.v > b.v; // row-major order kept among equal values
    });
    if (found.size() > c.max_detections_per_frame)
        found.resize(c.max_detections_per_frame);
    std::sort(found.begin(), found.end(), [](const cand& a, const cand& b) {
        return a.y != b.y ? a.y < b.y : a.x < b.x;
    });
    std::vector<tbd_detection> out;
    for (const cand& f : found) {
        const auto& hy = c.hypotheses[std::size_t(argmax[std::size_t(f.y * w + f.x)])];
        out.push_back(
            { frame, std::uint32_t(f.x), std::uint32_t(f.y), hy.vx, hy.vy, f.v });
    }
    return out;
}

std::vector<float>
gaussian_frames(std::size_t n, double mean, double sigma, std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<float> out(n);
    for (float& v : out)
        v = static_cast<float>(mean + sigma * g.complex_normal(2.0).real());
    return out;
}

std::vector<tbd_hypothesis> random_hypotheses(std::size_t m_count,
                                              std::size_t max_transitions,
                                              double max_shift,
                                              std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<tbd_hypothesis> hs(m_count);
    for (std::size_t m = 0; m < m_count; ++m) {
        hs[m].vx = float(g.uniform(-max_shift, max_shift));
        hs[m].vy = float(g.uniform(-max_shift, max_shift));
        const long k = g.integer(1, long(max_transitions));
        double total = 0.0;
        std::vector<double> ws(static_cast<std::size_t>(k));
        for (double& v : ws) {
            v = g.uniform(0.2, 1.0);
            total += v;
        }
        for (long i = 0; i < k; ++i) {
            tbd_transition t;
            t.source = i == 0 ? int(m) : int(g.integer(0, long(m_count) - 1));
            // Mostly fractional, sometimes whole cells.
            t.dx = i == 1 ? float(std::round(g.uniform(-3, 3)))
                          : float(g.uniform(-max_shift, max_shift));
            t.dy = float(g.uniform(-max_shift, max_shift));
            t.weight = float(ws[std::size_t(i)] / total * 0.98);
            hs[m].transitions.push_back(t);
        }
    }
    return hs;
}

st_tbd_config random_config(std::size_t w, std::size_t h, std::uint64_t seed)
{
    st_tbd_config c;
    c.width = w;
    c.height = h;
    c.hypotheses = random_hypotheses(5, 3, 3.6, seed);
    c.alpha = 0.85f;
    c.threshold = 0.5f;
    c.device = "cpu";
    return c;
}

run_output run(st_tbd& engine, const std::vector<float>& frames, std::size_t per_call)
{
    const std::size_t cells = engine.config().cells();
    const std::size_t n = frames.size() / cells;
    run_output out;
    out.map.assign(n * cells, nanf_);
    out.argmax.assign(n * cells, argmax_poison);
    for (std::size_t f = 0; f < n; f += per_call) {
        const std::size_t k = std::min(per_call, n - f);
        engine.process(frames.data() + f * cells,
                       k,
                       out.map.data() + f * cells,
                       out.argmax.data() + f * cells,
                       &out.detections);
    }
    out.state.assign(engine.config().hypotheses.size() * cells, nanf_);
    engine.read_state(out.state.data());
    return out;
}

std::string describe(const st_tbd_config& c)
{
    std::ostringstream s;
    s << c.width << "x" << c.height << " M=" << c.hypotheses.size() << " device "
      << c.device << " kernel " << c.kernel << " bilinear " << c.bilinear;
    return s.str();
}

void check_against_reference(const st_tbd_config& config,
                             const std::vector<float>& frames,
                             std::size_t per_call,
                             bool texture,
                             const std::string& what)
{
    auto engine = st_tbd::make(config);
    const run_output out = run(*engine, frames, per_call);
    reference ref(config);
    const std::size_t cells = config.cells();
    const std::size_t n = frames.size() / cells;
    double worst = 0.0;
    for (std::size_t f = 0; f < n; ++f) {
        ref.step(frames.data() + f * cells);
        const double soft = ref.software_tolerance();
        for (std::size_t y = 0; y < config.height; ++y)
            for (std::size_t x = 0; x < config.width; ++x) {
                std::size_t arg;
                double lead;
                const double d = ref.D(x, y, &arg, &lead);
                double tol = soft;
                if (texture) {
                    double e = 0.0;
                    for (std::size_t m = 0; m < ref.m_count; ++m)
                        e = std::max(e,
                                     ref.E[(m * config.height + y) * config.width + x]);
                    tol += e;
                }
                const std::size_t i = f * cells + y * config.width + x;
                const double err = std::fabs(double(out.map[i]) - d);
                worst = std::max(worst, err / tol);
                if (!(err <= tol)) {
                    std::ostringstream msg;
                    msg << what << " (" << describe(config) << "): frame " << f << " D("
                        << x << "," << y << ") = " << out.map[i] << ", reference " << d
                        << ", tolerance " << tol;
                    CPPUNIT_FAIL(msg.str());
                }
                CPPUNIT_ASSERT(out.argmax[i] >= 0 &&
                               std::size_t(out.argmax[i]) < ref.m_count);
                if (lead > 2 * tol && std::size_t(out.argmax[i]) != arg) {
                    std::ostringstream msg;
                    msg << what << ": frame " << f << " argmax(" << x << "," << y
                        << ") = " << out.argmax[i] << ", reference " << arg;
                    CPPUNIT_FAIL(msg.str());
                }
            }
        // The detections of this frame follow the rule on the engine's own map.
        std::vector<float> map(out.map.begin() + f * cells,
                               out.map.begin() + (f + 1) * cells);
        std::vector<std::int32_t> arg(out.argmax.begin() + f * cells,
                                      out.argmax.begin() + (f + 1) * cells);
        const auto expected = reference_detections(map, arg, config, f);
        std::vector<tbd_detection> got;
        for (const auto& d : out.detections)
            if (d.frame == f)
                got.push_back(d);
        CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": detections in frame " + std::to_string(f),
                                     expected.size(),
                                     got.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(expected[i].x, got[i].x);
            CPPUNIT_ASSERT_EQUAL(expected[i].y, got[i].y);
            CPPUNIT_ASSERT_EQUAL(expected[i].vx, got[i].vx);
            CPPUNIT_ASSERT_EQUAL(expected[i].vy, got[i].vy);
            CPPUNIT_ASSERT_EQUAL(expected[i].value, got[i].value);
        }
    }
    // Frame numbers increase.
    for (std::size_t i = 1; i < out.detections.size(); ++i)
        CPPUNIT_ASSERT(out.detections[i - 1].frame <= out.detections[i].frame);
    // The final state, every hypothesis.
    const double soft = ref.software_tolerance();
    for (std::size_t i = 0; i < out.state.size(); ++i) {
        const double tol = soft + (texture ? ref.E[i] : 0.0);
        if (!(std::fabs(double(out.state[i]) - ref.P[i]) <= tol)) {
            std::ostringstream msg;
            msg << what << ": state[" << i << "] = " << out.state[i] << ", reference "
                << ref.P[i] << ", tolerance " << tol;
            CPPUNIT_FAIL(msg.str());
        }
    }
    CPPUNIT_ASSERT_EQUAL(std::uint64_t(n), engine->frames_processed());
    std::cout << what << " (" << engine->implementation() << ", " << describe(config)
              << ", " << n << " frames): largest error " << worst << " of the tolerance"
              << std::endl;
}

std::vector<float>
target_scene(std::size_t w, std::size_t h, std::size_t n, std::uint64_t seed)
{
    std::vector<float> frames = gaussian_frames(w * h * n, 0.0, 0.5, seed);
    for (std::size_t f = 0; f < n; ++f) {
        const long x1 = 10 + long(f), y1 = 12;
        const long x2 = long(w) - 12 - long(f), y2 = 8 + long(f);
        frames[f * w * h + std::size_t(y1) * w + std::size_t(x1)] += 4.0f;
        frames[f * w * h + std::size_t(y2) * w + std::size_t(x2)] += 4.0f;
    }
    return frames;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
