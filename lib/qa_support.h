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

//! A float no engine output can legitimately be, to catch elements never written.
constexpr float poison_value = -1.2345e37f;

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_SUPPORT_H */
