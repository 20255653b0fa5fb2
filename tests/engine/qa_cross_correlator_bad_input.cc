/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_cross_correlator: bad input. Configurations rejected with the field named,
// frames with non-finite samples or beyond what float32 transforms hold.

#include "qa_cross_correlator.h"
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_cross_correlator::config_validation()
{
    cross_correlator_config good;
    good.fft_len = 64;
    good.interp = 4;
    good.max_lag = 10;
    good.device = "cpu";
    good.validate();
    cross_correlator::make(good);
    // make() validates; validate() itself checks the sizes (the device string is
    // resolved by make(), as for the other engines).
    auto expect_error =
        [](cross_correlator_config c, const std::string& field, bool by_validate = true) {
            for (int via_make = by_validate ? 0 : 1; via_make < 2; ++via_make) {
                try {
                    if (via_make)
                        cross_correlator::make(c);
                    else
                        c.validate();
                } catch (const std::invalid_argument& e) {
                    CPPUNIT_ASSERT_MESSAGE(field + ": " + e.what(),
                                           std::string(e.what()).find(field) !=
                                               std::string::npos);
                    continue;
                }
                CPPUNIT_FAIL("no std::invalid_argument for a bad " + field +
                             (via_make ? " (make)" : " (validate)"));
            }
        };
    for (std::size_t N : { 0, 1 }) {
        auto c = good;
        c.fft_len = N;
        c.max_lag = 0;
        expect_error(c, "fft_len");
    }
    auto c = good;
    c.interp = 0;
    expect_error(c, "interp");
    for (std::size_t ml : { 64, 65, 1000 }) {
        c = good;
        c.max_lag = ml;
        expect_error(c, "max_lag");
    }
    for (const char* d : { "gpu", "cuda:-1", "cuda:x", "", "CPU " }) {
        c = good;
        c.device = d;
        expect_error(c, "device", false);
    }
    // Absurd sizes are refused by name, whatever the implementation's bounds.
    c = good;
    c.interp = std::numeric_limits<std::size_t>::max() / 2;
    expect_error(c, "interp");
    c = good;
    c.fft_len = std::numeric_limits<std::size_t>::max() / 4;
    c.max_lag = 0;
    expect_error(c, "fft_len");
    c = good;
    c.batch_frames = std::numeric_limits<std::size_t>::max() / 8;
    expect_error(c, "batch_frames");
    // Valid extremes.
    for (std::size_t ml : { 0, 1, 63 }) {
        c = good;
        c.max_lag = ml;
        cross_correlator::make(c);
    }
    c = good;
    c.fft_len = 2;
    c.max_lag = 1;
    c.interp = 1;
    c.batch_frames = 1;
    cross_correlator::make(c);

    // The derived sizes.
    const std::pair<std::size_t, std::size_t> lengths[] = {
        { 2, 4 },     { 3, 8 },     { 4, 8 },       { 5, 16 },
        { 100, 256 }, { 128, 256 }, { 4096, 8192 }, { 4097, 16384 },
    };
    for (const auto& nl : lengths) {
        c = good;
        c.fft_len = nl.first;
        c.max_lag = 0;
        CPPUNIT_ASSERT_EQUAL(nl.second, c.transform_len());
        CPPUNIT_ASSERT_EQUAL(nl.first - 1, c.effective_max_lag());
        CPPUNIT_ASSERT_EQUAL(2 * nl.first - 1, c.correlation_len());
    }
    CPPUNIT_ASSERT_EQUAL(std::size_t(10), good.effective_max_lag());
    CPPUNIT_ASSERT_EQUAL(std::size_t(21), good.correlation_len());

    auto engine = cross_correlator::make(good);
    CPPUNIT_ASSERT_EQUAL(std::size_t(64), engine->config().fft_len);
    CPPUNIT_ASSERT_EQUAL(std::string("cpu"), engine->device().to_string());
    c = good;
    c.device = "auto";
    const std::string expected = qa::cuda_present() ? "cuda:0" : "cpu";
    CPPUNIT_ASSERT_EQUAL(expected, cross_correlator::make(c)->device().to_string());
    // A forced CUDA backend is an error only where no device exists.
    if (!qa::cuda_present()) {
        c = good;
        c.device = "cuda";
        CPPUNIT_ASSERT_THROW(cross_correlator::make(c), std::runtime_error);
    }
}

/*!
 * A frame with a NaN or an infinite sample (in x or in y) gives NaN lag, magnitude
 * and phase (lib/core/cross_correlation/cross_correlation_peak_rule.h); the frames
 * around it are unaffected.
 */
