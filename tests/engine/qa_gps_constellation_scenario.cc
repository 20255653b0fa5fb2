/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The GPS constellation scenario against truth computed here from the definitions: the
// light time solved by this test's own iteration with its own Earth rotation matrix,
// the satellite clock from the ephemeris fields and a Newton solution of Kepler's
// equation (only the orbit comes from gps_satellite_at, tested in qa_gps_navigation,
// and the Klobuchar delay from klobuchar_delay_m, tested in qa_gnss_pvt), the data bits
// through the LNAV decoder, the samples through a correlation with replicas built from
// the truth, and the simulator's phase tracks on cubic polynomials.

#include "gnss/gnss_atmosphere.h"
#include "gnss/gnss_geodesy.h"
#include "gnss/gps_constellation_scenario.h"
#include "gnss/gps_ephemeris.h"
#include "gnss/gps_lnav.h"
#include "gnss/gps_nominal_constellation.h"
#include "qa_gps_scenario.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <cppunit/extensions/HelperMacros.h>
#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr double c = 299792458.0;
constexpr double pi = 3.141592653589793;
constexpr double wavelength_m = c / 1575.42e6;
constexpr double chip_rate = 1.023e6;
constexpr int week = 300;
constexpr double toe = 345600.0;

const gnss_klobuchar_coefficients& broadcast_klobuchar = qa::broadcast_klobuchar();

gps_scenario_config constellation_config(double start_tow_s, double duration_s)
{
    gps_scenario_config config = qa::nominal_scenario(week, toe);
    config.start_tow_s = start_tow_s;
    config.duration_s = duration_s;
    config.elevation_mask_deg = 5.0;
    config.signal.sample_rate_hz = 4e6;
    config.signal.intermediate_frequency_hz = 0.5e6;
    return config;
}

// Delta t_sv(L1) of IS-GPS-200 20.3.3.3.3.1 and .2, from the fields.
double clock_from_definition(const gps_ephemeris& e, double t)
{
    double tk = t - e.toe, tc = t - e.toc;
    tk -= std::round(tk / 604800.0) * 604800.0;
    tc -= std::round(tc / 604800.0) * 604800.0;
    const double a = e.sqrt_a * e.sqrt_a;
    const double mean_motion = std::sqrt(3.986005e14 / (a * a * a)) + e.delta_n * gps_pi;
    const double m = e.m0 * gps_pi + mean_motion * tk;
    double ecc_anomaly = m;
    for (int k = 0; k < 20; ++k)
        ecc_anomaly -= (ecc_anomaly - e.e * std::sin(ecc_anomaly) - m) /
                       (1.0 - e.e * std::cos(ecc_anomaly));
    return e.af0 + e.af1 * tc + e.af2 * tc * tc +
           -4.442807633e-10 * e.e * e.sqrt_a * std::sin(ecc_anomaly) - e.tgd;
}

struct independent_truth {
    double range_m;
    double ionosphere_m;
    double clock_s;
    double elevation_rad;
    double pseudorange_m() const { return range_m + ionosphere_m - c * clock_s; }
    double carrier_range_m() const { return range_m - ionosphere_m - c * clock_s; }
};

independent_truth solve_here(const gps_scenario_config& config,
                             const gps_ephemeris& e,
                             double receive_offset_s)
{
    gnss_vec3 rx;
    for (int i = 0; i < 3; ++i)
        rx[i] = config.receiver.position_m[i] +
                config.receiver.velocity_m_s[i] * receive_offset_s;
    const gnss_geodetic where = ecef_to_geodetic(rx);
    const double t_rx = config.start_tow_s + receive_offset_s;
    independent_truth out{};
    double transit = 0.0;
    for (int k = 0; k < 50; ++k) {
        const gps_satellite_state s = gps_satellite_at(e, t_rx - transit);
        const double angle = 7.2921151467e-5 * transit;
        const gnss_vec3 sat{
            std::cos(angle) * s.position[0] + std::sin(angle) * s.position[1],
            -std::sin(angle) * s.position[0] + std::cos(angle) * s.position[1],
            s.position[2]
        };
        const gnss_vec3 d{ sat[0] - rx[0], sat[1] - rx[1], sat[2] - rx[2] };
        out.range_m = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        const gnss_vec3 up{ std::cos(where.latitude_rad) * std::cos(where.longitude_rad),
                            std::cos(where.latitude_rad) * std::sin(where.longitude_rad),
                            std::sin(where.latitude_rad) };
        out.elevation_rad =
            std::asin((d[0] * up[0] + d[1] * up[1] + d[2] * up[2]) / out.range_m);
        out.ionosphere_m =
            config.ionosphere == gnss_ionosphere_model::klobuchar
                ? klobuchar_delay_m(
                      config.klobuchar, where, azimuth_elevation(rx, where, sat), t_rx)
                : 0.0;
        const double next = (out.range_m + out.ionosphere_m) / c;
        const bool converged = std::fabs(next - transit) < 1e-15;
        transit = next;
        out.clock_s = clock_from_definition(e, t_rx - transit);
        if (converged)
            break;
    }
    return out;
}

