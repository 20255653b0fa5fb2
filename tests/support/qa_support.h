/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_SUPPORT_H
#define INCLUDED_CUDADSP_QA_SUPPORT_H

// Helpers shared by the C++ tests: skipping, per-backend registration of one case,
// reduced sizes under a CUDA sanitizer, the real-data folder, poison, a seeded random
// source.

#include <type_traits>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cppunit/TestCase.h>
#include <cppunit/extensions/HelperMacros.h>
#include <memory>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * Thrown by a case that cannot do what it exists for (no CUDA device, data absent).
 * The runner (qa_main.cc) counts it as skipped, never as passed, and the executable
 * exits with skip_exit_code when any case skipped and none failed.
 */
class skipped : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//! Exit status of a test executable whose cases passed or skipped, some skipped
//! (ctest's SKIP_RETURN_CODE).
constexpr int skip_exit_code = 77;

//! Ends the calling case as skipped, with \p reason.
[[noreturn]] void skip(const std::string& reason);

//! Skips the calling case unless a CUDA device is present.
void require_cuda();

//! True when a CUDA device is present (for checks that differ with and without one).
bool cuda_present();

/*!
 * True when the cases run under a CUDA sanitizer (tools/gpu-sanitize runs them in
 * compute-sanitizer, which makes kernels ten to thousands of times slower): the runner
 * was given --sanitizer, or $CUDADSP_QA_SANITIZER is set to anything but "" or "0".
 * Cases then take their reduced sizes from scaled() and skip rate measurements with
 * skip_under_sanitizer(); a normal run is unchanged.
 */
bool sanitizer_run();

/*!
 * \p normal in a normal run, \p reduced under a sanitizer (sanitizer_run()). The reduced
 * value must still reach every path the normal one exists for (several tiles or blocks,
 * several batches and a partial one, chunk and call boundaries, sizes that are not a
 * multiple of any of them); the call site says which when it is not obvious.
 */
template <typename T>
T scaled(T normal, typename std::common_type<T>::type reduced)
{
    return sanitizer_run() ? reduced : normal;
}

/*!
 * Skips the calling case under a sanitizer: for a case that measures a rate or holds a
 * real-time deadline, which the sanitizer's slowdown makes meaningless. \p what names
 * what it measures. A skip, never a pass: the runner reports it.
 */
void skip_under_sanitizer(const std::string& what);

/*!
 * The folder of real test data: $CUDADSP_DATA_DIR when set; else data/ beside the
 * executable's bin/ (a GPU bundle), share/gr-cudadsp/data of an install, or the
 * source tree's data/ (build tree), whichever first holds a README.md.
 */
std::string data_dir();

//! Path of \p relative_file under data_dir(); skips the calling case when it is absent.
std::string data_file(const std::string& relative_file);

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

/*!
 * For its lifetime, lowers the process's soft RLIMIT_AS to the address space in use
 * (VmSize) plus \p spare_bytes, then restores it: a memory limit that checks must
 * respect, met without the machine running short. Relative to what is in use, so the
 * libraries and sanitizer runtimes loaded do not matter.
 */
class address_space_limit
{
public:
    explicit address_space_limit(std::size_t spare_bytes);
    ~address_space_limit();
    address_space_limit(const address_space_limit&) = delete;
    address_space_limit& operator=(const address_space_limit&) = delete;

private:
    unsigned long long d_saved_soft_limit;
};

//! A float no engine output can legitimately be, to catch elements never written.
constexpr float poison_value = -1.2345e37f;

/*!
 * One test case run on one backend: calls \p method of a fresh fixture with the device
 * string ("cpu" or "cuda"), after require_cuda() for "cuda". Registered by
 * QA_BACKEND_TEST / QA_CUDA_TEST; its name ends in "[cpu]" or "[cuda]", which the
 * runner's --cuda-cases / --no-cuda-cases select on.
 */
template <class Fixture>
class backend_case : public CppUnit::TestCase
{
public:
    using method_type = void (Fixture::*)(const std::string& device);

    backend_case(const std::string& name,
                 method_type method,
                 std::string device,
                 Fixture* fixture)
        : CppUnit::TestCase(name + "[" + device + "]"),
          d_method(method),
          d_device(std::move(device)),
          d_fixture(fixture)
    {
    }

    void setUp() override { d_fixture->setUp(); }
    void tearDown() override { d_fixture->tearDown(); }

protected:
    void runTest() override
    {
        if (d_device == "cuda")
            require_cuda();
        (d_fixture.get()->*d_method)(d_device);
    }

private:
    method_type d_method;
    std::string d_device;
    std::unique_ptr<Fixture> d_fixture;
};

} // namespace qa
} // namespace cudadsp
} // namespace gr

/*!
 * Inside CPPUNIT_TEST_SUITE: registers `void method(const std::string& device)` once
 * per backend, as "method[cpu]" and "method[cuda]". The CUDA case skips without a device.
 */
#define QA_BACKEND_TEST(method)                                                        \
    for (const char* qa_device_ : { "cpu", "cuda" })                                   \
    CPPUNIT_TEST_SUITE_ADD_TEST((new ::gr::cudadsp::qa::backend_case<TestFixtureType>( \
        context.getTestNameFor(#method),                                               \
        &TestFixtureType::method,                                                      \
        qa_device_,                                                                    \
        context.makeFixture())))

/*!
 * Inside CPPUNIT_TEST_SUITE: registers `void method(const std::string& device)` for the
 * CUDA backend alone, as "method[cuda]" (device "cuda"); skips without a device.
 */
#define QA_CUDA_TEST(method)                                                           \
    CPPUNIT_TEST_SUITE_ADD_TEST((new ::gr::cudadsp::qa::backend_case<TestFixtureType>( \
        context.getTestNameFor(#method),                                               \
        &TestFixtureType::method,                                                      \
        "cuda",                                                                        \
        context.makeFixture())))

#endif /* INCLUDED_CUDADSP_QA_SUPPORT_H */