void qa_cross_correlator::non_finite_frames(const std::string& device)
{
    const std::size_t N = 100;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    gaussian_source g(777);
    frame_data f(N);
    const std::vector<std::pair<bool, cfloat>> bad = {
        { true, { nan, 0.0f } },
        { false, { 0.0f, nan } },
        { true, { inf, 1.0f } },
        { false, { -inf, -inf } },
    };
    std::vector<std::size_t> bad_frames;
    for (const auto& b : bad) {
        add_white_delay(f, 4, 1.0, 0.1, g);
        add_white_delay(f, -3, 1.0, 0.1, g);
        const std::size_t k = f.nframes() - 1;
        (b.first ? f.x_frame(k) : f.y_frame(k))[37] = b.second;
        bad_frames.push_back(k);
    }
    add_white_delay(f, 2, 1.0, 0.1, g);
    const auto c = make_config(device, N, 4, 10);
    const auto r = run(c, f);
    const std::string what = describe(c, " non-finite samples");
    for (std::size_t k = 0; k < f.nframes(); ++k) {
        const peak_t& p = r.peaks[k];
        if (std::find(bad_frames.begin(), bad_frames.end(), k) != bad_frames.end()) {
            std::ostringstream msg;
            msg << frame_name(what, k) << ": (" << p.lag << ", " << p.magnitude << ", "
                << p.phase << ")";
            CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                   !poisoned(p.lag) && !poisoned(p.magnitude) &&
                                       !poisoned(p.phase));
            CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                   std::isnan(p.lag) && std::isnan(p.magnitude) &&
                                       std::isnan(p.phase));
            continue;
        }
        const frame_reference ref =
            reference_frame(f.x.data() + k * N, f.y.data() + k * N, N);
        check_peak(expect_peak(ref, c), p, c, frame_name(what, k));
        CPPUNIT_ASSERT_MESSAGE(frame_name(what, k),
                               std::fabs(p.lag - f.truth[k]) <= 0.25f);
    }
}

/*!
 * Finite frames the float32 transforms cannot hold: samples near FLT_MAX are bad
 * frames (NaN lag, magnitude and phase, as a NaN sample gives), frames of
 * denormals are zero frames (lag 0, magnitude 0, phase 0); the frames around them
 * keep their true lags. Each kind in x, in y and in both.
 */
void qa_cross_correlator::frames_beyond_float32_range(const std::string& device)
{
    const std::size_t N = 100;
    gaussian_source g(4242);
    frame_data f(N);
    enum class kind { huge, tiny };
    std::vector<std::pair<std::size_t, kind>> marked;
    for (kind k : { kind::huge, kind::tiny }) {
        for (int which = 0; which < 3; ++which) {
            add_white_delay(f, 4, 1.0, 0.1, g);
            add_white_delay(f, -3, 1.0, 0.1, g);
            const std::size_t frame = f.nframes() - 1;
            // 3e38 with random signs (the float32 transforms overflow), or
            // denormals of about 1e-40 (their products underflow to zero).
            const double scale = k == kind::huge ? 3e38 : 1e-40;
            for (std::size_t n = 0; n < N; ++n) {
                const cdouble z = g.complex_normal();
                const cfloat v(float(z.real() > 0 ? scale : -scale),
                               float(z.imag() > 0 ? scale : -scale));
                if (which != 1)
                    f.x_frame(frame)[n] = v;
                if (which != 0)
                    f.y_frame(frame)[n] = v;
            }
            marked.push_back({ frame, k });
        }
    }
    add_white_delay(f, 2, 1.0, 0.1, g);
    for (std::size_t interp : { 1, 4 }) {
        const auto c = make_config(device, N, interp, 10);
        const auto r = run(c, f, true, true);
        const std::string what = describe(c, " beyond float32 range");
        for (std::size_t k = 0; k < f.nframes(); ++k) {
            const peak_t& p = r.peaks[k];
            std::ostringstream msg;
            msg << frame_name(what, k) << ": (" << p.lag << ", " << p.magnitude << ", "
                << p.phase << ")";
            const auto m = std::find_if(
                marked.begin(), marked.end(), [&](auto& e) { return e.first == k; });
            if (m == marked.end()) {
                CPPUNIT_ASSERT_MESSAGE(msg.str(), std::fabs(p.lag - f.truth[k]) <= 0.25f);
                CPPUNIT_ASSERT_MESSAGE(msg.str(), p.magnitude > 0.5f);
            } else if (m->second == kind::huge) {
                CPPUNIT_ASSERT_MESSAGE(msg.str(),
                                       std::isnan(p.lag) && std::isnan(p.magnitude) &&
                                           std::isnan(p.phase));
            } else {
                CPPUNIT_ASSERT_MESSAGE(
                    msg.str(), p.lag == 0.0f && p.magnitude == 0.0f && p.phase == 0.0f);
            }
        }
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
