/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The synthetic-interferogram generator against what its header promises, each checked
// apart from the generator's code: the wrapped phase is the truth reduced to [-pi, pi)
// (computed here with fmod, the generator uses remainder; both are exact); the
// decorrelation noise follows the single-look phase distribution of Just and Bamler
// (1994) for its coherence, whose density is integrated here in float64 (second
// moment, mean cosine, Kolmogorov-Smirnov distance); the aliased flags agree with the
// truth's neighbour differences; each field has its stated amplitude; the smooth scene
// is unaliased; the same seed gives the same bytes; bad fields are named.

#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <cppunit/TestCase.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const double pi = 3.14159265358979323846;
const double two_pi = 2.0 * pi;

//! x reduced to [-pi, pi) with the double 2 pi, exactly (fmod and Sterbenz's lemma).
double wrap64(double x)
{
    double r = std::fmod(x, two_pi); // exact, in (-2 pi, 2 pi)
    if (r >= pi)
        r -= two_pi; // exact: r in [pi, 2 pi)
    else if (r < -pi)
        r += two_pi;
    return r;
}

//! The float32 nearest to wrap64(x) that lies in [-pi, pi).
float expected_wrapped(double x)
{
    float f = static_cast<float>(wrap64(x));
    while (static_cast<double>(f) >= pi || static_cast<double>(f) < -pi)
        f = std::nextafter(f, 0.0f);
    return f;
}

/*!
 * Single-look interferometric phase density for coherence gamma (Just and Bamler
 * 1994, eq. 12; Lee et al. 1994): with beta = gamma cos(phi),
 * p(phi) = (1 - gamma^2) / (2 pi (1 - beta^2)) (1 + beta acos(-beta) / sqrt(1 - beta^2)).
 */
double single_look_density(double phi, double gamma)
{
    const double beta = gamma * std::cos(phi);
    const double b2 = 1.0 - beta * beta;
    return (1.0 - gamma * gamma) / (two_pi * b2) *
           (1.0 + beta * std::acos(-beta) / std::sqrt(b2));
}

//! The density tabulated on a fine grid over [-pi, pi], with its distribution function.
struct phase_distribution {
    static constexpr std::size_t intervals = 1 << 18;
    std::vector<double> cdf;
    double second_moment = 0.0; // E[phi^2]
    double mean_cosine = 0.0;   // E[cos phi]
    double total = 0.0;         // integral of the density, 1 if the formula is right

    explicit phase_distribution(double gamma) : cdf(intervals + 1, 0.0)
    {
        const double h = two_pi / intervals;
        double previous = single_look_density(-pi, gamma);
        for (std::size_t i = 1; i <= intervals; ++i) {
            const double a = -pi + h * static_cast<double>(i - 1);
            const double b = a + h;
            const double pb = single_look_density(b, gamma);
            const double pm = single_look_density(a + 0.5 * h, gamma);
            // Simpson on each interval.
            const double mass = h / 6.0 * (previous + 4.0 * pm + pb);
            cdf[i] = cdf[i - 1] + mass;
            const double m = a + 0.5 * h;
            second_moment += h / 6.0 * (a * a * previous + 4.0 * m * m * pm + b * b * pb);
            mean_cosine +=
                h / 6.0 *
                (std::cos(a) * previous + 4.0 * std::cos(m) * pm + std::cos(b) * pb);
            previous = pb;
        }
        total = cdf[intervals];
    }

    double at(double phi) const
    {
        const double t = (phi + pi) / two_pi * intervals;
        const std::size_t i = std::min<std::size_t>(
            intervals - 1, static_cast<std::size_t>(std::max(0.0, std::floor(t))));
        const double f = t - static_cast<double>(i);
        return cdf[i] + f * (cdf[i + 1] - cdf[i]);
    }
};

interferogram_scene_config noise_free_config()
{
    interferogram_scene_config config;
    config.coherence = 1.0;
    config.water = false;
    return config;
}

