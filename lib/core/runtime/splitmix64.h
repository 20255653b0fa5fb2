/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_SPLITMIX64_H
#define INCLUDED_CUDADSP_CORE_SPLITMIX64_H

// A seeded random source for the library (the GNSS signal simulator): splitmix64
// (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA
// 2014) and Box-Muller Gaussians from its doubles. Its sequence is the same on every
// platform and standard library, unlike <random>'s distributions, so simulated signals
// and the expectations of tests built on them hold on the build host and the GPU host.

#include <cmath>
#include <complex>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

class splitmix64
{
public:
    explicit splitmix64(std::uint64_t seed) : d_state(seed) {}

    //! splitmix64's output function of any 64-bit value (a counter-based hash).
    static std::uint64_t mix(std::uint64_t z)
    {
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }

    std::uint64_t next() { return mix(d_state += 0x9e3779b97f4a7c15ull); }
    //! The generator's position, to resume it later with splitmix64(state()).
    std::uint64_t state() const { return d_state; }

    //! Uniform in (0, 1): 53 random bits, centred in their interval (never 0 or 1).
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1p-53; }

    //! Circular complex Gaussian of mean power \p power (variance power / 2 per part).
    std::complex<double> complex_normal(double power = 1.0)
    {
        const double r = std::sqrt(-std::log(uniform()) * power);
        const double phi = 6.283185307179586476925286766559 * uniform();
        return { r * std::cos(phi), r * std::sin(phi) };
    }

private:
    std::uint64_t d_state;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_SPLITMIX64_H */
