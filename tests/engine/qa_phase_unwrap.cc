/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Phase-unwrap engine, CPU and CUDA backends, against a float64 reference written here
// from numpy.unwrap's definition (not from the engine's rule).

#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double two_pi = 6.283185307179586476925286766559;


void sprinkle_non_finite(std::vector<float>& x, double fraction, std::mt19937_64& rng)
{
    std::uniform_real_distribution<double> u(0.0, 1.0);
    const float specials[] = { std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity() };
    for (auto& v : x)
        if (u(rng) < fraction)
            v = specials[rng() % 3];
}

//! Bitwise equality, NaN matching NaN; reports the first difference.
void assert_same(const std::vector<float>& expected,
                 const std::vector<float>& actual,
                 const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL_MESSAGE(what + ": length", expected.size(), actual.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        const bool both_nan = std::isnan(expected[i]) && std::isnan(actual[i]);
        if (!both_nan && std::memcmp(&expected[i], &actual[i], sizeof(float)) != 0) {
            std::ostringstream msg;
            msg.precision(9);
            msg << what << ": sample " << i << " of " << expected.size() << ": expected "
                << expected[i] << ", got " << actual[i];
            CPPUNIT_FAIL(msg.str());
        }
    }
}

std::unique_ptr<phase_unwrapper> make_engine(const std::string& device,
                                             double P,
                                             std::size_t vlen = 1,
                                             std::size_t chunk = 1 << 22)
{
    phase_unwrap_config config;
    config.device = device;
    config.period = P;
    config.vlen = vlen;
    config.chunk_samples = chunk;
    return phase_unwrapper::make(config);
}

std::vector<float> run_engine(phase_unwrapper& engine, const std::vector<float>& x)
{
    std::vector<float> y(x.size(), qa::poison_value);
    engine.unwrap(x.data(), y.data(), x.size());
    return y;
}

struct walk_case {
    std::size_t n;
    double period;
    double step_in_periods; // random-walk step std, as a fraction of the period
};

std::vector<walk_case> walk_cases()
{
    std::vector<walk_case> cases;
    // Under a sanitizer the longest walks still span many tiles of the CUDA scan.
    const std::size_t lengths[] = {
        1, 2, 3, 7, 31, 4095, 4096, 4097, 65537, qa::scaled<std::size_t>(1000003, 100003)
    };
    const double periods[] = { two_pi, 360.0, 1.0, 0.37 };
    const double steps[] = { 0.0, 0.01, 0.2, 0.45, 1.0, 3.0 };
    for (std::size_t n : lengths)
        for (double P : periods)
            for (double s : steps)
                if (n <= 65537 || (P == two_pi || s == 1.0))
                    cases.push_back({ n, P, s });
    for (double s : { 0.05, 3.0 })
        cases.push_back({ qa::scaled<std::size_t>(10000000, 300007), two_pi, s });
    return cases;
}

} // namespace

class qa_phase_unwrap : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_phase_unwrap);
    CPPUNIT_TEST(reference_matches_known_values);
    CPPUNIT_TEST(bad_configuration);
    QA_BACKEND_TEST(random_walks);
    QA_BACKEND_TEST(wrap_at_every_sample_and_near_ties);
    QA_BACKEND_TEST(exact_half_period_is_kept);
    QA_BACKEND_TEST(non_finite_samples);
    QA_BACKEND_TEST(out_of_range_samples);
    QA_BACKEND_TEST(chunking_invariance);
    QA_BACKEND_TEST(vector_mode);
    QA_BACKEND_TEST(reset_and_set_period);
    QA_BACKEND_TEST(real_gnss_capture);
    QA_CUDA_TEST(host_paths);
    QA_CUDA_TEST(device_entry_point);
    CPPUNIT_TEST_SUITE_END();

    std::mt19937_64 d_rng{ std::random_device{}() };

    void random_walks(const std::string& device)
    {
        for (const walk_case& c : walk_cases()) {
            auto engine = make_engine(device, c.period);
            const auto x =
                qa::wrapped_walk(c.n, c.period, c.step_in_periods * c.period, d_rng);
            std::ostringstream what;
            what << device << " n=" << c.n << " P=" << c.period
                 << " step=" << c.step_in_periods << "P";
            assert_same(
                qa::reference_unwrap(x, c.period), run_engine(*engine, x), what.str());
        }
    }

    void wrap_at_every_sample_and_near_ties(const std::string& device)
    {
        check_every_sample_wraps(device);
        check_near_ties(device);
    }