//! 1 at both ends of every 4-neighbour pair whose truths differ by more than pi.
std::vector<std::uint8_t> aliased_reference(const interferogram_scene& s)
{
    std::vector<std::uint8_t> flags(s.true_phase.size(), 0);
    const long w = static_cast<long>(s.width);
    const long h = static_cast<long>(s.height);
    const long dx[4] = { 1, -1, 0, 0 };
    const long dy[4] = { 0, 0, 1, -1 };
    for (long y = 0; y < h; ++y)
        for (long x = 0; x < w; ++x)
            for (int d = 0; d < 4; ++d) {
                const long nx = x + dx[d];
                const long ny = y + dy[d];
                if (nx < 0 || ny < 0 || nx >= w || ny >= h)
                    continue;
                const double step = s.true_phase[ny * w + nx] - s.true_phase[y * w + x];
                if (std::abs(step) > pi)
                    flags[y * w + x] = 1;
            }
    return flags;
}

double largest_neighbour_step(const interferogram_scene& s)
{
    double largest = 0.0;
    for (std::size_t y = 0; y < s.height; ++y)
        for (std::size_t x = 0; x < s.width; ++x) {
            const std::size_t i = y * s.width + x;
            if (x + 1 < s.width)
                largest =
                    std::max(largest, std::abs(s.true_phase[i + 1] - s.true_phase[i]));
            if (y + 1 < s.height)
                largest = std::max(largest,
                                   std::abs(s.true_phase[i + s.width] - s.true_phase[i]));
        }
    return largest;
}

void check_sizes(const interferogram_scene& s, std::size_t width, std::size_t height)
{
    const std::size_t n = width * height;
    CPPUNIT_ASSERT_EQUAL(width, s.width);
    CPPUNIT_ASSERT_EQUAL(height, s.height);
    CPPUNIT_ASSERT_EQUAL(n, s.true_phase.size());
    CPPUNIT_ASSERT_EQUAL(n, s.wrapped.size());
    CPPUNIT_ASSERT_EQUAL(n, s.coherence.size());
    CPPUNIT_ASSERT_EQUAL(n, s.mask.size());
    CPPUNIT_ASSERT_EQUAL(n, s.aliased.size());
}

template <typename T>
bool same_bytes(const std::vector<T>& a, const std::vector<T>& b)
{
    return a.size() == b.size() &&
           std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

} // namespace

class qa_interferogram_simulator : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_interferogram_simulator);
    CPPUNIT_TEST(noise_free_wrapped_is_wrapped_truth);
    CPPUNIT_TEST(noisy_wrapped_lies_in_range);
    CPPUNIT_TEST(noise_follows_single_look_distribution);
    CPPUNIT_TEST(coherence_map_water_and_vegetation);
    CPPUNIT_TEST(fields_have_their_stated_amplitudes);
    CPPUNIT_TEST(aliased_flags_match_neighbour_differences);
    CPPUNIT_TEST(smooth_scene_is_unaliased);
    CPPUNIT_TEST(same_seed_same_bytes_other_seed_other_scene);
    CPPUNIT_TEST(bad_configs_name_the_field);
    CPPUNIT_TEST_SUITE_END();

