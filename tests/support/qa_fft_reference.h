/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_FFT_REFERENCE_H
#define INCLUDED_CUDADSP_QA_FFT_REFERENCE_H

// A float64 FFT written plainly for the tests' references and synthetic images, so that
// what they compare with shares no code with the engines (FFTW, cuFFT).

#include <complex>
#include <vector>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * In-place radix-2 FFT of \p n (a power of two) points spaced \p stride apart, float64,
 * unnormalised; forward uses e^{-2 pi i k n / N}, \p inverse the conjugate kernel.
 */
void fft(std::complex<double>* a, long n, bool inverse, long stride = 1);

//! 2D FFT (rows, then columns) of a \p rows x \p cols row-major array, both powers of 2.
void fft2(std::vector<std::complex<double>>& a, long rows, long cols, bool inverse);

//! The smallest power of two >= \p n.
long pow2_at_least(long n);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_FFT_REFERENCE_H */