private:
    void check_every_sample_wraps(const std::string& device)
    {
        // +-0.4P alternating: every difference is 0.8P, so K changes at every sample.
        for (double P : { two_pi, 1.0 }) {
            std::vector<float> x(100003);
            for (std::size_t i = 0; i < x.size(); ++i)
                x[i] = static_cast<float>((i % 2 ? -0.4 : 0.4) * P);
            const auto y = run_engine(*make_engine(device, P), x);
            assert_same(qa::reference_unwrap(x, P), y, device + " wrap every sample");
            // Known truth: the smallest jumps alternate +0.2P and -0.2P, so the output
            // alternates between 0.4P and 0.6P.
            for (std::size_t i = 0; i < y.size(); ++i)
                CPPUNIT_ASSERT_DOUBLES_EQUAL((i % 2 ? 0.6 : 0.4) * P, y[i], 1e-6 * P);
        }
    }

    void check_near_ties(const std::string& device)
    {
        // Steps within a few float32 ulps of (m + 1/2) periods: the decisions the fast
        // float32 path must hand to the exact one. Consecutive samples alternate between
        // a base value and base + step, so every step is such a near-tie.
        for (double P : { two_pi, 0.37, 2.0, 360.0 }) {
            std::vector<float> x;
            std::uniform_int_distribution<int> ulps(-3, 3), periods(0, 5);
            std::uniform_real_distribution<double> base(-0.5, 0.5);
            for (int i = 0; i < 20000; ++i) {
                const float a = static_cast<float>(base(d_rng) * P);
                float b = static_cast<float>(a + (periods(d_rng) + 0.5) * P);
                for (int u = ulps(d_rng); u != 0; u += u > 0 ? -1 : 1)
                    b = std::nextafter(b, u > 0 ? INFINITY : -INFINITY);
                x.push_back(a);
                x.push_back(b);
            }
            assert_same(qa::reference_unwrap(x, P),
                        run_engine(*make_engine(device, P), x),
                        device + " near ties, P=" + std::to_string(P));
        }
    }

