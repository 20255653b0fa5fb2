/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The phase unwrapper engine used from C++ without GNU Radio: known samples in, their
// known unwrapping out. Usage: unwrap_known_samples [device] (default "auto").

#include <gnuradio/cudadsp/core/phase_unwrap.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using gr::cudadsp::core::phase_unwrap_config;
using gr::cudadsp::core::phase_unwrapper;

//! |got - expected| <= tolerance everywhere; prints the first sample that is not.
bool agrees(const char* name,
            const std::vector<float>& got,
            const std::vector<double>& expected,
            double tolerance)
{
    for (std::size_t i = 0; i < expected.size(); ++i) {
        if (!(std::abs(got[i] - expected[i]) <= tolerance)) {
            std::printf("%s: sample %zu is %.7g, expected %.7g\n",
                        name,
                        i,
                        static_cast<double>(got[i]),
                        expected[i]);
            return false;
        }
    }
    std::printf("%s: %zu samples as expected\n", name, expected.size());
    return true;
}

} // namespace

int main(int argc, char** argv)
{
    phase_unwrap_config config;
    config.device = argc > 1 ? argv[1] : "auto";

    // A phase ramp of 1.3 rad per sample, wrapped into [-pi, pi]: each step is below
    // pi, so the unwrapped output is the ramp itself.
    const double step_rad = 1.3;
    const double two_pi = 2 * std::acos(-1.0);
    std::vector<float> wrapped;
    std::vector<double> ramp;
    for (int n = 0; n < 40; ++n) {
        const double phase = step_rad * n;
        ramp.push_back(phase);
        wrapped.push_back(static_cast<float>(std::remainder(phase, two_pi)));
    }

    auto unwrapper = phase_unwrapper::make(config);
    std::printf("backend %s\n", unwrapper->device().to_string().c_str());

    std::vector<float> out(wrapped.size());
    unwrapper->unwrap(wrapped.data(), out.data(), wrapped.size());
    bool ok = agrees("ramp, one call", out, ramp, 1e-5);

    // The state carries across calls: two uneven halves give the same output.
    unwrapper->reset();
    unwrapper->unwrap(wrapped.data(), out.data(), 13);
    unwrapper->unwrap(wrapped.data() + 13, out.data() + 13, wrapped.size() - 13);
    ok = agrees("ramp, two calls", out, ramp, 1e-5) && ok;

    // Degrees: a jump of more than 180 is a wrap, one of exactly 180 is kept.
    unwrapper->set_period(360.0);
    const std::vector<float> degrees = { 170, -170, -150, 175, -5 };
    unwrapper->unwrap(degrees.data(), out.data(), degrees.size());
    out.resize(degrees.size());
    ok = agrees("degrees", out, { 170, 190, 210, 175, -5 }, 0.0) && ok;

    return ok ? 0 : 1;
}
