/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_phase_unwrap_2d: bad configurations and buffers rejected, and the memory
// a frame needs checked before anything is allocated.

#include "qa_phase_unwrap_2d.h"
#include <cstdint>
#include <limits>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_phase_unwrap_2d::bad_configuration_and_buffers()
{
    const auto good = make_config("cpu", 16, 8, unwrap_2d_method::reliability);
    auto expect_error = [](const phase_unwrap_2d_config& c, const std::string& name) {
        try {
            phase_unwrapper_2d::make(c);
        } catch (const std::invalid_argument& e) {
            CPPUNIT_ASSERT_MESSAGE(e.what(), std::string(e.what()).rfind(name, 0) == 0);
            return;
        }
        CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
    };
    auto c = good;
    c.width = 0;
    expect_error(c, "width");
    c = good;
    c.period = std::numeric_limits<double>::quiet_NaN();
    expect_error(c, "period");
    // Beyond 1e-30 .. 1e30 float32 samples resolve no phase (issue 16 item 9).
    for (double bad : { 1e-31, 1e31, 1e300 }) {
        c.period = bad;
        expect_error(c, "period");
    }
    for (double good_period : { 1e-30, 1e30 }) {
        c.period = good_period;
        phase_unwrapper_2d::make(c);
    }
    c = good;
    c.method = unwrap_2d_method::least_squares;
    c.wrap_around_x = true;
    expect_error(c, "wrap_around_x");
    c.wrap_around_x = false;
    c.wrap_around_y = true;
    expect_error(c, "wrap_around_y");
    c = good;
    c.width = 2;
    c.wrap_around_x = true;
    expect_error(c, "wrap_around_x");
    for (std::size_t window : { 0, 2, 17 }) {
        c = good;
        c.gradient_window = window;
        expect_error(c, "gradient_window");
    }
    c = good;
    c.max_iterations = 0;
    expect_error(c, "max_iterations");
    for (double tolerance : { 0.0, 1.0 }) {
        c = good;
        c.tolerance = tolerance;
        expect_error(c, "tolerance");
    }
    c = good;
    c.device = "gpu";
    expect_error(c, "device");

    auto expect_buffer_error =
        [](phase_unwrapper_2d& e, const unwrap_2d_buffers& b, const std::string& name) {
            try {
                e.unwrap(b);
            } catch (const std::invalid_argument& err) {
                CPPUNIT_ASSERT_MESSAGE(err.what(),
                                       std::string(err.what()).rfind(name, 0) == 0);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + name);
        };
    std::vector<float> x(16 * 8, 0.5f), y(16 * 8);
    std::vector<std::int32_t> components(16 * 8);
    auto reliability = phase_unwrapper_2d::make(good);
    unwrap_2d_buffers b;
    b.unwrapped = y.data();
    expect_buffer_error(*reliability, b, "wrapped");
    b.wrapped = x.data();
    b.unwrapped = nullptr;
    expect_buffer_error(*reliability, b, "unwrapped");
    c = good;
    c.method = unwrap_2d_method::least_squares;
    auto least_squares = phase_unwrapper_2d::make(c);
    b.unwrapped = y.data();
    b.components = components.data();
    expect_buffer_error(*least_squares, b, "components");
    b.components = nullptr;
    CPPUNIT_ASSERT_THROW(reliability->unwrap_device(b), std::logic_error);
}

void qa_phase_unwrap_2d::memory_checked_before_allocation()
{
    // The CPU workspace of an 8192 x 8192 frame, counted from the code
    // (phase_unwrap_2d.h): reliability 89 bytes a pixel (49 with gradient_window
    // 1) and the sort's 1 MiB of histograms, least squares 33 bytes a pixel. With
    // 256 MiB of address space to spare, make() refuses each before allocating,
    // naming the frame, the bytes it needs and the limit (no std::bad_alloc).
    const std::size_t side = 8192;
    const std::size_t histograms = 1 << 20;
    struct request {
        unwrap_2d_method method;
        std::size_t gradient_window;
        std::size_t bytes_per_pixel;
        std::size_t fixed_bytes;
        std::size_t bytes(std::size_t pixels) const
        {
            return bytes_per_pixel * pixels + fixed_bytes;
        }
    };
    const request requests[] = {
        { unwrap_2d_method::reliability, 7, 89, histograms },
        { unwrap_2d_method::reliability, 1, 49, histograms },
        { unwrap_2d_method::least_squares, 7, 33, 0 },
    };
    {
        qa::address_space_limit limit(std::size_t(256) << 20);
        for (const request& r : requests) {
            auto config = make_config("cpu", side, side, r.method);
            config.gradient_window = r.gradient_window;
            const std::string what =
                to_string(r.method) + ", window " + std::to_string(r.gradient_window);
            try {
                phase_unwrapper_2d::make(config);
                CPPUNIT_FAIL(what + ": made an engine beyond the limit");
            } catch (const std::runtime_error& e) {
                const std::string message = e.what();
                for (const std::string& part :
                     { std::string("8192 x 8192 frame"),
                       "needs " + std::to_string(r.bytes(side * side)) + " bytes",
                       std::string("of host memory"),
                       std::string("RLIMIT_AS") })
                    CPPUNIT_ASSERT_MESSAGE(what + ": \"" + message + "\" lacks \"" +
                                               part + "\"",
                                           message.find(part) != std::string::npos);
            }
        }
    }

    // The counts are not too low: with them, the outputs run() allocates (12 bytes a
    // pixel) and 16 MiB more to spare, a 1024 x 1024 frame of each is made and
    // unwrapped (with a count more than 16 bytes a pixel short, it would not be).
    const std::size_t W = 1024, H = 1024;
    const frame f = frame_of(hill_plane_saddle(W, H), W, H, two_pi);
    for (const request& r : requests) {
        auto config = make_config("cpu", W, H, r.method);
        config.gradient_window = r.gradient_window;
        qa::address_space_limit limit(r.bytes(W * H) + 12 * W * H +
                                      (std::size_t(16) << 20));
        const auto o = run(*phase_unwrapper_2d::make(config), f);
        CPPUNIT_ASSERT_EQUAL(W * H, o.report.valid_pixels);
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