public:
    void non_finite_samples(const std::string& device)
    {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        for (double fraction : { 0.001, 0.1, 0.5, 0.95 }) {
            for (std::size_t n : { std::size_t(1),
                                   std::size_t(5),
                                   std::size_t(4097),
                                   qa::scaled<std::size_t>(300001, 100003) }) {
                auto x = qa::wrapped_walk(n, two_pi, 1.5, d_rng);
                sprinkle_non_finite(x, fraction, d_rng);
                assert_same(qa::reference_unwrap(x, two_pi),
                            run_engine(*make_engine(device, two_pi), x),
                            device + " non-finite fraction " + std::to_string(fraction));
            }
        }
        // Edges: leading, trailing, a long run across tile boundaries, and all NaN.
        auto x = qa::wrapped_walk(20000, two_pi, 2.0, d_rng);
        x[0] = nan;
        x[1] = inf;
        x.back() = -inf;
        std::fill(x.begin() + 3000, x.begin() + 13000, nan);
        assert_same(qa::reference_unwrap(x, two_pi),
                    run_engine(*make_engine(device, two_pi), x),
                    device + " NaN edges");
        const std::vector<float> all_nan(9000, nan);
        const auto y = run_engine(*make_engine(device, two_pi), all_nan);
        CPPUNIT_ASSERT(
            std::all_of(y.begin(), y.end(), [](float v) { return std::isnan(v); }));
    }

    void out_of_range_samples(const std::string& device)
    {
        // Finite glitches of 2^24 periods or more (near FLT_MAX, opposite signs in a
        // row) are not phases: the output must be numpy.unwrap of the stream with them
        // as NaN, so nothing is offset after them, and the engine counts them.
        const float fmax = std::numeric_limits<float>::max();
        const float glitches[] = { 3e38f, -3e38f, fmax, -fmax, 1e30f, -2e8f };
        for (std::size_t n : { std::size_t(7), std::size_t(300001) }) {
            auto x = qa::wrapped_walk(n, two_pi, 1.0, d_rng);
            auto as_nan = x;
            std::uniform_int_distribution<std::size_t> where(0, n - 1);
            std::uniform_int_distribution<std::size_t> burst(1, 4);
            std::size_t count = 0;
            for (int g = 0; g < (n > 100 ? 300 : 2); ++g) {
                const std::size_t at = where(d_rng);
                for (std::size_t j = at; j < std::min(n, at + burst(d_rng)); ++j) {
                    count += std::isfinite(x[j]) && std::fabs(x[j]) < 1e8f ? 1 : 0;
                    x[j] = glitches[d_rng() % 6];
                    as_nan[j] = std::numeric_limits<float>::quiet_NaN();
                }
            }
            auto engine = make_engine(device, two_pi);
            assert_same(qa::reference_unwrap(as_nan, two_pi),
                        run_engine(*engine, x),
                        device + " glitches n=" + std::to_string(n));
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(count), engine->out_of_range_samples());
            engine->reset();
            CPPUNIT_ASSERT_EQUAL(std::uint64_t(count), engine->out_of_range_samples());
        }

        // The bound itself: samples just below 2^24 periods are phases (steps of up
        // to 2^25 periods, corrected exactly), the next float32 up is not.
        for (double P : { two_pi, 1.0, 360.0 }) {
            const double bound = 16777216.0 * P;
            float below = static_cast<float>(bound);
            while (static_cast<double>(below) >= bound)
                below = std::nextafter(below, 0.0f);
            const float above = std::nextafter(below, INFINITY);
            std::vector<float> x;
            for (int i = 0; i < 5000; ++i) {
                const float base = static_cast<float>((i % 7) * 0.13 * P - 0.4 * P);
                x.insert(x.end(), { base, below, -below, base, -below });
            }
            auto as_nan = x;
            for (std::size_t i = 0; i < x.size(); i += 997) {
                x[i] = i % 2 ? above : -above;
                as_nan[i] = std::numeric_limits<float>::quiet_NaN();
            }
            auto engine = make_engine(device, P);
            assert_same(qa::reference_unwrap(as_nan, P),
                        run_engine(*engine, x),
                        device + " bound, P=" + std::to_string(P));
            CPPUNIT_ASSERT_EQUAL(std::uint64_t((x.size() + 996) / 997),
                                 engine->out_of_range_samples());
        }
    }

    void chunking_invariance(const std::string& device)
    {
        const std::size_t n =
            device == "cuda" ? qa::scaled<std::size_t>(3000017, 200003) : 500000;
        auto x = qa::wrapped_walk(n, two_pi, 1.2, d_rng);
        sprinkle_non_finite(x, 0.01, d_rng);
        const auto expected = qa::reference_unwrap(x, two_pi);
        // Random call sizes, and pipeline chunks that are not a multiple of anything.
        for (std::size_t chunk :
             { std::size_t(1) << 22, std::size_t(1000), std::size_t(4099) }) {
            auto engine = make_engine(device, two_pi, 1, chunk);
            std::vector<float> y(n, qa::poison_value);
            std::uniform_int_distribution<std::size_t> call_size(0, 70000);
            for (std::size_t done = 0; done < n;) {
                const std::size_t m = std::min(n - done, call_size(d_rng));
                engine->unwrap(x.data() + done, y.data() + done, m);
                done += m;
            }
            assert_same(expected,
                        y,
                        device + " chunked, pipeline chunk " + std::to_string(chunk));
        }
    }

    void vector_mode(const std::string& device)
    {
        for (std::size_t vlen : { 2, 3, 17, 4096, 5003, 70001 }) {
            // Under a sanitizer the longest vectors still come twice, one per call.
            const std::size_t vectors =
                std::max<std::size_t>(2, qa::scaled<std::size_t>(400000, 150000) / vlen);
            auto x = qa::wrapped_walk(vlen * vectors, two_pi, 1.0, d_rng);
            sprinkle_non_finite(x, 0.02, d_rng);
            auto engine = make_engine(device, two_pi, vlen, 100000);
            std::vector<float> y(x.size(), qa::poison_value);
            // Two calls, split at a vector boundary.
            const std::size_t first = (vectors / 2) * vlen;
            engine->unwrap(x.data(), y.data(), first);
            engine->unwrap(x.data() + first, y.data() + first, x.size() - first);
            assert_same(qa::reference_unwrap(x, two_pi, vlen),
                        y,
                        device + " vlen " + std::to_string(vlen));
        }
        auto engine = make_engine(device, two_pi, 8);
        std::vector<float> x(20, 0.5f), y(20);
        CPPUNIT_ASSERT_THROW(engine->unwrap(x.data(), y.data(), 20),
                             std::invalid_argument);
    }

    void reset_and_set_period(const std::string& device)
    {
        const auto x = qa::wrapped_walk(50000, two_pi, 1.0, d_rng);
        auto engine = make_engine(device, two_pi);
        std::vector<float> y(x.size(), qa::poison_value);
        engine->unwrap(x.data(), y.data(), 20000);
        engine->reset();
        CPPUNIT_ASSERT_EQUAL(std::int64_t(0), engine->wrap_count());
        engine->unwrap(x.data() + 20000, y.data() + 20000, 30000);
        std::vector<float> head(x.begin(), x.begin() + 20000),
            tail(x.begin() + 20000, x.end());
        auto expected = qa::reference_unwrap(head, two_pi);
        const auto expected_tail = qa::reference_unwrap(tail, two_pi);
        expected.insert(expected.end(), expected_tail.begin(), expected_tail.end());
        assert_same(expected, y, device + " reset");

        // Degrees after radians: set_period restarts with the new period.
        std::vector<float> degrees(x.size());
        std::transform(x.begin(), x.end(), degrees.begin(), [](float v) {
            return static_cast<float>(v * 180.0 / 3.14159265358979);
        });
        engine->set_period(360.0);
        assert_same(qa::reference_unwrap(degrees, 360.0),
                    run_engine(*engine, degrees),
                    device + " set_period(360)");
        CPPUNIT_ASSERT_EQUAL(360.0, engine->period());
        CPPUNIT_ASSERT_THROW(engine->set_period(-1.0), std::invalid_argument);
        CPPUNIT_ASSERT_THROW(engine->set_period(1e300), std::invalid_argument);
        CPPUNIT_ASSERT_EQUAL(360.0, engine->period());
    }

    void real_gnss_capture(const std::string& device)
    {
        const std::string path =
            qa::data_file("gnss/GSoC_CTTC_capture_2012_07_26_4Msps_4ms.dat");
        // Real GPS L1 capture (GNSS-SDR test signal, CC-BY-4.0, the GNSS-SDR
        // contributors).
        const auto iq = qa::read_binary<std::complex<float>>(path);
        CPPUNIT_ASSERT_EQUAL(std::size_t(16000), iq.size());
        std::vector<float> x(iq.size());
        std::transform(iq.begin(), iq.end(), x.begin(), [](std::complex<float> z) {
            return static_cast<float>(std::atan2(double(z.imag()), double(z.real())));
        });
        assert_same(qa::reference_unwrap(x, two_pi),
                    run_engine(*make_engine(device, two_pi), x),
                    device + " GNSS capture");
    }

    void reference_matches_known_values()
    {
        // numpy.unwrap([0, 3, 6.5, 0.5, -3, 3]) by hand (and as numpy prints it).
        const std::vector<float> x = { 0.0f, 3.0f, 6.5f, 0.5f, -3.0f, 3.0f };
        const auto y = qa::reference_unwrap(x, two_pi);
        const double expected[] = { 0.0, 3.0, 6.5 - two_pi, 0.5, -3.0 + two_pi, 3.0 };
        for (std::size_t i = 0; i < x.size(); ++i)
            CPPUNIT_ASSERT_DOUBLES_EQUAL(expected[i], y[i], 1e-6);
    }

    void exact_half_period_is_kept(const std::string& device)
    {
        // P = 2: steps of exactly +-1 are left alone, a step just past 1 wraps.
        {
            const std::vector<float> x = { 0.0f, 1.0f,        0.0f, -1.0f,
                                           0.0f, 1.00000012f, 0.0f, -0.99999994f };
            const auto y = run_engine(*make_engine(device, 2.0), x);
            const float expected[] = { 0.0f, 1.0f,         0.0f, -1.0f,
                                       0.0f, -0.99999988f, 0.0f, -0.99999994f };
            for (std::size_t i = 0; i < x.size(); ++i)
                CPPUNIT_ASSERT_EQUAL_MESSAGE(
                    device + " sample " + std::to_string(i), expected[i], y[i]);
            assert_same(qa::reference_unwrap(x, 2.0), y, device + " half period");
        }
    }

    void bad_configuration()
    {
        phase_unwrap_config config;
        config.device = "cpu";
        auto expect_error = [&](const phase_unwrap_config& c,
                                const std::string& parameter) {
            try {
                phase_unwrapper::make(c);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(
                    e.what(), std::string(e.what()).rfind(parameter + ":", 0) == 0);
                return;
            }
            CPPUNIT_FAIL("no std::invalid_argument for a bad " + parameter);
        };
        // Beyond 1e-30 .. 1e30 float32 samples resolve no phase (issue 16 item 9).
        for (double bad : { 0.0,
                            -1.0,
                            std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::infinity(),
                            std::numeric_limits<double>::denorm_min(),
                            9.9e-31,
                            1.01e30,
                            1e300 }) {
            phase_unwrap_config c = config;
            c.period = bad;
            expect_error(c, "period");
        }
        phase_unwrap_config c = config;
        c.vlen = 0;
        expect_error(c, "vlen");
        c = config;
        c.device = "gpu";
        expect_error(c, "device");
    }

    void host_paths(const std::string&)
    {
        // Under a sanitizer, shorter streams in smaller pipeline chunks: still several
        // chunks per call on each path.
        const std::size_t n = qa::scaled<std::size_t>(5000011, 500011);
        const auto x = qa::wrapped_walk(n, two_pi, 1.0, d_rng);
        const auto expected = qa::reference_unwrap(x, two_pi);
        // Pinned in and out: DMA straight from the caller's buffers.
        pinned_buffer<float> in(n), out(n);
        std::copy(x.begin(), x.end(), in.get());
        std::fill(out.get(), out.get() + n, qa::poison_value);
        make_engine("cuda", two_pi, 1, qa::scaled<std::size_t>(1 << 20, 1 << 17))
            ->unwrap(in.get(), out.get(), n);
        assert_same(
            expected, std::vector<float>(out.get(), out.get() + n), "cuda pinned");
        // In place, pageable.
        std::vector<float> inplace = x;
        make_engine("cuda", two_pi, 1, qa::scaled<std::size_t>(777777, 77777))
            ->unwrap(inplace.data(), inplace.data(), n);
        assert_same(expected, inplace, "cuda in place");
        // Misaligned pointers take the scalar path.
        std::vector<float> shifted_in(n + 1), shifted_out(n + 1, qa::poison_value);
        std::copy(x.begin(), x.end(), shifted_in.begin() + 1);
        make_engine("cuda", two_pi, 1, qa::scaled<std::size_t>(1 << 22, 1 << 17))
            ->unwrap(shifted_in.data() + 1, shifted_out.data() + 1, n);
        assert_same(expected,
                    std::vector<float>(shifted_out.begin() + 1, shifted_out.end()),
                    "cuda misaligned");
    }

    void device_entry_point(const std::string&)
    {
        const std::size_t n = qa::scaled<std::size_t>(2000003, 200003);
        // The second device call: many tiles of the scan.
        const std::size_t second = qa::scaled<std::size_t>(1000000, 100000);
        const std::size_t on_device = 12345 + second;
        const auto x = qa::wrapped_walk(n, two_pi, 2.0, d_rng);
        auto engine = make_engine("cuda", two_pi);
        device_buffer<float> d_x(n), d_y(n);
        std::vector<float> y(n, qa::poison_value);
        CUDADSP_CUDA(
            cudaMemcpy(d_x.get(), x.data(), d_x.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(
            cudaMemcpy(d_y.get(), y.data(), d_y.bytes(), cudaMemcpyHostToDevice));
        cuda_stream stream;
        // Two device calls on a caller's stream, then the rest through the host path:
        // the state chains across all three.
        engine->unwrap_device(d_x.get(), d_y.get(), 12345, stream.get());
        engine->unwrap_device(d_x.get() + 12345, d_y.get() + 12345, second, stream.get());
        stream.synchronize();
        CUDADSP_CUDA(cudaMemcpy(
            y.data(), d_y.get(), on_device * sizeof(float), cudaMemcpyDeviceToHost));
        engine->unwrap(x.data() + on_device, y.data() + on_device, n - on_device);
        assert_same(qa::reference_unwrap(x, two_pi), y, "cuda device entry point");
        CPPUNIT_ASSERT_THROW(
            make_engine("cpu", two_pi)->unwrap_device(d_x.get(), d_y.get(), 1, nullptr),
            std::logic_error);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_phase_unwrap);

} // namespace core
} // namespace cudadsp
} // namespace gr
