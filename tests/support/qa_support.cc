/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "qa_support.h"
#include <gnuradio/cudadsp/core/device.h>
#include <sys/resource.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace qa {

void skip(const std::string& reason) { throw skipped(reason); }

address_space_limit::address_space_limit(std::size_t spare_bytes)
{
    rlimit limit{};
    if (getrlimit(RLIMIT_AS, &limit) != 0)
        throw std::runtime_error("address_space_limit: getrlimit failed");
    d_saved_soft_limit = limit.rlim_cur;
    std::ifstream status("/proc/self/status");
    std::string line;
    unsigned long long in_use_kib = 0;
    while (std::getline(status, line))
        if (line.rfind("VmSize:", 0) == 0)
            in_use_kib = std::stoull(line.substr(7));
    if (in_use_kib == 0)
        throw std::runtime_error("address_space_limit: no VmSize in /proc/self/status");
    limit.rlim_cur = in_use_kib * 1024 + spare_bytes;
    if (limit.rlim_max != RLIM_INFINITY && limit.rlim_cur > limit.rlim_max)
        limit.rlim_cur = limit.rlim_max;
    if (setrlimit(RLIMIT_AS, &limit) != 0)
        throw std::runtime_error("address_space_limit: setrlimit failed");
}

address_space_limit::~address_space_limit()
{
    rlimit limit{};
    getrlimit(RLIMIT_AS, &limit);
    limit.rlim_cur = d_saved_soft_limit;
    setrlimit(RLIMIT_AS, &limit);
}

bool cuda_present() { return core::cuda_device_count() > 0; }

void require_cuda()
{
    if (!cuda_present())
        skip("no CUDA device");
}

bool sanitizer_run()
{
    // Read once: the answer must not change between the sizes one case derives.
    static const bool under_sanitizer = [] {
        const char* flag = std::getenv("CUDADSP_QA_SANITIZER");
        return flag && *flag && std::string(flag) != "0";
    }();
    return under_sanitizer;
}

void skip_under_sanitizer(const std::string& what)
{
    if (sanitizer_run())
        skip(what + ": not measured under a CUDA sanitizer, which slows kernels down");
}

namespace {

bool holds_data(const std::string& dir)
{
    return !dir.empty() && std::ifstream(dir + "/README.md").good();
}

//! The folder of the running executable (Linux: /proc/self/exe).
std::string executable_dir()
{
    std::error_code error;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", error);
    return error ? std::string() : exe.parent_path().string();
}

} // namespace

std::string data_dir()
{
    if (const char* dir = std::getenv("CUDADSP_DATA_DIR"))
        return dir;
    const std::string bin = executable_dir();
    for (const std::string& candidate : { bin + "/../data",
                                          bin + "/../share/gr-cudadsp/data",
                                          std::string(CUDADSP_SOURCE_DATA_DIR) })
        if (holds_data(candidate))
            return candidate;
    return "";
}

std::string data_file(const std::string& relative_file)
{
    const std::string dir = data_dir();
    const std::string path = dir + "/" + relative_file;
    if (dir.empty() || !std::ifstream(path).good())
        skip("test data absent: " + relative_file +
             " (data folder: " + (dir.empty() ? std::string("none found") : dir) + ")");
    return path;
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
