/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_multichannel_correlator (qa_multichannel_correlator.h): its registration, and the
// helpers its files share.

#include "qa_multichannel_correlator.h"

namespace gr {
namespace cudadsp {
namespace core {

namespace multichannel_correlator_qa {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

multichannel_correlator_config make_config(const std::string& device,
                                           double fs,
                                           std::size_t taps,
                                           gnss_sample_format format)
{
    multichannel_correlator_config config;
    config.device = device;
    config.sample_rate_hz = fs;
    config.taps = taps;
    config.input_format = format;
    return config;
}

std::vector<cdouble> noise_samples(std::size_t n, std::uint64_t seed, double power)
{
    qa::gaussian_source g(seed);
    std::vector<cdouble> x(n);
    for (auto& v : x)
        v = g.complex_normal(power);
    return x;
}

std::vector<cfloat> to_cf32(const std::vector<cdouble>& x)
{
    std::vector<cfloat> y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        y[i] = cfloat(x[i]);
    return y;
}

} // namespace multichannel_correlator_qa

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator);

} // namespace core
} // namespace cudadsp
} // namespace gr
