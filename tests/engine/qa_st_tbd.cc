/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Track-before-detect engine: CPU backend and the four CUDA variants (generic and
// generated kernel, software and texture bilinear) against a float64 reference written
// here from the equations of include/gnuradio/cudadsp/core/st_tbd.h (it does not use
// lib/core/tbd/st_tbd_rule.h), on random non-zero inputs from fixed seeds.
//
// Tolerances.
// - Software bilinear (CPU, CUDA software): the float32 state differs from the float64
//   reference by rounding alone. One frame rounds each term of the motion update a few
//   times (the bilinear weights, three lerps, the product by w, the sum over K
//   transitions: at most 6 + K roundings of a term no larger than S * Pmax, S the
//   largest sum of |w| of a hypothesis) and the information update twice. Errors of
//   the previous frame are carried with a factor alpha * S <= 1, so they add up at most
//   linearly: after t frames |P - P_ref| <= t * (8 + K) * 2^-24 * (S Pmax + Xmax) with
//   Pmax the largest |P_ref| so far. The test allows four times that.
// - Texture bilinear: the texture unit keeps each fractional coordinate in 8
//   fractional bits (|error| < 1/256) after rounding the float coordinate (at most
//   half an ulp of a coordinate below 2^13 cells: 2^-11), so each interpolation weight
//   is off by at most q = 1/256 + 1/2048 per axis and a sample by at most
//   (2 q + q^2) (max - min of its four cells). The test carries that bound through the
//   recursion cell by cell with the reference:
//     E_t[m](x, y) = alpha * sum_k |w_k| ((2q + q^2) range_k + max of E_{t-1} over the
//                    four cells read) + the rounding allowance above.
// - Reordering the generated kernel's lines changes only the order of a float32 sum of
//   K terms per hypothesis: two orders differ by at most 2 (K - 1) 2^-24 sum|terms| per
//   frame, covered by the software tolerance.
// - argmax is compared where the reference's best hypothesis leads the second by more
//   than twice the tolerance (elsewhere either answer is right at float32 precision).

#include "qa_support.h"
#include "runtime/nvrtc_program.h"
#include "tbd/st_tbd_kernel_source.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cuda_runtime_api.h>
#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <numeric>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const float nanf_ = std::numeric_limits<float>::quiet_NaN();
const float inff_ = std::numeric_limits<float>::infinity();
const double eps32 = std::ldexp(1.0, -24);
//! Weight error per axis of the texture unit (see the file comment).
const double texture_q = 1.0 / 256.0 + 1.0 / 2048.0;
const std::int32_t argmax_poison = -77;

// ---------------------------------------------------------------------------------
// float64 reference
// ---------------------------------------------------------------------------------

struct reference {
    const st_tbd_config c;
    std::size_t w, h, m_count;
    std::vector<double> P; //!< M * h * w
    std::vector<double> E; //!< texture error bound, same shape
    double pmax = 0.0, xmax = 0.0, sabs = 0.0;
    std::size_t kmax = 0;
    std::size_t frames = 0;
    double alpha;

    explicit reference(const st_tbd_config& config)
        : c(config),
          w(config.width),
          h(config.height),
          m_count(config.hypotheses.size()),
          P(m_count * w * h, 0.0),
          E(m_count * w * h, 0.0),
          alpha(config.alpha)
    {
        for (const auto& hy : c.hypotheses) {
            double s = 0.0;
            for (const auto& t : hy.transitions)
                s += std::fabs(double(t.weight));
            sabs = std::max(sabs, s);
            kmax = std::max(kmax, hy.transitions.size());
        }
    }

    double cell(const std::vector<double>& a, std::size_t m, long x, long y) const
    {
        if (x < 0 || y < 0 || x >= long(w) || y >= long(h))
            return 0.0;
        return a[(m * h + std::size_t(y)) * w + std::size_t(x)];
    }

    //! Bilinear value at (u, v) of plane m; range and the largest carried error too.
    double sample(std::size_t m, double u, double v, double& range, double& carried) const
    {
        const double fu = std::floor(u), fv = std::floor(v);
        const double a = u - fu, b = v - fv;
        const long x0 = long(fu), y0 = long(fv);
        const double p00 = cell(P, m, x0, y0), p01 = cell(P, m, x0 + 1, y0);
        const double p10 = cell(P, m, x0, y0 + 1), p11 = cell(P, m, x0 + 1, y0 + 1);
        range = std::max({ p00, p01, p10, p11 }) - std::min({ p00, p01, p10, p11 });
        carried = std::max({ cell(E, m, x0, y0),
                             cell(E, m, x0 + 1, y0),
                             cell(E, m, x0, y0 + 1),
                             cell(E, m, x0 + 1, y0 + 1) });
        return (1 - a) * (1 - b) * p00 + a * (1 - b) * p01 + (1 - a) * b * p10 +
               a * b * p11;
    }

    //! One frame; returns the tolerance of the software path for this frame's P.
    void step(const float* x)
    {
        std::vector<double> next(P.size()), enext(P.size());
        for (std::size_t i = 0; i < w * h; ++i)
            if (std::isfinite(x[i]))
                xmax = std::max(xmax, std::fabs(double(x[i])));
        for (std::size_t m = 0; m < m_count; ++m)
            for (std::size_t y = 0; y < h; ++y)
                for (std::size_t xx = 0; xx < w; ++xx) {
                    double v = 0.0, e = 0.0;
                    for (const auto& t : c.hypotheses[m].transitions) {
                        double range, carried;
                        v += double(t.weight) * sample(std::size_t(t.source),
                                                       double(xx) - double(t.dx),
                                                       double(y) - double(t.dy),
                                                       range,
                                                       carried);
                        e += std::fabs(double(t.weight)) *
                             ((2 * texture_q + texture_q * texture_q) * range + carried);
                    }
                    const float in = x[y * w + xx];
                    const double xin = std::isfinite(in) ? double(in) : 0.0;
                    const std::size_t i = (m * h + y) * w + xx;
                    next[i] = alpha * v + (1.0 - alpha) * xin;
                    enext[i] = alpha * e;
                }
        P.swap(next);
        E.swap(enext);
        for (double p : P)
            pmax = std::max(pmax, std::fabs(p));
        ++frames;
    }

    double software_tolerance() const
    {
        return 4.0 * double(frames) * double(8 + kmax) * eps32 * (sabs * pmax + xmax) +
               1e-30;
    }

    double D(std::size_t x,
             std::size_t y,
             std::size_t* arg = nullptr,
             double* lead = nullptr) const
    {
        double best = -std::numeric_limits<double>::infinity(), second = best;
        std::size_t a = 0;
        for (std::size_t m = 0; m < m_count; ++m) {
            const double p = P[(m * h + y) * w + x];
            if (p > best) {
                second = best;
                best = p;
                a = m;
            } else if (p > second) {
                second = p;
            }
        }
        if (arg)
            *arg = a;
        if (lead)
            *lead = best - second;
        return best;
    }
};

//! The detection rule written from the header, applied to a map (float32 values).
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

// ---------------------------------------------------------------------------------
// Inputs and configurations
// ---------------------------------------------------------------------------------

std::vector<float>
gaussian_frames(std::size_t n, double mean, double sigma, std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<float> out(n);
    for (float& v : out)
        v = static_cast<float>(mean + sigma * g.complex_normal(2.0).real());
    return out;
}

//! Random hypotheses: fractional shifts of both signs, several sources each.
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

struct run_output {
    std::vector<float> map;
    std::vector<std::int32_t> argmax;
    std::vector<float> state;
    std::vector<tbd_detection> detections;
};

//! Runs \p frames through \p engine in calls of \p per_call frames, outputs poisoned.
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

/*!
 * Runs \p config on \p frames (split into calls) and checks every frame's D and
 * argmax and the final state against the reference. texture: the texture bound.
 */
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

template <typename F>
void expect_invalid(F&& f, const std::string& field)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        const std::string msg = e.what();
        if (msg.find(field) == std::string::npos)
            CPPUNIT_FAIL("error \"" + msg + "\" does not name " + field);
        return;
    }
    CPPUNIT_FAIL("no std::invalid_argument for " + field);
}

