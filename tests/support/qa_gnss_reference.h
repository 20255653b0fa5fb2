/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H
#define INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H

// The float64 reference of the multichannel correlator tests (CPU and CUDA backends):
// written from the NCO definitions of multichannel_correlator.h in 128-bit integers,
// not from the engine's rules, so it can disagree with both backends.

#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

//! One completed open-loop epoch of the reference.
struct reference_epoch {
    std::uint64_t start = 0; //!< absolute index of the first sample
    std::uint32_t count = 0; //!< samples in the epoch
    std::vector<std::complex<double>> taps;
    double scale = 0.0; //!< sqrt(sum |x|^2) over the epoch
};

/*!
 * Open-loop correlations of channel \p c over samples [0, x.size()) (x[0] is absolute
 * sample 0) at \p fs samples/s: the epochs completed inside x, in order.
 */
std::vector<reference_epoch> reference_correlate(
    const std::vector<std::complex<double>>& x, double fs, const core::gnss_channel& c);

//! Indices of channel \p id's records in \p r, in order.
std::vector<std::size_t> records_of(const core::gnss_correlator_results& r,
                                    std::uint32_t id);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_GNSS_REFERENCE_H */