public:
    void noise_free_wrapped_is_wrapped_truth()
    {
        // Every truth field on, odd sizes; no decorrelation anywhere.
        interferogram_scene_config config = noise_free_config();
        config.width = 301;
        config.height = 203;
        config.seed = 7;
        const interferogram_scene s = simulate_interferogram(config);
        check_sizes(s, 301, 203);
        std::size_t near_pi = 0;
        for (std::size_t i = 0; i < s.true_phase.size(); ++i) {
            CPPUNIT_ASSERT(std::isfinite(s.true_phase[i]));
            const float expected = expected_wrapped(s.true_phase[i]);
            if (std::memcmp(&expected, &s.wrapped[i], sizeof(float)) != 0)
                CPPUNIT_FAIL("pixel " + std::to_string(i) + ": wrapped " +
                             std::to_string(s.wrapped[i]) + ", expected " +
                             std::to_string(expected));
            near_pi += std::abs(wrap64(s.true_phase[i])) > 3.0;
            CPPUNIT_ASSERT_EQUAL(1.0f, s.coherence[i]);
            CPPUNIT_ASSERT_EQUAL(std::uint8_t(1), s.mask[i]);
        }
        // The truth spans many cycles, so the wrap boundaries are exercised.
        CPPUNIT_ASSERT(near_pi > 100);

        // The boundary itself: values rounding to float32(pi) stay in [-pi, pi).
        for (double x : { pi - 1e-9, -pi + 1e-9, pi, -pi, 3.0 * pi - 1e-9 }) {
            const float f = expected_wrapped(x);
            CPPUNIT_ASSERT(static_cast<double>(f) < pi && static_cast<double>(f) >= -pi);
        }
    }

    void noisy_wrapped_lies_in_range()
    {
        const interferogram_scene s =
            simulate_interferogram(interferogram_scene_config());
        check_sizes(s, 512, 512);
        for (float v : s.wrapped)
            CPPUNIT_ASSERT(std::isfinite(v) && static_cast<double>(v) >= -pi &&
                           static_cast<double>(v) < pi);
    }

    void noise_follows_single_look_distribution()
    {
        for (double gamma : { 0.9, 0.5 }) {
            const phase_distribution reference(gamma);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(1.0, reference.total, 1e-9);

            interferogram_scene_config config;
            config.coherence = gamma;
            config.water = false;
            config.vegetation = false;
            config.seed = 11;
            const interferogram_scene s = simulate_interferogram(config);
            const std::size_t n = s.true_phase.size();
            std::vector<double> noise(n);
            for (std::size_t i = 0; i < n; ++i) {
                CPPUNIT_ASSERT_EQUAL(static_cast<float>(gamma), s.coherence[i]);
                // float32 rounding of wrapped adds at most 2.4e-7 rad.
                noise[i] = wrap64(static_cast<double>(s.wrapped[i]) - s.true_phase[i]);
            }

            double sum2 = 0.0, sum4 = 0.0, sum_cos = 0.0;
            for (double e : noise) {
                sum2 += e * e;
                sum4 += e * e * e * e;
                sum_cos += std::cos(e);
            }
            const double nd = static_cast<double>(n);
            const double m2 = sum2 / nd;
            const double m2_error = std::sqrt((sum4 / nd - m2 * m2) / nd);
            const double cos_mean = sum_cos / nd;

            std::sort(noise.begin(), noise.end());
            double ks = 0.0;
            for (std::size_t i = 0; i < n; ++i) {
                const double f = reference.at(noise[i]);
                ks = std::max({ ks,
                                std::abs(static_cast<double>(i + 1) / nd - f),
                                std::abs(f - static_cast<double>(i) / nd) });
            }
            std::cout << "qa_interferogram_simulator: gamma " << gamma << ": E[phi^2] "
                      << m2 << " (reference " << reference.second_moment << " +- "
                      << m2_error << "), E[cos phi] " << cos_mean << " (reference "
                      << reference.mean_cosine << "), KS distance " << ks << " over " << n
                      << " pixels" << std::endl;
            // Five standard errors; sqrt(n) KS below 1.95 (a 0.1 % test level).
            CPPUNIT_ASSERT_DOUBLES_EQUAL(reference.second_moment, m2, 5.0 * m2_error);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                reference.mean_cosine, cos_mean, 5.0 / std::sqrt(nd));
            CPPUNIT_ASSERT(ks * std::sqrt(nd) < 1.95);
        }
    }

    void coherence_map_water_and_vegetation()
    {
        interferogram_scene_config config;
        config.coherence = 0.9;
        const interferogram_scene s = simulate_interferogram(config);
        std::size_t water = 0;
        float land_min = 1.0f, land_max = 0.0f;
        for (std::size_t i = 0; i < s.mask.size(); ++i) {
            if (s.mask[i] == 0) {
                ++water;
                CPPUNIT_ASSERT_EQUAL(0.05f, s.coherence[i]);
            } else {
                CPPUNIT_ASSERT_EQUAL(std::uint8_t(1), s.mask[i]);
                land_min = std::min(land_min, s.coherence[i]);
                land_max = std::max(land_max, s.coherence[i]);
            }
        }
        // A lake of a few percent of the scene; the patch falls to 0.5 at its centre.
        CPPUNIT_ASSERT(water > s.mask.size() / 100 && water < s.mask.size() / 5);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.9, land_max, 1e-6);
        CPPUNIT_ASSERT(land_min >= 0.5f && land_min < 0.52f);

        // No lake, no patch: coherence everywhere; with coherence 1 the patch vanishes.
        config.water = false;
        config.vegetation = false;
        for (float g : simulate_interferogram(config).coherence)
            CPPUNIT_ASSERT_EQUAL(0.9f, g);
        config.vegetation = true;
        config.coherence = 1.0;
        for (float g : simulate_interferogram(config).coherence)
            CPPUNIT_ASSERT_EQUAL(1.0f, g);
    }

    void fields_have_their_stated_amplitudes()
    {
        interferogram_scene_config none = noise_free_config();
        none.topography_cycles = 0.0;
        none.deformation_cycles = 0.0;
        none.atmosphere_rad = 0.0;
        none.steep = false;
        for (double t : simulate_interferogram(none).true_phase)
            CPPUNIT_ASSERT_EQUAL(0.0, t);

        interferogram_scene_config topography = none;
        topography.topography_cycles = 20.0;
        const std::vector<double> t = simulate_interferogram(topography).true_phase;
        const auto [lo, hi] = std::minmax_element(t.begin(), t.end());
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, *lo, 1e-12);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(two_pi * 20.0, *hi, 1e-9);

        interferogram_scene_config bowl = none;
        bowl.deformation_cycles = 5.0;
        const std::vector<double> d = simulate_interferogram(bowl).true_phase;
        const auto [dlo, dhi] = std::minmax_element(d.begin(), d.end());
        // The source lies within a pixel of a grid point: the deepest pixel is within
        // 2 % of the bowl's depth; far away the bowl fades out.
        CPPUNIT_ASSERT(*dlo >= -two_pi * 5.0 && *dlo < -0.98 * two_pi * 5.0);
        CPPUNIT_ASSERT(*dhi < 0.0 && *dhi > -0.05 * two_pi * 5.0);

        interferogram_scene_config atmosphere = none;
        atmosphere.atmosphere_rad = 2.0;
        const std::vector<double> a = simulate_interferogram(atmosphere).true_phase;
        double sum = 0.0, sum2 = 0.0;
        for (double v : a)
            sum += v;
        const double mean = sum / static_cast<double>(a.size());
        for (double v : a)
            sum2 += (v - mean) * (v - mean);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(0.0, mean, 1e-9);
        CPPUNIT_ASSERT_DOUBLES_EQUAL(
            2.0, std::sqrt(sum2 / static_cast<double>(a.size())), 1e-9);

        // The steep peak's steepest slope is 2 pi per pixel at every size.
        for (std::size_t size :
             { std::size_t(64), std::size_t(512), std::size_t(2048) }) {
            interferogram_scene_config steep = none;
            steep.width = steep.height = size;
            steep.steep = true;
            const double step = largest_neighbour_step(simulate_interferogram(steep));
            CPPUNIT_ASSERT(step > 0.9 * two_pi && step <= two_pi);
        }
    }

    void aliased_flags_match_neighbour_differences()
    {
        for (std::uint64_t seed : { 1, 2, 3 }) {
            interferogram_scene_config config;
            config.seed = seed;
            config.width = 400;
            config.height = 300;
            const interferogram_scene s = simulate_interferogram(config);
            const std::vector<std::uint8_t> expected = aliased_reference(s);
            std::size_t flagged = 0;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                CPPUNIT_ASSERT_EQUAL(expected[i], s.aliased[i]);
                flagged += expected[i];
            }
            // The steep peak's ring, a small part of the scene.
            CPPUNIT_ASSERT(flagged > 100 && flagged < expected.size() / 20);
        }
    }

    void smooth_scene_is_unaliased()
    {
        // The header's promise: with steep off the defaults are unaliased from 512 up.
        for (std::uint64_t seed = 1; seed <= 8; ++seed) {
            interferogram_scene_config config;
            config.seed = seed;
            config.steep = false;
            const interferogram_scene s = simulate_interferogram(config);
            CPPUNIT_ASSERT(largest_neighbour_step(s) < pi);
            for (std::uint8_t a : s.aliased)
                CPPUNIT_ASSERT_EQUAL(std::uint8_t(0), a);
        }
    }

    void same_seed_same_bytes_other_seed_other_scene()
    {
        interferogram_scene_config config;
        config.width = 257;
        config.height = 129;
        const interferogram_scene a = simulate_interferogram(config);
        const interferogram_scene b = simulate_interferogram(config);
        CPPUNIT_ASSERT(same_bytes(a.true_phase, b.true_phase));
        CPPUNIT_ASSERT(same_bytes(a.wrapped, b.wrapped));
        CPPUNIT_ASSERT(same_bytes(a.coherence, b.coherence));
        CPPUNIT_ASSERT(same_bytes(a.mask, b.mask));
        CPPUNIT_ASSERT(same_bytes(a.aliased, b.aliased));

        config.seed = 2;
        const interferogram_scene c = simulate_interferogram(config);
        CPPUNIT_ASSERT(!same_bytes(a.true_phase, c.true_phase));
        CPPUNIT_ASSERT(!same_bytes(a.wrapped, c.wrapped));
        CPPUNIT_ASSERT(!same_bytes(a.mask, c.mask));

        // The lake changes neither the truth nor the land's noise.
        config.seed = 1;
        config.water = false;
        const interferogram_scene dry = simulate_interferogram(config);
        CPPUNIT_ASSERT(same_bytes(a.true_phase, dry.true_phase));
        for (std::size_t i = 0; i < a.mask.size(); ++i)
            if (a.mask[i])
                CPPUNIT_ASSERT_EQUAL(a.wrapped[i], dry.wrapped[i]);
    }

    void bad_configs_name_the_field()
    {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        struct bad_case {
            std::string field;
            interferogram_scene_config config;
        };
        std::vector<bad_case> cases;
        const auto add = [&](const std::string& field, auto change) {
            interferogram_scene_config config;
            change(config);
            cases.push_back({ field, config });
        };
        add("width", [](auto& c) { c.width = 1; });
        add("width", [](auto& c) { c.width = 0; });
        add("height", [](auto& c) { c.height = 1; });
        add("width, height", [](auto& c) {
            c.width = std::size_t(1) << 16;
            c.height = (std::size_t(1) << 14) + 1;
        });
        add("width, height", [](auto& c) {
            c.width = std::size_t(1) << 40;
            c.height = std::size_t(1) << 40;
        });
        for (double v : { -1.0, nan, inf }) {
            add("topography_cycles", [v](auto& c) { c.topography_cycles = v; });
            add("deformation_cycles", [v](auto& c) { c.deformation_cycles = v; });
            add("atmosphere_rad", [v](auto& c) { c.atmosphere_rad = v; });
        }
        for (double v : { 0.0, -0.5, 1.0000001, nan, inf })
            add("coherence", [v](auto& c) { c.coherence = v; });

        for (const bad_case& bad : cases) {
            try {
                bad.config.validate();
                CPPUNIT_FAIL("validate(): no std::invalid_argument for " + bad.field);
            } catch (const std::invalid_argument& e) {
                CPPUNIT_ASSERT_MESSAGE(
                    e.what(), std::string(e.what()).rfind(bad.field + ":", 0) == 0);
            }
            CPPUNIT_ASSERT_THROW(simulate_interferogram(bad.config),
                                 std::invalid_argument);
        }

        // The edges of the ranges are accepted.
        interferogram_scene_config edge;
        edge.width = 2;
        edge.height = 2;
        edge.topography_cycles = 0.0;
        edge.deformation_cycles = 0.0;
        edge.atmosphere_rad = 0.0;
        edge.coherence = 1.0;
        check_sizes(simulate_interferogram(edge), 2, 2);
        edge.coherence = 1e-9;
        edge.atmosphere_rad = 1.0;
        edge.topography_cycles = 1.0;
        edge.deformation_cycles = 1.0;
        check_sizes(simulate_interferogram(edge), 2, 2);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_interferogram_simulator);

} // namespace core
} // namespace cudadsp
} // namespace gr