std::string temp_dir()
{
    char pattern[] = "/tmp/qa_st_tbd_XXXXXX";
    const char* dir = mkdtemp(pattern);
    CPPUNIT_ASSERT(dir != nullptr);
    return dir;
}

//! A scene with clear targets: two movers on Gaussian noise.
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

} // namespace

class qa_st_tbd : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_st_tbd);
    CPPUNIT_TEST(bad_configuration);
    CPPUNIT_TEST(velocity_grid_structure);
    CPPUNIT_TEST(lines_are_hypothesis_major);
    CPPUNIT_TEST(cpu_random_transitions);
    CPPUNIT_TEST(cpu_large_shifts_and_border);
    CPPUNIT_TEST(cpu_whole_cell_shift_known_truth);
    CPPUNIT_TEST(cpu_velocity_grid_scene);
    CPPUNIT_TEST(cpu_argmax_ties);
    CPPUNIT_TEST(cpu_detection_rule);
    CPPUNIT_TEST(cpu_max_detections_keeps_largest);
    CPPUNIT_TEST(cpu_non_finite_input);
    CPPUNIT_TEST(cpu_reset_and_setters);
    CPPUNIT_TEST(cpu_frame_time_keeps_state);
    CPPUNIT_TEST(cpu_outputs_optional);
    CPPUNIT_TEST(generated_source_compiles_with_nvrtc);
    QA_BACKEND_TEST(float_argmax);
    QA_CUDA_TEST(generic_kernel_software_bilinear);
    QA_CUDA_TEST(generic_kernel_texture_bilinear);
    QA_CUDA_TEST(generated_kernel_software_bilinear);
    QA_CUDA_TEST(generated_kernel_texture_bilinear);
    QA_CUDA_TEST(auto_choice);
    QA_CUDA_TEST(detections_match_cpu);
    QA_CUDA_TEST(line_order_permutation);
    QA_CUDA_TEST(device_entry_point);
    QA_CUDA_TEST(caller_stream_destroyed_before_engine);
    QA_CUDA_TEST(reset_and_frame_time);
    QA_CUDA_TEST(autotune_and_cache);
    QA_CUDA_TEST(pinned_host_buffers);
    CPPUNIT_TEST_SUITE_END();

