/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator_float64 (qa_multichannel_correlator_float64.h): its
// registration, and the helpers its files share.

#include "qa_gnss_reference.h"
#include "qa_multichannel_correlator_float64.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace gr {
namespace cudadsp {
namespace core {

namespace multichannel_correlator_float64_qa {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

using qa::records_of;
using qa::reference_correlate;
using qa::same_bits;
using qa::strip_poison;

multichannel_correlator_config
make_config(const std::string& device, double fs, std::size_t taps, gnss_sample_format f)
{
    multichannel_correlator_config config;
    config.device = device;
    config.sample_rate_hz = fs;
    config.taps = taps;
    config.input_format = f;
    config.max_channels = 100000;
    return config;
}

std::vector<std::int8_t> e1_boc_table(int prn, galileo_e1_component component)
{
    return boc11_expand(galileo_e1_code(prn, component));
}

multichannel_correlator_cuda& cuda_engine(multichannel_correlator& engine)
{
    auto* cuda = dynamic_cast<multichannel_correlator_cuda*>(&engine);
    CPPUNIT_ASSERT(cuda != nullptr);
    return *cuda;
}

test_input simulate(gnss_signal_simulator& sim, std::size_t n, gnss_sample_format f)
{
    test_input in;
    in.x.resize(n);
    if (f == gnss_sample_format::cf32) {
        in.cf32.resize(n);
        sim.generate(in.cf32.data(), n);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.cf32[i]);
    } else if (f == gnss_sample_format::ci16) {
        in.ci16.resize(2 * n);
        sim.generate_ci16(in.ci16.data(), n, 3000.0);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.ci16[2 * i], in.ci16[2 * i + 1]);
    } else {
        in.ci8.resize(2 * n);
        sim.generate_ci8(in.ci8.data(), n, 20.0);
        for (std::size_t i = 0; i < n; ++i)
            in.x[i] = cdouble(in.ci8[2 * i], in.ci8[2 * i + 1]);
    }
    return in;
}

void strip_poison_finite(gnss_correlator_results& r)
{
    strip_poison(r);
    for (const cfloat& v : r.correlations)
        CPPUNIT_ASSERT(std::isfinite(v.real()) && std::isfinite(v.imag()));
}

void assert_identical(const gnss_correlator_results& a, const gnss_correlator_results& b)
{
    CPPUNIT_ASSERT_EQUAL(a.records.size(), b.records.size());
    CPPUNIT_ASSERT_EQUAL(a.correlations.size(), b.correlations.size());
    CPPUNIT_ASSERT(std::memcmp(a.records.data(),
                               b.records.data(),
                               a.records.size() * sizeof(gnss_epoch_record)) == 0);
    for (std::size_t i = 0; i < a.correlations.size(); ++i) {
        CPPUNIT_ASSERT(same_bits(a.correlations[i].real(), b.correlations[i].real()));
        CPPUNIT_ASSERT(same_bits(a.correlations[i].imag(), b.correlations[i].imag()));
    }
}

void assert_same_nco_fields(const gnss_epoch_record& a, const gnss_epoch_record& b)
{
    CPPUNIT_ASSERT_EQUAL(a.channel_id, b.channel_id);
    CPPUNIT_ASSERT_EQUAL(a.epoch, b.epoch);
    CPPUNIT_ASSERT_EQUAL(a.start_sample, b.start_sample);
    CPPUNIT_ASSERT_EQUAL(a.sample_count, b.sample_count);
    CPPUNIT_ASSERT(same_bits(a.code_phase_chips, b.code_phase_chips));
    CPPUNIT_ASSERT(same_bits(a.code_rate_cps, b.code_rate_cps));
    CPPUNIT_ASSERT(same_bits(a.doppler_hz, b.doppler_hz));
    CPPUNIT_ASSERT(same_bits(a.carrier_phase_rad, b.carrier_phase_rad));
    CPPUNIT_ASSERT(same_bits(a.carrier_cycles, b.carrier_cycles));
}

double check_channel(const gnss_correlator_results& r,
                     const std::vector<cdouble>& x,
                     double fs,
                     const gnss_channel& c,
                     const std::string& what)
{
    const auto ref = reference_correlate(x, fs, c);
    const auto idx = records_of(r, c.id);
    CPPUNIT_ASSERT(!ref.empty());
    CPPUNIT_ASSERT_EQUAL(ref.size(), idx.size());
    double worst = 0.0;
    for (std::size_t e = 0; e < ref.size(); ++e) {
        const gnss_epoch_record& rec = r.records[idx[e]];
        CPPUNIT_ASSERT_EQUAL(std::uint64_t(e), rec.epoch);
        CPPUNIT_ASSERT_EQUAL(ref[e].start, rec.start_sample);
        CPPUNIT_ASSERT_EQUAL(ref[e].count, rec.sample_count);
        for (std::size_t t = 0; t < ref[e].taps.size(); ++t) {
            const cdouble got(r.taps_of(idx[e])[t]);
            const double tol = 1e-4 * std::max(std::abs(ref[e].taps[t]), ref[e].scale);
            const double err = std::abs(got - ref[e].taps[t]);
            worst = std::max(worst, err / tol);
            if (!(err <= tol)) {
                std::ostringstream msg;
                msg << what << ": channel " << c.id << " epoch " << e << " tap " << t
                    << ": engine " << got << ", reference " << ref[e].taps[t]
                    << ", error " << err << " > " << tol;
                CPPUNIT_FAIL(msg.str());
            }
        }
    }
    return worst;
}

} // namespace multichannel_correlator_float64_qa

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator_float64);

} // namespace core
} // namespace cudadsp
} // namespace gr
