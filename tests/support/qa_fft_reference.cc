/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_fft_reference.h"
#include <utility>

namespace gr {
namespace cudadsp {
namespace qa {

void fft(std::complex<double>* a, long n, bool inverse, long stride)
{
    constexpr double pi = 3.14159265358979323846;
    for (long i = 1, j = 0; i < n; ++i) {
        long bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j)
            std::swap(a[i * stride], a[j * stride]);
    }
    for (long len = 2; len <= n; len <<= 1) {
        const double angle = (inverse ? 2.0 : -2.0) * pi / double(len);
        for (long i = 0; i < n; i += len)
            for (long k = 0; k < len / 2; ++k) {
                const std::complex<double> w = std::polar(1.0, angle * double(k));
                const std::complex<double> u = a[(i + k) * stride];
                const std::complex<double> v = a[(i + k + len / 2) * stride] * w;
                a[(i + k) * stride] = u + v;
                a[(i + k + len / 2) * stride] = u - v;
            }
    }
}

void fft2(std::vector<std::complex<double>>& a, long rows, long cols, bool inverse)
{
    for (long r = 0; r < rows; ++r)
        fft(a.data() + r * cols, cols, inverse);
    for (long c = 0; c < cols; ++c)
        fft(a.data() + c, rows, inverse, cols);
}

long pow2_at_least(long n)
{
    long p = 1;
    while (p < n)
        p *= 2;
    return p;
}

} // namespace qa
} // namespace cudadsp
} // namespace gr