public:
    void bad_configuration()
    {
        const st_tbd_config good = random_config(8, 6, 1);
        good.validate();
        auto bad = [&](auto change, const std::string& field) {
            st_tbd_config c = good;
            change(c);
            expect_invalid([&] { c.validate(); }, field);
            expect_invalid([&] { st_tbd::make(c); }, field);
        };
        bad([](st_tbd_config& c) { c.width = 0; }, "width");
        bad([](st_tbd_config& c) { c.height = 0; }, "height");
        bad([](st_tbd_config& c) { c.width = std::size_t(1) << 19; }, "width");
        bad([](st_tbd_config& c) { c.width = c.height = std::size_t(1) << 17; },
            "width * height");
        bad([](st_tbd_config& c) { c.hypotheses.clear(); }, "hypotheses");
        bad([](st_tbd_config& c) { c.hypotheses[2].transitions.clear(); },
            "hypotheses[2].transitions");
        bad([](st_tbd_config& c) { c.hypotheses[1].transitions[0].source = 5; },
            "hypotheses[1].transitions[0].source");
        bad([](st_tbd_config& c) { c.hypotheses[1].transitions[0].source = -1; },
            "hypotheses[1].transitions[0].source");
        bad([](st_tbd_config& c) { c.hypotheses[3].transitions[0].dx = nanf_; },
            "hypotheses[3].transitions[0].dx");
        bad([](st_tbd_config& c) { c.hypotheses[0].transitions[0].dy = -64.5f; },
            "hypotheses[0].transitions[0].dy");
        bad([](st_tbd_config& c) { c.hypotheses[0].transitions[0].weight = inff_; },
            "hypotheses[0].transitions[0].weight");
        bad([](st_tbd_config& c) { c.hypotheses[4].vx = nanf_; }, "hypotheses[4].vx");
        // Physical bounds (issue 16 item 9): a velocity no transition can follow, and
        // weights that create mass.
        bad([](st_tbd_config& c) { c.hypotheses[4].vy = 64.5f; }, "hypotheses[4].vy");
        bad([](st_tbd_config& c) { c.hypotheses[1].vx = -1e30f; }, "hypotheses[1].vx");
        bad([](st_tbd_config& c) { c.hypotheses[0].transitions[0].weight = 1e30f; },
            "hypotheses[0].transitions");
        bad(
            [](st_tbd_config& c) {
                c.hypotheses[2].transitions.assign(
                    2, { 2, 0.0f, 0.0f, std::nextafter(0.5f, 1.0f) * 1.00001f });
            },
            "hypotheses[2].transitions");
        bad(
            [](st_tbd_config& c) {
                c.hypotheses[3].transitions.assign(3, { 3, 0.0f, 0.0f, -0.34f });
            },
            "hypotheses[3].transitions");
        {
            // Weights meant to sum to 1, as float32 rounds them (3 x 0.33333334f is
            // 1.00000003), and velocities at the limit, pass.
            st_tbd_config c = good;
            c.hypotheses[2].transitions.assign(3, { 2, 0.0f, 0.0f, 1.0f / 3.0f });
            c.hypotheses[4].vx = -tbd_max_shift_px;
            c.validate();
        }
        bad([](st_tbd_config& c) { c.alpha = 0.0f; }, "alpha");
        bad([](st_tbd_config& c) { c.alpha = 1.0f; }, "alpha");
        bad([](st_tbd_config& c) { c.alpha = nanf_; }, "alpha");
        bad([](st_tbd_config& c) { c.threshold = nanf_; }, "threshold");
        bad([](st_tbd_config& c) { c.threshold = -inff_; }, "threshold");
        bad([](st_tbd_config& c) { c.max_detections_per_frame = 0; },
            "max_detections_per_frame");
        bad([](st_tbd_config& c) { c.device = "gpu"; }, "device");
        bad([](st_tbd_config& c) { c.device = "cuda:x"; }, "device");
        bad([](st_tbd_config& c) { c.kernel = "fast"; }, "kernel");
        bad([](st_tbd_config& c) { c.bilinear = "nearest"; }, "bilinear");
        bad([](st_tbd_config& c) { c.autotune_iterations = 0; }, "autotune_iterations");
        bad([](st_tbd_config& c) { c.autotune_seconds = 0.0; }, "autotune_seconds");
        bad([](st_tbd_config& c) { c.autotune_seconds = nanf_; }, "autotune_seconds");
        // A caller's string is shown quoted, control bytes escaped, cut at 80
        // characters (tests/fuzz found the strings echoed whole).
        for (const char* field : { "device", "kernel", "bilinear" }) {
            st_tbd_config c = good;
            const std::string hostile = "\x1b[2J" + std::string(100000, 'x');
            (std::string(field) == "device"   ? c.device
             : std::string(field) == "kernel" ? c.kernel
                                              : c.bilinear) = hostile;
            std::string text;
            try {
                c.validate();
            } catch (const std::invalid_argument& e) {
                text = e.what();
            }
            // Cut once the quoted text passes 80 bytes: 8 bytes of '"', the escaped
            // ESC and "[2J", then 73 of the x's.
            const std::string shown = "got \"\\x1b[2J" + std::string(73, 'x') + "\"";
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), text.find(field));
            CPPUNIT_ASSERT_EQUAL(text.size() - shown.size(), text.find(shown));
        }
        // Limits themselves are valid.
        st_tbd_config edge = good;
        edge.hypotheses[0].transitions[0].dx = -64.0f;
        edge.hypotheses[0].transitions[0].dy = 64.0f;
        edge.validate();

        expect_invalid([] { st_tbd_config::velocity_grid(-1.0f, 1.0f, 0.1f); }, "vmax");
        expect_invalid([] { st_tbd_config::velocity_grid(65.0f, 1.0f, 0.1f); }, "vmax");
        expect_invalid([] { st_tbd_config::velocity_grid(1.0f, 0.0f, 0.1f); }, "step");
        expect_invalid([] { st_tbd_config::velocity_grid(1.0f, nanf_, 0.1f); }, "step");
        expect_invalid([] { st_tbd_config::velocity_grid(1.0f, 1.0f, 1.0f); }, "spread");
        expect_invalid([] { st_tbd_config::velocity_grid(1.0f, 1.0f, -0.1f); }, "spread");
        expect_invalid([] { st_tbd_config::velocity_grid(40.0f, 0.5f, 0.1f); }, "vmax");

        auto engine = st_tbd::make(good);
        expect_invalid([&] { engine->set_alpha(1.5f); }, "alpha");
        expect_invalid([&] { engine->set_alpha(0.0f); }, "alpha");
        expect_invalid([&] { engine->set_threshold(nanf_); }, "threshold");
        CPPUNIT_ASSERT_EQUAL(good.alpha, engine->config().alpha);
        CPPUNIT_ASSERT_THROW(
            engine->process_device(nullptr, 1, nullptr, nullptr, nullptr),
            std::logic_error);
        CPPUNIT_ASSERT_THROW(engine->set_line_order({ 0 }), std::logic_error);
        CPPUNIT_ASSERT(engine->line_order().empty());
        CPPUNIT_ASSERT_EQUAL(std::string(""), engine->line_order_source());
    }

    void velocity_grid_structure()
    {
        const float spread = 0.2f;
        const auto g = st_tbd_config::velocity_grid(1.0f, 1.0f, spread);
        CPPUNIT_ASSERT_EQUAL(std::size_t(9), g.size());
        const float v[3] = { -1.0f, 0.0f, 1.0f };
        std::vector<double> given(9, 0.0);
        for (int iy = 0; iy < 3; ++iy)
            for (int ix = 0; ix < 3; ++ix) {
                const auto& h = g[std::size_t(iy * 3 + ix)];
                CPPUNIT_ASSERT_EQUAL(v[ix], h.vx);
                CPPUNIT_ASSERT_EQUAL(v[iy], h.vy);
                const int neighbours = (ix > 0) + (ix < 2) + (iy > 0) + (iy < 2);
                CPPUNIT_ASSERT_EQUAL(std::size_t(1 + neighbours), h.transitions.size());
                CPPUNIT_ASSERT_EQUAL(iy * 3 + ix, h.transitions[0].source);
                CPPUNIT_ASSERT_DOUBLES_EQUAL(
                    1.0 - neighbours * spread / 4.0, h.transitions[0].weight, 1e-7);
                double sum = 0.0;
                int previous = -1;
                for (std::size_t k = 0; k < h.transitions.size(); ++k) {
                    const auto& t = h.transitions[k];
                    CPPUNIT_ASSERT_EQUAL(h.vx, t.dx);
                    CPPUNIT_ASSERT_EQUAL(h.vy, t.dy);
                    sum += t.weight;
                    given[std::size_t(t.source)] += t.weight;
                    if (k > 0) {
                        CPPUNIT_ASSERT_DOUBLES_EQUAL(spread / 4.0, t.weight, 1e-7);
                        CPPUNIT_ASSERT(t.source > previous);
                        previous = t.source;
                        const int sx = t.source % 3, sy = t.source / 3;
                        CPPUNIT_ASSERT_EQUAL(1, std::abs(sx - ix) + std::abs(sy - iy));
                    }
                }
                CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, sum, 1e-6);
            }
        for (double total : given) // doubly stochastic: every hypothesis gives away 1
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, total, 1e-6);

        const auto fine = st_tbd_config::velocity_grid(1.0f, 0.5f, 0.0f);
        CPPUNIT_ASSERT_EQUAL(std::size_t(25), fine.size());
        CPPUNIT_ASSERT_EQUAL(-0.5f, fine[1].vx);
        CPPUNIT_ASSERT_EQUAL(1.0f, fine[24].vy);
        for (const auto& h : fine) {
            CPPUNIT_ASSERT_EQUAL(std::size_t(1), h.transitions.size());
            CPPUNIT_ASSERT_EQUAL(1.0f, h.transitions[0].weight);
        }
        // vmax not a multiple of step: the grid stops below vmax.
        const auto odd = st_tbd_config::velocity_grid(1.0f, 0.75f, 0.1f);
        CPPUNIT_ASSERT_EQUAL(std::size_t(9), odd.size());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.5, odd[8].vx, 1e-7);
        const auto single = st_tbd_config::velocity_grid(0.0f, 1.0f, 0.3f);
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), single.size());
        CPPUNIT_ASSERT_EQUAL(std::size_t(1), single[0].transitions.size());
        CPPUNIT_ASSERT_EQUAL(1.0f, single[0].transitions[0].weight);
    }

    void lines_are_hypothesis_major()
    {
        const st_tbd_config c = random_config(4, 4, 2);
        const auto lines = st_tbd::lines(c);
        std::size_t i = 0;
        for (std::size_t m = 0; m < c.hypotheses.size(); ++m)
            for (std::size_t k = 0; k < c.hypotheses[m].transitions.size(); ++k, ++i) {
                CPPUNIT_ASSERT_EQUAL(m, lines[i].hypothesis);
                CPPUNIT_ASSERT_EQUAL(k, lines[i].transition);
            }
        CPPUNIT_ASSERT_EQUAL(i, lines.size());
    }

    void cpu_random_transitions()
    {
        for (std::uint64_t seed : { 11u, 12u, 13u }) {
            st_tbd_config c = random_config(23, 17, seed);
            const auto frames = gaussian_frames(c.cells() * 7, 0.3, 1.0, seed + 100);
            check_against_reference(c, frames, 7, false, "cpu one call");
            check_against_reference(c, frames, 3, false, "cpu calls of 3");
        }
        // One row, one column, one cell.
        for (auto wh : { std::pair<int, int>{ 1, 9 }, { 11, 1 }, { 1, 1 } }) {
            st_tbd_config c =
                random_config(std::size_t(wh.first), std::size_t(wh.second), 5);
            check_against_reference(c,
                                    gaussian_frames(c.cells() * 4, 0.5, 1.0, 6),
                                    2,
                                    false,
                                    "cpu thin grid");
        }
    }

    void cpu_large_shifts_and_border()
    {
        st_tbd_config c;
        c.width = 71;
        c.height = 9;
        c.device = "cpu";
        c.alpha = 0.7f;
        c.threshold = 0.2f;
        c.hypotheses.resize(3);
        c.hypotheses[0].transitions = { { 0, 63.75f, -0.5f, 0.5f },
                                        { 1, -64.0f, 0.25f, 0.4f } };
        c.hypotheses[1].transitions = { { 1, -2.5f, 8.75f, 0.6f },
                                        { 2, 0.0f, 0.0f, 0.3f } };
        c.hypotheses[2].transitions = { { 0, 1.125f, -1.875f, 0.9f } };
        check_against_reference(c,
                                gaussian_frames(c.cells() * 6, 1.0, 1.0, 21),
                                6,
                                false,
                                "cpu large shifts");
    }

    void cpu_whole_cell_shift_known_truth()
    {
        // One hypothesis moving by (+2, -1) per frame with weight 1, an impulse in the
        // first frame: known truth P_t = alpha^t (1 - alpha) at (x0 + 2t, y0 - t).
        st_tbd_config c;
        c.width = 20;
        c.height = 12;
        c.device = "cpu";
        c.alpha = 0.75f;
        c.threshold = 0.0f;
        c.hypotheses = { { 2.0f, -1.0f, { { 0, 2.0f, -1.0f, 1.0f } } } };
        auto engine = st_tbd::make(c);
        std::vector<float> frame(c.cells(), 0.0f);
        frame[9 * 20 + 3] = 8.0f;
        std::vector<float> zero(c.cells(), 0.0f);
        std::vector<float> state(c.cells());
        std::vector<tbd_detection> det;
        engine->process(frame.data(), 1, nullptr, nullptr, &det);
        for (int t = 1; t <= 9; ++t) {
            engine->process(zero.data(), 1, nullptr, nullptr, &det);
            engine->read_state(state.data());
            const int x = 3 + 2 * t, y = 9 - t;
            const double expected = 8.0 * 0.25 * std::pow(0.75, t);
            for (int yy = 0; yy < 12; ++yy)
                for (int xx = 0; xx < 20; ++xx) {
                    const double v = state[std::size_t(yy * 20 + xx)];
                    if (xx == x && yy == y && x < 20 && y >= 0)
                        CPPUNIT_ASSERT_DOUBLES_EQUAL(expected, v, 1e-6 * expected);
                    else
                        CPPUNIT_ASSERT_EQUAL(0.0, v);
                }
        }
        // The impulse left the grid at t = 9 (x = 21): nothing re-enters.
        for (float v : state)
            CPPUNIT_ASSERT_EQUAL(0.0f, v);
        // One detection per frame while inside: at the impulse.
        CPPUNIT_ASSERT_EQUAL(std::size_t(9), det.size());
        for (std::size_t i = 0; i < det.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(i), det[i].frame);
            CPPUNIT_ASSERT_EQUAL(std::uint32_t(3 + 2 * i), det[i].x);
            CPPUNIT_ASSERT_EQUAL(std::uint32_t(9 - i), det[i].y);
            CPPUNIT_ASSERT_EQUAL(2.0f, det[i].vx);
            CPPUNIT_ASSERT_EQUAL(-1.0f, det[i].vy);
        }
    }

    void cpu_velocity_grid_scene()
    {
        st_tbd_config c;
        c.width = 40;
        c.height = 31;
        c.device = "cpu";
        c.hypotheses = st_tbd_config::velocity_grid(1.5f, 0.5f, 0.2f);
        c.alpha = 0.9f;
        c.threshold = 0.45f;
        check_against_reference(c,
                                target_scene(c.width, c.height, 8, 31),
                                3,
                                false,
                                "cpu velocity grid scene");
    }

    void cpu_argmax_ties()
    {
        // Hypotheses 1 and 2 are identical, 0 is half of them: with positive inputs
        // the maximum is always the tie 1 = 2, reported as 1; 0 never wins.
        st_tbd_config c;
        c.width = 13;
        c.height = 7;
        c.device = "cpu";
        c.alpha = 0.6f;
        c.hypotheses = {
            { 0.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.45f } } },
            { 1.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.9f } } },
            { 2.0f, 0.0f, { { 1, 0.5f, 0.25f, 0.9f } } },
        };
        auto frames = gaussian_frames(c.cells() * 4, 3.0, 0.5, 41);
        for (float& v : frames)
            v = std::fabs(v) + 0.1f;
        auto engine = st_tbd::make(c);
        const run_output out = run(*engine, frames, 4);
        // The first frame: every hypothesis is (1 - alpha) X, a three-way tie -> 0.
        for (std::size_t i = 0; i < c.cells(); ++i)
            CPPUNIT_ASSERT_EQUAL(std::int32_t(0), out.argmax[i]);
        for (std::size_t i = c.cells(); i < out.argmax.size(); ++i)
            CPPUNIT_ASSERT_EQUAL(std::int32_t(1), out.argmax[i]);
    }

    //! One hypothesis that forgets its past (weight 0): D = (1 - alpha) X.
    static st_tbd_config memoryless(std::size_t w, std::size_t h)
    {
        st_tbd_config c;
        c.width = w;
        c.height = h;
        c.device = "cpu";
        c.alpha = 0.5f;
        c.threshold = 1.0f;
        c.hypotheses = { { 0.5f, -0.25f, { { 0, 0.0f, 0.0f, 0.0f } } } };
        return c;
    }

    void cpu_detection_rule()
    {
        st_tbd_config c = memoryless(10, 8);
        auto engine = st_tbd::make(c);
        // X = 2 D; the background is below the threshold but not zero.
        std::vector<float> x(c.cells());
        qa::gaussian_source g(51);
        for (float& v : x)
            v = float(g.uniform(0.0, 1.0));
        auto set = [&](int xx, int yy, float d) { x[std::size_t(yy * 10 + xx)] = 2 * d; };
        set(0, 0, 5.0f); // corner peak
        set(4, 1, 3.0f); // 2 x 2 plateau: reported once, at its first cell
        set(5, 1, 3.0f);
        set(4, 2, 3.0f);
        set(5, 2, 3.0f);
        set(9, 4, 2.0f); // right border
        set(8, 4, 1.5f);
        set(2, 6, 1.0f); // exactly the threshold: not above it
        set(6, 6, 4.0f); // a peak with a larger neighbour below-right: not a maximum
        set(7, 7, 4.5f); // bottom border, the maximum of the two
        std::vector<tbd_detection> det;
        std::vector<float> map(c.cells(), nanf_);
        std::vector<std::int32_t> arg(c.cells(), argmax_poison);
        engine->process(x.data(), 1, map.data(), arg.data(), &det);
        const std::vector<std::pair<int, int>> expected = {
            { 0, 0 }, { 4, 1 }, { 9, 4 }, { 7, 7 }
        };
        CPPUNIT_ASSERT_EQUAL(expected.size(), det.size());
        for (std::size_t i = 0; i < det.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(std::uint32_t(expected[i].first), det[i].x);
            CPPUNIT_ASSERT_EQUAL(std::uint32_t(expected[i].second), det[i].y);
            CPPUNIT_ASSERT_EQUAL(0.5f, det[i].vx);
            CPPUNIT_ASSERT_EQUAL(-0.25f, det[i].vy);
            CPPUNIT_ASSERT_EQUAL(map[std::size_t(det[i].y * 10 + det[i].x)],
                                 det[i].value);
        }
        CPPUNIT_ASSERT_EQUAL(5.0f, det[0].value);
        // Frame numbers continue across calls and restart after reset.
        det.clear();
        engine->process(x.data(), 1, nullptr, nullptr, &det);
        CPPUNIT_ASSERT(!det.empty());
        for (const auto& d : det)
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), d.frame);
        engine->reset();
        det.clear();
        std::vector<float> two = x;
        two.insert(two.end(), x.begin(), x.end());
        engine->process(two.data(), 2, nullptr, nullptr, &det);
        CPPUNIT_ASSERT_EQUAL(std::size_t(8), det.size());
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), det[0].frame);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(1), det[7].frame);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), engine->frames_processed());
    }

    void cpu_max_detections_keeps_largest()
    {
        st_tbd_config c = memoryless(12, 5);
        c.max_detections_per_frame = 3;
        std::vector<float> x(c.cells(), 0.2f);
        auto set = [&](int xx, int yy, float d) { x[std::size_t(yy * 12 + xx)] = 2 * d; };
        set(1, 0, 2.0f);
        set(10, 0, 6.0f);
        set(5, 2, 4.0f);
        set(1, 4, 4.0f); // ties with (5, 2) and (9, 4): the earlier rows win
        set(9, 4, 4.0f);
        auto engine = st_tbd::make(c);
        std::vector<tbd_detection> det;
        engine->process(x.data(), 1, nullptr, nullptr, &det);
        CPPUNIT_ASSERT_EQUAL(std::size_t(3), det.size());
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(10), det[0].x); // sorted by (y, x)
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(0), det[0].y);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(5), det[1].x);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(2), det[1].y);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(1), det[2].x);
        CPPUNIT_ASSERT_EQUAL(std::uint32_t(4), det[2].y);
        // The reference rule agrees on random maps with many maxima.
        c.max_detections_per_frame = 7;
        const auto frames = gaussian_frames(c.cells() * 5, 2.0, 1.0, 61);
        check_against_reference(c, frames, 2, false, "cpu max detections");
    }

    void cpu_non_finite_input()
    {
        st_tbd_config c = random_config(19, 11, 71);
        auto frames = gaussian_frames(c.cells() * 5, 0.2, 1.0, 72);
        qa::gaussian_source g(73);
        for (int i = 0; i < 60; ++i) {
            const std::size_t k = std::size_t(g.integer(0, long(frames.size()) - 1));
            frames[k] = i % 3 == 0 ? nanf_ : (i % 3 == 1 ? inff_ : -inff_);
        }
        check_against_reference(c, frames, 5, false, "cpu non-finite inputs");
        auto engine = st_tbd::make(c);
        const run_output out = run(*engine, frames, 5);
        for (float v : out.state)
            CPPUNIT_ASSERT(std::isfinite(v));
    }

    void cpu_reset_and_setters()
    {
        st_tbd_config c = random_config(16, 9, 81);
        const auto frames = gaussian_frames(c.cells() * 6, 0.4, 1.0, 82);
        auto engine = st_tbd::make(c);
        const run_output first = run(*engine, frames, 6);
        engine->reset();
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(0), engine->frames_processed());
        std::vector<float> state(c.hypotheses.size() * c.cells(), nanf_);
        engine->read_state(state.data());
        for (float v : state)
            CPPUNIT_ASSERT_EQUAL(0.0f, v);
        const run_output again = run(*engine, frames, 4);
        CPPUNIT_ASSERT(first.map == again.map);
        CPPUNIT_ASSERT(first.argmax == again.argmax);
        CPPUNIT_ASSERT(first.state == again.state);
        CPPUNIT_ASSERT_EQUAL(first.detections.size(), again.detections.size());

        // set_alpha / set_threshold apply from the next frame: the reference with the
        // new values from the start of a reset engine.
        engine->reset();
        engine->set_alpha(0.6f);
        engine->set_threshold(0.1f);
        st_tbd_config changed = c;
        changed.alpha = 0.6f;
        changed.threshold = 0.1f;
        const run_output out = run(*engine, frames, 6);
        auto fresh = st_tbd::make(changed);
        const run_output expected = run(*fresh, frames, 6);
        CPPUNIT_ASSERT(out.map == expected.map);
        CPPUNIT_ASSERT_EQUAL(expected.detections.size(), out.detections.size());
        CPPUNIT_ASSERT(!expected.detections.empty());
        check_against_reference(changed, frames, 6, false, "cpu new alpha and threshold");
    }

    void cpu_frame_time_keeps_state()
    {
        st_tbd_config c = random_config(64, 40, 91);
        auto engine = st_tbd::make(c);
        const auto frames = gaussian_frames(c.cells() * 2, 0.4, 1.0, 92);
        engine->process(frames.data(), 2, nullptr, nullptr, nullptr);
        std::vector<float> before(c.hypotheses.size() * c.cells()), after(before.size());
        engine->read_state(before.data());
        const double ms = engine->frame_time_ms(3);
        CPPUNIT_ASSERT(ms > 0.0 && std::isfinite(ms));
        engine->read_state(after.data());
        CPPUNIT_ASSERT(before == after);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(2), engine->frames_processed());
    }

    void cpu_outputs_optional()
    {
        st_tbd_config c = random_config(21, 14, 95);
        const auto frames = gaussian_frames(c.cells() * 4, 0.5, 1.0, 96);
        auto a = st_tbd::make(c);
        auto b = st_tbd::make(c);
        const run_output full = run(*a, frames, 4);
        b->process(frames.data(), 4, nullptr, nullptr, nullptr);
        std::vector<float> state(full.state.size());
        b->read_state(state.data());
        CPPUNIT_ASSERT(state == full.state);
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(4), b->frames_processed());
    }

    void generated_source_compiles_with_nvrtc()
    {
        // Needs no GPU: NVRTC compiles to PTX for compute_90 on any host.
        st_tbd_config c;
        c.width = 1000;
        c.height = 1000;
        c.hypotheses = st_tbd_config::velocity_grid(1.0f, 1.0f, 0.1f);
        c.hypotheses[4].transitions[0].dx = -2.375f;
        c.hypotheses[4].transitions[0].dy = 0.6f;
        const tbd_layout layout = make_tbd_layout(c);
        const tbd_table table = make_tbd_table(c);
        const std::vector<std::size_t> sorted = lrei_sorted_order(st_tbd_line_keys(c));
        std::vector<std::size_t> shuffled = sorted;
        qa::gaussian_source g(101);
        for (std::size_t i = shuffled.size(); i > 1; --i)
            std::swap(shuffled[i - 1], shuffled[std::size_t(g.integer(0, long(i) - 1))]);
        const std::regex mac_line(R"(^\s+v(\d+) \+= ([-0-9.e]+)f \* (tex2D|tap)<)");
        for (tbd_bilinear_mode mode :
             { tbd_bilinear_mode::software, tbd_bilinear_mode::texture }) {
            for (const std::vector<std::size_t>* order :
                 { &sorted, static_cast<const std::vector<std::size_t>*>(&shuffled) }) {
                const std::string source =
                    st_tbd_generated_source(layout, table, *order, mode);
                // One multiply-accumulate line per transition, in the order given.
                std::istringstream lines(source);
                std::string line;
                std::vector<std::size_t> hypotheses;
                std::vector<float> weights;
                std::smatch match;
                while (std::getline(lines, line))
                    if (std::regex_search(line, match, mac_line)) {
                        hypotheses.push_back(std::stoul(match[1]));
                        weights.push_back(std::stof(match[2]));
                    }
                CPPUNIT_ASSERT_EQUAL(table.taps.size(), hypotheses.size());
                const auto all_lines = st_tbd::lines(c);
                for (std::size_t i = 0; i < order->size(); ++i) {
                    const tbd_line l = all_lines[(*order)[i]];
                    CPPUNIT_ASSERT_EQUAL(l.hypothesis, hypotheses[i]);
                    CPPUNIT_ASSERT_EQUAL(
                        c.hypotheses[l.hypothesis].transitions[l.transition].weight,
                        weights[i]);
                }
                const nvrtc_image image = nvrtc_compile(source,
                                                        "st_tbd_generated.cu",
                                                        st_tbd_rule_headers(),
                                                        st_tbd_nvrtc_options(),
                                                        9,
                                                        0,
                                                        true);
                CPPUNIT_ASSERT(!image.cubin);
                CPPUNIT_ASSERT_EQUAL(std::string("compute_90"), image.target);
                CPPUNIT_ASSERT(image.data.find(tbd_generated_kernel_name) !=
                               std::string::npos);
            }
        }
        std::cout << "generated kernel: NVRTC " << nvrtc_version() << " compiled "
                  << table.taps.size() << " lines, software and texture, to PTX"
                  << std::endl;
        // A broken program reports the compile log.
        try {
            nvrtc_compile("__global__ void k() { undefined_name(); }",
                          "broken.cu",
                          {},
                          {},
                          9,
                          0,
                          true);
            CPPUNIT_FAIL("a broken program compiled");
        } catch (const cuda_error& e) {
            CPPUNIT_ASSERT(std::string(e.what()).find("undefined_name") !=
                           std::string::npos);
        }
    }

    void check_cuda_variant(const std::string& kernel, const std::string& bilinear)
    {
        const bool texture = bilinear == "texture";
        for (std::uint64_t seed : { 211u, 212u }) {
            st_tbd_config c = random_config(37, 29, seed);
            c.device = "cuda";
            c.kernel = kernel;
            c.bilinear = bilinear;
            const auto frames = gaussian_frames(c.cells() * 7, 0.3, 1.0, seed + 7);
            check_against_reference(
                c, frames, 3, texture, "cuda " + kernel + " " + bilinear);
        }
        st_tbd_config c;
        c.width = 71;
        c.height = 9;
        c.device = "cuda";
        c.kernel = kernel;
        c.bilinear = bilinear;
        c.alpha = 0.7f;
        c.threshold = 0.2f;
        c.hypotheses.resize(3);
        c.hypotheses[0].transitions = { { 0, 63.75f, -0.5f, 0.5f },
                                        { 1, -64.0f, 0.25f, 0.4f } };
        c.hypotheses[1].transitions = { { 1, -2.5f, 8.75f, 0.6f },
                                        { 2, 0.0f, 0.0f, 0.3f } };
        c.hypotheses[2].transitions = { { 0, 1.125f, -1.875f, 0.9f } };
        check_against_reference(c,
                                gaussian_frames(c.cells() * 6, 1.0, 1.0, 21),
                                4,
                                texture,
                                "cuda large shifts " + kernel + " " + bilinear);
        st_tbd_config g;
        g.width = 300;
        g.height = 170;
        g.device = "cuda";
        g.kernel = kernel;
        g.bilinear = bilinear;
        g.hypotheses = st_tbd_config::velocity_grid(1.5f, 0.5f, 0.2f);
        g.threshold = 0.45f;
        check_against_reference(g,
                                target_scene(g.width, g.height, 5, 33),
                                5,
                                texture,
                                "cuda velocity grid " + kernel + " " + bilinear);
    }

    void generic_kernel_software_bilinear(const std::string&)
    {
        check_cuda_variant("generic", "software");
    }
    void generic_kernel_texture_bilinear(const std::string&)
    {
        check_cuda_variant("generic", "texture");
    }
    void generated_kernel_software_bilinear(const std::string&)
    {
        check_cuda_variant("generated", "software");
    }
    void generated_kernel_texture_bilinear(const std::string&)
    {
        check_cuda_variant("generated", "texture");
    }

    void auto_choice(const std::string&)
    {
        const std::string dir = temp_dir();
        st_tbd_config c = random_config(200, 120, 301);
        c.device = "cuda";
        c.cache_dir = dir;
        auto engine = st_tbd::make(c);
        const std::string impl = engine->implementation();
        std::cout << "auto: " << impl << std::endl;
        CPPUNIT_ASSERT(impl.rfind("cuda generated ", 0) ==
                       0); // NVRTC works on the GPU host
        CPPUNIT_ASSERT_EQUAL(std::string("sorted"), engine->line_order_source());
        // The choice was cached and is reused.
        auto again = st_tbd::make(c);
        CPPUNIT_ASSERT_EQUAL(impl, again->implementation());
        const bool texture = impl.find("texture") != std::string::npos;
        check_against_reference(
            c, gaussian_frames(c.cells() * 4, 0.3, 1.0, 302), 4, texture, "cuda auto");
        std::remove((dir + "/tuning.json").c_str());
        std::remove((dir + "/tuning.json.lock").c_str());
        rmdir(dir.c_str());
    }

    void detections_match_cpu(const std::string&)
    {
        st_tbd_config c;
        c.width = 64;
        c.height = 48;
        c.hypotheses = st_tbd_config::velocity_grid(2.0f, 1.0f, 0.1f);
        c.alpha = 0.8f;
        c.threshold = 0.9f;
        const std::size_t n = 12;
        const auto frames = target_scene(c.width, c.height, n, 401);
        c.device = "cpu";
        auto cpu = st_tbd::make(c);
        const run_output expected = run(*cpu, frames, n);
        // The targets are found by the CPU: (10 + f, 12) moving (1, 0) and
        // (52 - f, 8 + f) moving (-1, 1), after a few frames.
        auto found = [&](const std::vector<tbd_detection>& det,
                         std::uint64_t f,
                         int x,
                         int y,
                         float vx,
                         float vy) {
            for (const auto& d : det)
                if (d.frame == f && int(d.x) == x && int(d.y) == y)
                    return d.vx == vx && d.vy == vy;
            return false;
        };
        for (std::uint64_t f = 6; f < n; ++f) {
            CPPUNIT_ASSERT(found(expected.detections, f, 10 + int(f), 12, 1.0f, 0.0f));
            CPPUNIT_ASSERT(
                found(expected.detections, f, 52 - int(f), 8 + int(f), -1.0f, 1.0f));
        }
        for (const char* kernel : { "generic", "generated" })
            for (const char* bilinear : { "software", "texture" }) {
                st_tbd_config g = c;
                g.device = "cuda";
                g.kernel = kernel;
                g.bilinear = bilinear;
                auto cuda = st_tbd::make(g);
                const run_output got = run(*cuda, frames, 5);
                const std::string what = std::string(kernel) + " " + bilinear;
                for (std::uint64_t f = 6; f < n; ++f) {
                    CPPUNIT_ASSERT_MESSAGE(
                        what, found(got.detections, f, 10 + int(f), 12, 1.0f, 0.0f));
                    CPPUNIT_ASSERT_MESSAGE(
                        what,
                        found(got.detections, f, 52 - int(f), 8 + int(f), -1.0f, 1.0f));
                }
                if (std::string(bilinear) == "software") {
                    // Same arithmetic up to float rounding: the same list, values close.
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        what, expected.detections.size(), got.detections.size());
                    for (std::size_t i = 0; i < got.detections.size(); ++i) {
                        const auto& a = expected.detections[i];
                        const auto& b = got.detections[i];
                        CPPUNIT_ASSERT(a.frame == b.frame && a.x == b.x && a.y == b.y);
                        CPPUNIT_ASSERT_EQUAL(a.vx, b.vx);
                        CPPUNIT_ASSERT_EQUAL(a.vy, b.vy);
                        CPPUNIT_ASSERT_DOUBLES_EQUAL(
                            a.value, b.value, 1e-5 * std::fabs(a.value));
                    }
                }
            }
    }

    void line_order_permutation(const std::string&)
    {
        st_tbd_config c;
        c.width = 150;
        c.height = 97;
        c.device = "cuda";
        c.kernel = "generated";
        c.bilinear = "software";
        c.hypotheses = random_hypotheses(6, 4, 5.3, 501);
        const auto frames = gaussian_frames(c.cells() * 5, 0.5, 1.0, 502);
        auto sorted = st_tbd::make(c);
        const auto start = sorted->line_order();
        CPPUNIT_ASSERT_EQUAL(st_tbd::lines(c).size(), start.size());
        CPPUNIT_ASSERT(start == lrei_sorted_order(st_tbd_line_keys(c)));
        const run_output a = run(*sorted, frames, 5);
        auto shuffled = st_tbd::make(c);
        std::vector<std::size_t> order = start;
        qa::gaussian_source g(503);
        for (std::size_t i = order.size(); i > 1; --i)
            std::swap(order[i - 1], order[std::size_t(g.integer(0, long(i) - 1))]);
        shuffled->set_line_order(order);
        CPPUNIT_ASSERT(shuffled->line_order() == order);
        CPPUNIT_ASSERT_EQUAL(std::string("set"), shuffled->line_order_source());
        const run_output b = run(*shuffled, frames, 2);
        reference ref(c);
        for (std::size_t f = 0; f < 5; ++f)
            ref.step(frames.data() + f * c.cells());
        const double tol = ref.software_tolerance();
        for (std::size_t i = 0; i < a.state.size(); ++i)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(a.state[i], b.state[i], tol);
        check_against_reference(c, frames, 5, false, "cuda generated sorted order");
        std::vector<std::size_t> bad = order;
        bad[0] = bad[1];
        expect_invalid([&] { shuffled->set_line_order(bad); }, "order");
        expect_invalid([&] { shuffled->set_line_order({ 0, 1 }); }, "order");
    }

    void device_entry_point(const std::string&)
    {
        st_tbd_config c = random_config(45, 33, 601);
        c.device = "cuda";
        c.bilinear = "software"; // no timing choice: nothing written to the cache
        const std::size_t n = 4, cells = c.cells();
        const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 602);
        auto host = st_tbd::make(c);
        const run_output expected = run(*host, frames, n);
        auto dev = st_tbd::make(c);
        device_buffer_test buffers(cells * n);
        CPPUNIT_ASSERT(cudaMemcpy(buffers.frames,
                                  frames.data(),
                                  cells * n * sizeof(float),
                                  cudaMemcpyHostToDevice) == cudaSuccess);
        std::vector<tbd_detection> det;
        dev->process_device(buffers.frames, 2, buffers.map, buffers.argmax, nullptr);
        dev->process_device(buffers.frames + 2 * cells,
                            2,
                            buffers.map + 2 * cells,
                            buffers.argmax + 2 * cells,
                            nullptr);
        dev->synchronize();
        std::vector<float> map(cells * n);
        std::vector<std::int32_t> arg(cells * n);
        CPPUNIT_ASSERT(
            cudaMemcpy(map.data(), buffers.map, map.size() * 4, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
        CPPUNIT_ASSERT(cudaMemcpy(arg.data(),
                                  buffers.argmax,
                                  arg.size() * 4,
                                  cudaMemcpyDeviceToHost) == cudaSuccess);
        CPPUNIT_ASSERT(map == expected.map);
        CPPUNIT_ASSERT(arg == expected.argmax);
        // With detections it waits and appends, frame numbers continuing.
        dev->reset();
        dev->process_device(buffers.frames, n, nullptr, nullptr, &det);
        CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
        for (std::size_t i = 0; i < det.size(); ++i) {
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].frame, det[i].frame);
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].x, det[i].x);
            CPPUNIT_ASSERT_EQUAL(expected.detections[i].value, det[i].value);
        }
    }

    /*
     * process_device() on a stream the caller destroys right after the call, with the
     * engine used and destroyed later: the engine must not keep the caller's stream
     * (cudadsp_bench crashed in the engine's destructor when it did).
     */
    void caller_stream_destroyed_before_engine(const std::string&)
    {
        st_tbd_config c = random_config(40, 30, 611);
        c.device = "cuda";
        c.bilinear = "software";
        const std::size_t n = 3, cells = c.cells();
        const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 612);
        auto host = st_tbd::make(c);
        const run_output expected = run(*host, frames, n);
        auto dev = st_tbd::make(c);
        device_buffer_test buffers(cells * n);
        CPPUNIT_ASSERT(cudaMemcpy(buffers.frames,
                                  frames.data(),
                                  cells * n * sizeof(float),
                                  cudaMemcpyHostToDevice) == cudaSuccess);
        cudaStream_t caller = nullptr;
        CPPUNIT_ASSERT(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking) ==
                       cudaSuccess);
        dev->process_device(
            buffers.frames, 2, buffers.map, buffers.argmax, nullptr, caller);
        CPPUNIT_ASSERT(cudaStreamDestroy(caller) == cudaSuccess);
        // Later work on the engine's own stream follows the destroyed stream's frames.
        dev->process_device(buffers.frames + 2 * cells,
                            1,
                            buffers.map + 2 * cells,
                            buffers.argmax + 2 * cells,
                            nullptr);
        dev->synchronize();
        std::vector<float> map(cells * n);
        CPPUNIT_ASSERT(
            cudaMemcpy(map.data(), buffers.map, map.size() * 4, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
        CPPUNIT_ASSERT(map == expected.map);
        dev = nullptr; // the destructor waits on the engine's own streams only
    }

    //! Device memory for the entry-point test (the test links the CUDA runtime).
    struct device_buffer_test {
        float* frames = nullptr;
        float* map = nullptr;
        std::int32_t* argmax = nullptr;
        explicit device_buffer_test(std::size_t n)
        {
            CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&frames), n * 4) ==
                           cudaSuccess);
            CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&map), n * 4) ==
                           cudaSuccess);
            CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&argmax), n * 4) ==
                           cudaSuccess);
        }
        ~device_buffer_test()
        {
            cudaFree(frames);
            cudaFree(map);
            cudaFree(argmax);
        }
    };

    void reset_and_frame_time(const std::string&)
    {
        st_tbd_config c = random_config(120, 80, 701);
        c.device = "cuda";
        c.bilinear = "software"; // no timing choice: nothing written to the cache
        auto engine = st_tbd::make(c);
        const auto frames = gaussian_frames(c.cells() * 3, 0.3, 1.0, 702);
        const run_output first = run(*engine, frames, 3);
        std::vector<float> after(first.state.size());
        const double ms = engine->frame_time_ms(5);
        CPPUNIT_ASSERT(ms > 0.0 && std::isfinite(ms));
        engine->read_state(after.data());
        CPPUNIT_ASSERT(after == first.state);
        engine->reset();
        engine->read_state(after.data());
        for (float v : after)
            CPPUNIT_ASSERT_EQUAL(0.0f, v);
        const run_output again = run(*engine, frames, 1);
        CPPUNIT_ASSERT(again.map == first.map);
        CPPUNIT_ASSERT(again.state == first.state);
        engine->set_alpha(0.5f);
        st_tbd_config changed = c;
        changed.alpha = 0.5f;
        engine->reset();
        const run_output a = run(*engine, frames, 3);
        auto fresh = st_tbd::make(changed);
        const run_output b = run(*fresh, frames, 3);
        CPPUNIT_ASSERT(a.map == b.map);
    }

    void autotune_and_cache(const std::string&)
    {
        const std::string dir = temp_dir();
        st_tbd_config c;
        c.width = 256;
        c.height = 256;
        c.device = "cuda";
        c.kernel = "generated";
        c.bilinear = "software";
        c.hypotheses = st_tbd_config::velocity_grid(1.0f, 1.0f, 0.2f);
        c.autotune = true;
        c.autotune_iterations = 6;
        c.autotune_seconds = 60.0;
        c.cache_dir = dir;
        std::size_t reports = 0;
        bool finished = false;
        c.autotune_progress = [&](const tbd_autotune_progress& p) {
            ++reports;
            finished = finished || p.finished;
            CPPUNIT_ASSERT(p.best_ms <= p.start_ms);
        };
        auto tuned = st_tbd::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("autotune"), tuned->line_order_source());
        CPPUNIT_ASSERT(reports >= 2 && finished);
        const auto order = tuned->line_order();
        auto cached = st_tbd::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("cache"), cached->line_order_source());
        CPPUNIT_ASSERT(cached->line_order() == order);
        c.autotune = false;
        auto plain = st_tbd::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("cache"), plain->line_order_source());
        const auto frames = gaussian_frames(c.cells() * 3, 0.3, 1.0, 802);
        check_against_reference(c, frames, 3, false, "cuda autotuned order");
        std::cout << "autotune: " << reports << " progress reports, frame "
                  << tuned->frame_time_ms(10) << " ms" << std::endl;
        std::remove((dir + "/tuning.json").c_str());
        std::remove((dir + "/tuning.json.lock").c_str());
        rmdir(dir.c_str());
    }

    void pinned_host_buffers(const std::string&)
    {
        st_tbd_config c = random_config(128, 64, 901);
        c.device = "cuda";
        c.bilinear = "software"; // no timing choice: nothing written to the cache
        const std::size_t n = 7, cells = c.cells();
        const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 902);
        auto pageable = st_tbd::make(c);
        const run_output expected = run(*pageable, frames, n);
        float* pinned_frames = nullptr;
        float* pinned_map = nullptr;
        std::int32_t* pinned_arg = nullptr;
        CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_frames),
                                      cells * n * 4) == cudaSuccess);
        CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_map),
                                      cells * n * 4) == cudaSuccess);
        CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_arg),
                                      cells * n * 4) == cudaSuccess);
        std::copy(frames.begin(), frames.end(), pinned_frames);
        std::fill(pinned_map, pinned_map + cells * n, nanf_);
        std::fill(pinned_arg, pinned_arg + cells * n, argmax_poison);
        auto engine = st_tbd::make(c);
        std::vector<tbd_detection> det;
        engine->process(pinned_frames, n, pinned_map, pinned_arg, &det);
        const bool same_map =
            std::equal(expected.map.begin(), expected.map.end(), pinned_map);
        const bool same_arg =
            std::equal(expected.argmax.begin(), expected.argmax.end(), pinned_arg);
        cudaFreeHost(pinned_frames);
        cudaFreeHost(pinned_map);
        cudaFreeHost(pinned_arg);
        CPPUNIT_ASSERT(same_map);
        CPPUNIT_ASSERT(same_arg);
        CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
    }

    /*
     * process_float_argmax() gives the int32 argmax of process() as floats, with the
     * same maps and detections, in calls of several frames, into pageable memory and
     * (CUDA) page-locked memory.
     */
    void float_argmax(const std::string& device)
    {
        st_tbd_config c = random_config(96, 40, 921);
        c.device = device;
        c.bilinear = "software";
        const std::size_t n = 6, cells = c.cells();
        const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 922);
        auto reference_engine = st_tbd::make(c);
        const run_output expected = run(*reference_engine, frames, 2);
        for (const bool pinned : { false, true }) {
            if (pinned && device == "cpu")
                continue;
            auto engine = st_tbd::make(c);
            std::vector<float> map_storage, arg_storage;
            float* map = nullptr;
            float* arg = nullptr;
            if (pinned) {
                CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&map),
                                              cells * n * 4) == cudaSuccess);
                CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&arg),
                                              cells * n * 4) == cudaSuccess);
            } else {
                map_storage.resize(cells * n);
                arg_storage.resize(cells * n);
                map = map_storage.data();
                arg = arg_storage.data();
            }
            std::fill(map, map + cells * n, nanf_);
            std::fill(arg, arg + cells * n, nanf_);
            std::vector<tbd_detection> det;
            for (std::size_t f = 0; f < n; f += 3)
                engine->process_float_argmax(
                    frames.data() + f * cells, 3, map + f * cells, arg + f * cells, &det);
            std::size_t arg_mismatches = 0;
            for (std::size_t i = 0; i < cells * n; ++i)
                if (!(arg[i] == static_cast<float>(expected.argmax[i])))
                    ++arg_mismatches;
            const bool same_map =
                std::equal(expected.map.begin(), expected.map.end(), map);
            if (pinned) {
                cudaFreeHost(map);
                cudaFreeHost(arg);
            }
            CPPUNIT_ASSERT_EQUAL(std::size_t(0), arg_mismatches);
            CPPUNIT_ASSERT(same_map);
            CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
            for (std::size_t i = 0; i < det.size(); ++i) {
                CPPUNIT_ASSERT_EQUAL(expected.detections[i].frame, det[i].frame);
                CPPUNIT_ASSERT_EQUAL(expected.detections[i].x, det[i].x);
                CPPUNIT_ASSERT_EQUAL(expected.detections[i].y, det[i].y);
            }
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_st_tbd);

} // namespace core
} // namespace cudadsp
} // namespace gr
