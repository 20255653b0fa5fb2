/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_support.h"
#include <gnuradio/cudadsp/core/device.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace qa {

bool cuda_available_or_skip(const std::string& test)
{
    if (core::cuda_device_count() > 0)
        return true;
    std::cout << test << ": skipped: no CUDA device" << std::endl;
    return false;
}

std::string data_file_or_skip(const std::string& test, const std::string& relative_file)
{
    const char* dir = std::getenv("CUDADSP_DATA_DIR");
    const std::string path = dir ? std::string(dir) + "/" + relative_file : "";
    if (!path.empty() && std::ifstream(path).good())
        return path;
    std::cout << test << ": skipped: test data absent (" << relative_file
              << " under CUDADSP_DATA_DIR)" << std::endl;
    return "";
}

double numpy_mod(double a, double b)
{
    double r = std::fmod(a, b);
    if (r != 0.0 && ((r < 0.0) != (b < 0.0)))
        r += b;
    return r;
}

std::vector<float> reference_unwrap(const std::vector<float>& x,
                                    double P,
                                    std::size_t vlen,
                                    const std::vector<std::size_t>& resets)
{
    std::vector<float> y(x.size());
    bool have_previous = false;
    double previous = 0.0;
    std::int64_t K = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if ((vlen > 0 && i % vlen == 0) ||
            std::find(resets.begin(), resets.end(), i) != resets.end()) {
            have_previous = false;
            K = 0;
        }
        const double v = x[i];
        if (!std::isfinite(v)) {
            y[i] = std::numeric_limits<float>::quiet_NaN();
            continue;
        }
        if (have_previous) {
            const double dd = v - previous;
            double ddmod = numpy_mod(dd + P / 2, P) - P / 2;
            if (ddmod == -P / 2 && dd > 0)
                ddmod = P / 2;
            const double correct = std::fabs(dd) < P / 2 ? 0.0 : ddmod - dd;
            K += std::llround(correct / P);
        }
        previous = v;
        have_previous = true;
        y[i] = static_cast<float>(v + P * static_cast<double>(K));
    }
    return y;
}

std::vector<float>
wrapped_walk(std::size_t n, double P, double step_std, std::mt19937_64& rng)
{
    std::normal_distribution<double> step(0.0, step_std);
    std::vector<float> x(n);
    double phase = std::uniform_real_distribution<double>(-P, P)(rng);
    for (auto& v : x) {
        phase += step(rng);
        v = static_cast<float>(numpy_mod(phase + P / 2, P) - P / 2);
    }
    return x;
}

template <typename T>
std::vector<T> read_binary(const std::string& path)
{
    std::ifstream file(path, std::ios::binary | std::ios::ate);
    if (!file)
        throw std::runtime_error("cannot open " + path);
    const std::streamsize bytes = file.tellg();
    std::vector<T> data(static_cast<std::size_t>(bytes) / sizeof(T));
    file.seekg(0);
    file.read(reinterpret_cast<char*>(data.data()), data.size() * sizeof(T));
    return data;
}

template std::vector<float> read_binary<float>(const std::string&);
template std::vector<std::complex<float>>
read_binary<std::complex<float>>(const std::string&);

} // namespace qa
} // namespace cudadsp
} // namespace gr
