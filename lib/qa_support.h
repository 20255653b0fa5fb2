/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_SUPPORT_H
#define INCLUDED_CUDADSP_QA_SUPPORT_H

// Helpers shared by the C++ tests: CUDA availability, the real-data folder, poison.

#include <cstddef>
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

//! A float no engine output can legitimately be, to catch elements never written.
constexpr float poison_value = -1.2345e37f;

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_SUPPORT_H */
