/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the engine over a stream of frames. Non-finite input, reset and
// setters, the frame time keeping the state, optional outputs.

#include "qa_st_tbd.h"
#include <cmath>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_st_tbd::cpu_non_finite_input()
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

void qa_st_tbd::cpu_reset_and_setters()
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

void qa_st_tbd::cpu_frame_time_keeps_state()
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

void qa_st_tbd::cpu_outputs_optional()
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

} // namespace core
} // namespace cudadsp
} // namespace gr