void expect_invalid(const std::function<void()>& make, const std::string& field)
{
    try {
        make();
    } catch (const std::invalid_argument& error) {
        CPPUNIT_ASSERT_MESSAGE(std::string(error.what()) + " should name " + field,
                               std::string(error.what()).find(field) !=
                                   std::string::npos);
        return;
    }
    CPPUNIT_FAIL("no std::invalid_argument for " + field);
}

} // namespace

class qa_gps_constellation_scenario : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_gps_constellation_scenario);
    CPPUNIT_TEST(phase_track_interpolates_cubics_exactly);
    CPPUNIT_TEST(code_and_carrier_phases_match_independent_ranges);
    CPPUNIT_TEST(data_bits_decode_to_the_ephemeris_with_matching_tow);
    CPPUNIT_TEST(samples_correlate_with_truth_replicas);
    CPPUNIT_TEST(elevation_mask_selects_satellites);
    CPPUNIT_TEST(bad_inputs_name_the_field);
    CPPUNIT_TEST_SUITE_END();

public:
    void phase_track_interpolates_cubics_exactly()
    {
        // A cubic table is reproduced exactly, value and slope, anywhere in it.
        auto code = [](double t) {
            return 5e6 + 1.023e6 * t + 40.0 * t * t - 7.0 * t * t * t;
        };
        auto code_rate = [](double t) { return 1.023e6 + 80.0 * t - 21.0 * t * t; };
        auto carrier = [](double t) {
            return -2e4 * t + 300.0 * t * t + 11.0 * t * t * t;
        };
        auto doppler = [](double t) {
            return (-2e4 + 600.0 * t + 33.0 * t * t) / (2 * pi);
        };
        gnss_simulated_satellite s;
        s.code = gps_l1ca_code(3);
        s.track.interval_s = 1e-3;
        for (int k = 0; k < 30; ++k) {
            s.track.code_phase_chips.push_back(code(k * 1e-3));
            s.track.carrier_phase_rad.push_back(carrier(k * 1e-3));
        }
        gnss_simulator_config config;
        config.sample_rate_hz = 1e6;
        config.intermediate_frequency_hz = 1e5;
        gnss_signal_simulator sim(config, { s });
        for (double n : { 0.0, 0.3, 999.5, 1234.567, 14000.25, 27999.0, 29000.0 }) {
            const double t = n / config.sample_rate_hz;
            CPPUNIT_ASSERT_DOUBLES_EQUAL(code(t), sim.code_phase_total_chips(0, n), 1e-8);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(code_rate(t), sim.code_rate_cps(0, n), 1e-5);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(
                carrier(t) + 2 * pi * 1e5 * t, sim.carrier_phase_rad(0, n), 1e-9);
            CPPUNIT_ASSERT_DOUBLES_EQUAL(doppler(t), sim.doppler_hz(0, n), 1e-6);
        }
        std::vector<std::complex<float>> out(29001);
        CPPUNIT_ASSERT_THROW(sim.generate(out.data(), out.size() + 1), std::out_of_range);
        sim.generate(out.data(), out.size());
    }

    void code_and_carrier_phases_match_independent_ranges()
    {
        for (bool moving : { false, true }) {
            gps_scenario_config config = constellation_config(toe + 1000.3, 2.0);
            config.ionosphere = gnss_ionosphere_model::klobuchar;
            config.klobuchar = broadcast_klobuchar;
            if (moving)
                config.receiver.velocity_m_s = { { 10.0, -20.0, 5.0 } };
            gps_constellation_scenario scenario(config);
            const gnss_signal_simulator& sim = scenario.signal();
            const double ref = scenario.code_reference_tow_s();
            CPPUNIT_ASSERT_EQUAL(0.0, std::fmod(ref, 6.0));
            CPPUNIT_ASSERT(scenario.satellite_count() >= 6);
            const double fs = config.signal.sample_rate_hz;
            const double if_hz = config.signal.intermediate_frequency_hz;
            for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
                const gps_ephemeris& e = scenario.satellite(sat).ephemeris;
                const independent_truth at_0 = solve_here(config, e, 0.0);
                for (int k = 0; k < 40; ++k) {
                    // Fractional samples spread over the 2 s, away from the 1-ms nodes.
                    const double n = (k * 0.0497 + 0.000123) * fs + 0.37;
                    const double t = n / fs;
                    const independent_truth here = solve_here(config, e, t);
                    const double code_pseudorange_m =
                        c * ((config.start_tow_s - ref) + t -
                             sim.code_phase_total_chips(sat, n) / chip_rate);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        here.pseudorange_m(), code_pseudorange_m, 1e-3);
                    const double carrier_delta_m =
                        -(sim.carrier_phase_rad(sat, n) - 2 * pi * if_hz * t) *
                        wavelength_m / (2 * pi);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(here.carrier_range_m() -
                                                     at_0.carrier_range_m(),
                                                 carrier_delta_m,
                                                 1e-3);

                    const gps_scenario_truth truth = scenario.truth(sat, n);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        here.range_m, truth.geometric_range_m, 1e-4);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        here.ionosphere_m, truth.ionosphere_m, 1e-6);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        here.clock_s, truth.satellite_clock_s, 1e-14);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        here.pseudorange_m(), truth.pseudorange_m, 1e-4);
                    CPPUNIT_ASSERT(truth.ionosphere_m > 1.0);
                    const double h = 1e-3;
                    const double range_rate =
                        (solve_here(config, e, t + h).carrier_range_m() -
                         solve_here(config, e, t - h).carrier_range_m()) /
                        (2 * h);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        -range_rate / wavelength_m, sim.doppler_hz(sat, n), 1e-2);
                    CPPUNIT_ASSERT_DOUBLES_EQUAL(
                        -range_rate / wavelength_m, truth.doppler_hz, 1e-2);
                }
            }
        }
    }

    void data_bits_decode_to_the_ephemeris_with_matching_tow()
    {
        // Sample 0 receives the last bits of a subframe 5: the decoder syncs on the next
        // frame's subframe 1 and has subframes 1 to 3 18 s later.
        const double start = toe + 1800.02;
        gps_scenario_config config = constellation_config(start, 18.3);
        gps_constellation_scenario scenario(config);
        const gnss_signal_simulator& sim = scenario.signal();
        const double fs = config.signal.sample_rate_hz;
        for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat) {
            const gps_ephemeris& given = scenario.satellite(sat).ephemeris;
            gps_lnav_decoder decoder(given.prn);
            std::int64_t last_bit = std::numeric_limits<std::int64_t>::min();
            int subframes = 0;
            for (int ms = 0; ms <= 18300; ++ms) {
                const double n = ms * 1e-3 * fs;
                const std::int64_t b = sim.bit_index(sat, n);
                if (b == last_bit)
                    continue;
                last_bit = b;
                if (!decoder.push(sim.bit(sat, b)))
                    continue;
                ++subframes;
                // The bit that completed the subframe ends at the next subframe's
                // start, the HOW's TOW; it was sent within the last 20 ms before it.
                const gps_scenario_truth truth = scenario.truth(sat, n);
                const double signal_tow = truth.transmit_tow_s + truth.satellite_clock_s;
                const double next_subframe_tow = 6.0 * decoder.last_header().tow_count;
                CPPUNIT_ASSERT(signal_tow < next_subframe_tow);
                CPPUNIT_ASSERT(signal_tow >= next_subframe_tow - 0.02);
            }
            CPPUNIT_ASSERT_EQUAL(3, subframes);
            CPPUNIT_ASSERT(decoder.has_ephemeris());
            // IS-GPS-200 Table 3-III: logic 1 is sent as -1. The last subframe's
            // preamble 10001011 starts at its TOW, 6 s before its HOW's count.
            const double last_start_tow = 6.0 * (decoder.last_header().tow_count - 1);
            const std::int64_t preamble_bit = static_cast<std::int64_t>(
                std::llround((last_start_tow - scenario.code_reference_tow_s()) * 50.0));
            const int preamble_levels[8] = { -1, 1, 1, 1, -1, 1, -1, -1 };
            for (int k = 0; k < 8; ++k)
                CPPUNIT_ASSERT_EQUAL(preamble_levels[k], sim.bit(sat, preamble_bit + k));
            const gps_ephemeris& got = decoder.ephemeris();
            CPPUNIT_ASSERT_EQUAL(given.week, got.week);
            CPPUNIT_ASSERT_EQUAL(given.iodc, got.iodc);
            CPPUNIT_ASSERT_EQUAL(given.iode, got.iode);
            for (auto field : { &gps_ephemeris::tgd,       &gps_ephemeris::toc,
                                &gps_ephemeris::af1,       &gps_ephemeris::af0,
                                &gps_ephemeris::crs,       &gps_ephemeris::delta_n,
                                &gps_ephemeris::m0,        &gps_ephemeris::cuc,
                                &gps_ephemeris::e,         &gps_ephemeris::cus,
                                &gps_ephemeris::sqrt_a,    &gps_ephemeris::toe,
                                &gps_ephemeris::cic,       &gps_ephemeris::omega0,
                                &gps_ephemeris::cis,       &gps_ephemeris::i0,
                                &gps_ephemeris::crc,       &gps_ephemeris::omega,
                                &gps_ephemeris::omega_dot, &gps_ephemeris::idot })
                CPPUNIT_ASSERT_EQUAL(given.*field, got.*field);
        }
    }

    void samples_correlate_with_truth_replicas()
    {
        // Eight satellites in the signal; each in turn 30 dB above the others, so that
        // their cross-correlation (and the noise) moves its correlation by < 0.2 %.
        gps_scenario_config config = constellation_config(toe + 5000.0, 0.02);
        config.ionosphere = gnss_ionosphere_model::klobuchar;
        config.klobuchar = broadcast_klobuchar;
        config.elevation_mask_deg = 15.0;
        CPPUNIT_ASSERT_EQUAL(std::size_t(8),
                             gps_constellation_scenario(config).satellite_count());
        const double fs = config.signal.sample_rate_hz;
        const std::size_t n_samples = 80000;
        std::vector<std::complex<float>> x(n_samples);
        for (std::size_t sat = 0; sat < 8; ++sat) {
            const int prn =
                gps_constellation_scenario(config).satellite(sat).ephemeris.prn;
            for (gps_scenario_satellite& s : config.satellites)
                s.cn0_dbhz = s.ephemeris.prn == prn ? 80.0 : 50.0;
            gps_constellation_scenario scenario(config);
            scenario.signal().generate(x.data(), n_samples);
            const double amplitude = scenario.signal().amplitude(sat);
            const std::vector<std::int8_t> code = gps_l1ca_code(prn);
            // The expected correlation at a lag of k + f chips of a rectangular-chip
            // code: (1 - f) R(k) + f R(k + 1), R the code's periodic autocorrelation.
            auto autocorrelation = [&code](int lag) {
                double sum = 0.0;
                for (int i = 0; i < 1023; ++i)
                    sum += code[i] * code[(i + lag) % 1023];
                return sum / 1023.0;
            };
            const double carrier_range_0 = scenario.truth(sat, 0.0).carrier_range_m;
            for (double offset_chips : { 0.0, 0.5, 1.5 }) {
                std::complex<double> sum = 0.0;
                // Truth every 1 ms, linear between: the range's curvature over 1 ms is
                // under a micrometre.
                for (std::size_t ms = 0; ms < 20; ++ms) {
                    const double n0 = ms * 1e-3 * fs, n1 = n0 + 1e-3 * fs;
                    const gps_scenario_truth a = scenario.truth(sat, n0);
                    const gps_scenario_truth b = scenario.truth(sat, n1);
                    for (double n = n0; n < n1; n += 1.0) {
                        const double w = (n - n0) / (n1 - n0);
                        const double chi = a.code_phase_chips +
                                           w * (b.code_phase_chips - a.code_phase_chips) -
                                           offset_chips;
                        const double carrier_range =
                            a.carrier_range_m +
                            w * (b.carrier_range_m - a.carrier_range_m);
                        const double theta =
                            2 * pi * config.signal.intermediate_frequency_hz * n / fs -
                            2 * pi * (carrier_range - carrier_range_0) / wavelength_m;
                        const long chip = static_cast<long>(std::floor(chi)) % 1023;
                        const int bit = scenario.signal().bit(
                            sat, static_cast<std::int64_t>(std::floor(chi / 20460.0)));
                        sum += std::complex<double>(x[static_cast<std::size_t>(n)]) *
                               double(code[chip] * bit) * std::polar(1.0, -theta);
                    }
                }
                const std::complex<double> mean = sum / double(n_samples);
                const int whole = static_cast<int>(offset_chips);
                const double fraction = offset_chips - whole;
                const double expected =
                    amplitude * ((1.0 - fraction) * autocorrelation(whole) +
                                 fraction * autocorrelation(whole + 1));
                CPPUNIT_ASSERT_DOUBLES_EQUAL(expected, mean.real(), 0.005 * amplitude);
                CPPUNIT_ASSERT(std::fabs(mean.imag()) < 0.005 * amplitude);
            }
        }
    }

    void elevation_mask_selects_satellites()
    {
        for (double mask_deg : { 5.0, 30.0, 90.0 }) {
            gps_scenario_config config = constellation_config(toe + 7000.0, 0.01);
            config.elevation_mask_deg = mask_deg;
            gps_constellation_scenario scenario(config);
            std::set<int> simulated;
            for (std::size_t sat = 0; sat < scenario.satellite_count(); ++sat)
                simulated.insert(scenario.satellite(sat).ephemeris.prn);
            std::set<int> expected;
            for (const gps_scenario_satellite& s : config.satellites)
                if (solve_here(config, s.ephemeris, 0.0).elevation_rad >=
                    mask_deg * pi / 180)
                    expected.insert(s.ephemeris.prn);
            CPPUNIT_ASSERT(simulated == expected);
            if (mask_deg == 5.0)
                CPPUNIT_ASSERT(expected.size() >= 6);
            if (mask_deg == 90.0)
                CPPUNIT_ASSERT(expected.empty());
        }
    }

    void bad_inputs_name_the_field()
    {
        const gps_scenario_config good = constellation_config(toe + 100.0, 0.01);
        auto with = [&](const std::function<void(gps_scenario_config&)>& change) {
            return [&good, change] {
                gps_scenario_config config = good;
                change(config);
                gps_constellation_scenario scenario(config);
            };
        };
        const double nan = std::numeric_limits<double>::quiet_NaN();
        expect_invalid(with([](auto& c) { c.duration_s = 0.0; }), "duration_s");
        expect_invalid(with([](auto& c) { c.start_tow_s = 0.5; }), "start_tow_s");
        expect_invalid(with([](auto& c) { c.start_tow_s = 604799.995; }), "start_tow_s");
        expect_invalid(with([](auto& c) { c.elevation_mask_deg = 91.0; }),
                       "elevation_mask_deg");
        expect_invalid(with([](auto& c) {
                           c.receiver.position_m = { { 0.0, 0.0, 0.0 } };
                       }),
                       "receiver.position_m");
        expect_invalid(with([&](auto& c) { c.receiver.velocity_m_s[1] = nan; }),
                       "receiver.velocity_m_s");
        expect_invalid(with([](auto& c) { c.klobuchar.beta[2] = INFINITY; }),
                       "klobuchar.beta");
        expect_invalid(with([](auto& c) {
                           c.satellites[1].ephemeris.prn = c.satellites[0].ephemeris.prn;
                       }),
                       "satellites[1].ephemeris.prn");
        expect_invalid(with([](auto& c) { c.satellites[2].ephemeris.prn = 33; }),
                       "satellites[2].ephemeris.prn");
        expect_invalid(with([](auto& c) { c.satellites[2].ephemeris.sqrt_a = -1.0; }),
                       "satellites[2].ephemeris.sqrt_a");
        expect_invalid(with([](auto& c) { c.satellites[0].ephemeris.e = 1.0; }),
                       "satellites[0].ephemeris.e");
        expect_invalid(with([&](auto& c) { c.satellites[3].cn0_dbhz = nan; }),
                       "satellites[3].cn0_dbhz");
        expect_invalid(with([](auto& c) { c.signal.sample_rate_hz = 0.0; }),
                       "sample_rate_hz");
        expect_invalid([] { gps_nominal_constellation(1024, toe); }, "week");
        expect_invalid([] { gps_nominal_constellation(week, 8.0); }, "toe_s");

        gnss_simulated_satellite tracked;
        tracked.code = gps_l1ca_code(1);
        tracked.track.code_phase_chips = { 0.0, 1.0, 2.0 };
        tracked.track.carrier_phase_rad = { 0.0, 1.0, 2.0 };
        expect_invalid([&] { gnss_signal_simulator({}, { tracked }); },
                       "satellites[0].track.code_phase_chips");
        tracked.track.code_phase_chips.push_back(3.0);
        expect_invalid([&] { gnss_signal_simulator({}, { tracked }); },
                       "satellites[0].track.carrier_phase_rad");
        tracked.track.carrier_phase_rad.push_back(3.0);
        tracked.doppler_hz = 100.0;
        expect_invalid([&] { gnss_signal_simulator({}, { tracked }); },
                       "satellites[0].doppler_hz");
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_gps_constellation_scenario);

} // namespace core
} // namespace cudadsp
} // namespace gr
