/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the configuration. Bad configurations rejected with the field named,
// the velocity grid's hypotheses, the hypothesis-major order of the lines.

#include "qa_st_tbd.h"
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_st_tbd::bad_configuration()
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
    CPPUNIT_ASSERT_THROW(engine->process_device(nullptr, 1, nullptr, nullptr, nullptr),
                         std::logic_error);
    CPPUNIT_ASSERT_THROW(engine->set_line_order({ 0 }), std::logic_error);
    CPPUNIT_ASSERT(engine->line_order().empty());
    CPPUNIT_ASSERT_EQUAL(std::string(""), engine->line_order_source());
}

void qa_st_tbd::velocity_grid_structure()
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

void qa_st_tbd::lines_are_hypothesis_major()
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

} // namespace core
} // namespace cudadsp
} // namespace gr
