/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_SUPPORT_H
#define INCLUDED_CUDADSP_QA_SUPPORT_H

// Helpers shared by the C++ tests: CUDA availability, the real-data folder, poison,
// a seeded random source.

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

/*! True when a CUDA device is present. Otherwise prints
 *  "<test>: skipped: no CUDA device" so the log shows what did not run. */
bool cuda_available_or_skip(const std::string& test);

/*! $CUDADSP_DATA_DIR, or "" (after printing "<test>: skipped: test data absent") when
 *  the variable is unset or the folder lacks \p relative_file. */
std::string data_file_or_skip(const std::string& test, const std::string& relative_file);

//! Reads a whole binary file of T.
template <typename T>
std::vector<T> read_binary(const std::string& path);

//! numpy's mod: the result takes the sign of the divisor.
double numpy_mod(double a, double b);

/*!
 * Reference phase unwrapping, written from numpy.unwrap's definition (not from the
 * engine's rule): numpy.unwrap(x, period=P) in float64 over the finite samples, each
 * step's correction rounded to a whole number of periods K, output float32(x + P*K).
 * Non-finite samples give NaN and are skipped. vlen > 0 unwraps each vector of vlen on
 * its own; the unwrapping also restarts at every offset in \p resets.
 */
std::vector<float> reference_unwrap(const std::vector<float>& x,
                                    double P,
                                    std::size_t vlen = 0,
                                    const std::vector<std::size_t>& resets = {});

//! Wrapped random walk: steps ~ N(0, step_std), wrapped into [-P/2, P/2).
std::vector<float>
wrapped_walk(std::size_t n, double P, double step_std, std::mt19937_64& rng);

/*!
 * A seeded random source whose sequence is the same on every platform and standard
 * library (splitmix64, unlike std::normal_distribution), so test inputs and their
 * golden expectations do not move between the build host and the GPU host.
 */
class gaussian_source
{
public:
    explicit gaussian_source(std::uint64_t seed) : d_state(seed) {}

    double uniform() // (0, 1)
    {
        std::uint64_t z = (d_state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return (static_cast<double>(z >> 11) + 0.5) * 0x1p-53;
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
    long integer(long lo, long hi) // [lo, hi]
    {
        return std::min(hi, lo + static_cast<long>(uniform() * double(hi - lo + 1)));
    }

    //! Circular complex Gaussian of mean power \p power.
    std::complex<double> complex_normal(double power = 1.0)
    {
        constexpr double pi = 3.14159265358979323846;
        const double r = std::sqrt(-std::log(uniform()) * power);
        const double phi = 2.0 * pi * uniform();
        return { r * std::cos(phi), r * std::sin(phi) };
    }

private:
    std::uint64_t d_state;
};

//! A float no engine output can legitimately be, to catch elements never written.
constexpr float poison_value = -1.2345e37f;

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_SUPPORT_H */
