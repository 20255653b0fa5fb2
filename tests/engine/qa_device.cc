/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Device runtime: device strings, errors, and (on a GPU) the RAII handles.

#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/parallel_copy.h"
#include "runtime/parallel_ranges.h"
#include <gnuradio/cudadsp/core/device.h>
#include <cppunit/extensions/HelperMacros.h>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {
// The message of the exception \p f throws, or "" if it throws none of type E.
template <typename E, typename F>
std::string message_of(F f)
{
    try {
        f();
    } catch (const E& e) {
        return e.what();
    }
    return "";
}
} // namespace

class qa_device : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_device);
    CPPUNIT_TEST(cpu_and_auto);
    CPPUNIT_TEST(malformed_strings_name_the_parameter);
    CPPUNIT_TEST(missing_cuda_device_is_a_runtime_error);
    CPPUNIT_TEST(device_listing_matches_count);
    CPPUNIT_TEST(cuda_errors_become_exceptions);
    CPPUNIT_TEST(parallel_memcpy_copies_every_byte);
    CPPUNIT_TEST(parallel_ranges_covers_each_record_once_per_worker);
    CPPUNIT_TEST(parallel_ranges_rethrows_a_share_error);
    QA_CUDA_TEST(plain_cuda_selects_the_first_device);
    QA_CUDA_TEST(out_of_memory_is_an_exception);
    QA_CUDA_TEST(pinned_detection);
    QA_CUDA_TEST(cufft_plan_transforms_and_reports_errors);
    CPPUNIT_TEST_SUITE_END();

public:
    void cpu_and_auto()
    {
        const device_selection cpu = select_device("cpu");
        CPPUNIT_ASSERT(cpu.backend == backend_kind::cpu);
        CPPUNIT_ASSERT_EQUAL(std::string("cpu"), cpu.to_string());
        const device_selection automatic = select_device("auto");
        CPPUNIT_ASSERT(automatic.chosen_automatically);
        if (qa::cuda_present())
            CPPUNIT_ASSERT_EQUAL(std::string("cuda:0"), automatic.to_string());
        else
            CPPUNIT_ASSERT_EQUAL(std::string("cpu"), automatic.to_string());
    }

    void malformed_strings_name_the_parameter()
    {
        for (const char* bad : { "",
                                 "gpu",
                                 "CUDA",
                                 "cuda:",
                                 "cuda:x",
                                 "cuda:-1",
                                 "cuda:0x1",
                                 "cuda0",
                                 " cpu",
                                 "cuda:99999" }) {
            const std::string msg =
                message_of<std::invalid_argument>([&] { select_device(bad, "device"); });
            CPPUNIT_ASSERT_MESSAGE(std::string("no invalid_argument for \"") + bad + "\"",
                                   msg.rfind("device: ", 0) == 0);
        }
    }

    void missing_cuda_device_is_a_runtime_error()
    {
        const int count = cuda_device_count();
        const std::string missing = "cuda:" + std::to_string(count);
        const std::string msg =
            message_of<std::runtime_error>([&] { select_device(missing, "device"); });
        CPPUNIT_ASSERT(msg.find("device: ") == 0);
        CPPUNIT_ASSERT(msg.find(missing) != std::string::npos);
        // With a device, "cuda" is valid (plain_cuda_selects_the_first_device).
        if (!qa::cuda_present())
            CPPUNIT_ASSERT(
                !message_of<std::runtime_error>([] { select_device("cuda"); }).empty());
    }

    void plain_cuda_selects_the_first_device(const std::string&)
    {
        CPPUNIT_ASSERT_EQUAL(0, select_device("cuda").cuda_ordinal);
    }

    void device_listing_matches_count()
    {
        const auto devices = list_cuda_devices();
        CPPUNIT_ASSERT_EQUAL(static_cast<std::size_t>(cuda_device_count()),
                             devices.size());
        for (const auto& d : devices) {
            CPPUNIT_ASSERT(!d.name.empty());
            CPPUNIT_ASSERT(d.compute_major >= 7);
            CPPUNIT_ASSERT(d.multiprocessors > 0);
            CPPUNIT_ASSERT(d.global_memory_bytes > 0);
        }
        CPPUNIT_ASSERT(!cuda_runtime_version().empty());
        if (devices.empty())
            CPPUNIT_ASSERT(!cuda_unavailable_reason().empty());
    }

    void cuda_errors_become_exceptions()
    {
        // A failing call is reported as cuda_error naming the call, device or not.
        const std::string msg =
            message_of<cuda_error>([] { CUDADSP_CUDA(cudaSetDevice(-5)); });
        CPPUNIT_ASSERT_MESSAGE(msg, msg.find("cudaSetDevice(-5) failed at") == 0);
        CPPUNIT_ASSERT_MESSAGE(msg, msg.find("cudaError") != std::string::npos);
    }

    void out_of_memory_is_an_exception(const std::string&)
    {
        // Asking for far more memory than any GPU has: an exception, not an abort.
        const std::string oom = message_of<cuda_error>(
            [] { device_buffer<char> huge(std::size_t(1) << 50); });
        CPPUNIT_ASSERT_MESSAGE(oom, oom.find("cudaMalloc") == 0);
        // The error was consumed: the next call succeeds.
        device_buffer<float> ok(16);
        CPPUNIT_ASSERT(ok.get() != nullptr);
    }

    void pinned_detection(const std::string&)
    {
        pinned_buffer<float> pinned(1024);
        std::vector<float> pageable(1024, 1.0f);
        CPPUNIT_ASSERT(is_pinned_host_pointer(pinned.get()));
        CPPUNIT_ASSERT(is_pinned_host_pointer(pinned.get() + 100));
        CPPUNIT_ASSERT(!is_pinned_host_pointer(pageable.data()));
        cuda_stream stream;
        cuda_event start(true), stop(true);
        device_buffer<float> device(1024);
        start.record(stream.get());
        CUDADSP_CUDA(cudaMemcpyAsync(device.get(),
                                     pageable.data(),
                                     device.bytes(),
                                     cudaMemcpyHostToDevice,
                                     stream.get()));
        CUDADSP_CUDA(cudaMemcpyAsync(pinned.get(),
                                     device.get(),
                                     device.bytes(),
                                     cudaMemcpyDeviceToHost,
                                     stream.get()));
        stop.record(stream.get());
        stop.synchronize();
        CPPUNIT_ASSERT(stop.elapsed_ms_since(start) >= 0.0f);
        CPPUNIT_ASSERT_EQUAL(1.0f, pinned.get()[1023]);
    }

    void cufft_plan_transforms_and_reports_errors(const std::string&)
    {
        // Two batched 12-point forward transforms against a float64 DFT.
        const int points = 12, batch = 2;
        std::vector<cufftComplex> x(points * batch), y(points * batch, { 7e30f, 7e30f });
        for (int i = 0; i < points * batch; ++i)
            x[i] = { std::sin(0.7f * i) + 0.1f * i, std::cos(1.3f * i) };
        device_buffer<cufftComplex> d_x(x.size()), d_y(y.size());
        CUDADSP_CUDA(
            cudaMemcpy(d_x.get(), x.data(), d_x.bytes(), cudaMemcpyHostToDevice));
        CUDADSP_CUDA(
            cudaMemcpy(d_y.get(), y.data(), d_y.bytes(), cudaMemcpyHostToDevice));
        cuda_stream stream;
        cufft_plan plan(points, CUFFT_C2C, batch);
        cufft_plan moved = std::move(plan);
        moved.set_stream(stream.get());
        CUDADSP_CUFFT(cufftExecC2C(moved.get(), d_x.get(), d_y.get(), CUFFT_FORWARD));
        stream.synchronize();
        CUDADSP_CUDA(
            cudaMemcpy(y.data(), d_y.get(), d_y.bytes(), cudaMemcpyDeviceToHost));
        for (int b = 0; b < batch; ++b)
            for (int k = 0; k < points; ++k) {
                double re = 0, im = 0;
                for (int i = 0; i < points; ++i) {
                    const double a = -2.0 * 3.141592653589793 * k * i / points;
                    const cufftComplex v = x[b * points + i];
                    re += v.x * std::cos(a) - v.y * std::sin(a);
                    im += v.x * std::sin(a) + v.y * std::cos(a);
                }
                CPPUNIT_ASSERT_DOUBLES_EQUAL(re, y[b * points + k].x, 1e-4);
                CPPUNIT_ASSERT_DOUBLES_EQUAL(im, y[b * points + k].y, 1e-4);
            }
        // A bad plan size is an exception naming the call and the cuFFT result.
        const std::string msg =
            message_of<cuda_error>([] { cufft_plan bad(0, CUFFT_C2C, 1); });
        CPPUNIT_ASSERT_MESSAGE(msg, msg.find("cufftPlan1d") == 0);
        CPPUNIT_ASSERT_MESSAGE(msg, msg.find("CUFFT_") != std::string::npos);
    }

    // Sizes below, at and above the split threshold, odd lengths, and two callers at
    // once: every destination byte must equal its source byte, and nothing past the end
    // may be written.
    void parallel_memcpy_copies_every_byte()
    {
        std::mt19937_64 rng(7);
        const std::size_t sizes[] = { 0,        1,
                                      4095,     (2u << 20) - 1,
                                      2u << 20, (16u << 20) + 3 };
        for (std::size_t size : sizes) {
            std::vector<std::uint8_t> src(size), dst(size + 64, 0xA5);
            for (auto& b : src)
                b = static_cast<std::uint8_t>(rng());
            core::parallel_memcpy(dst.data(), src.data(), size);
            CPPUNIT_ASSERT_MESSAGE("size " + std::to_string(size),
                                   std::equal(src.begin(), src.end(), dst.begin()));
            for (std::size_t i = size; i < dst.size(); ++i)
                CPPUNIT_ASSERT_EQUAL(std::uint8_t(0xA5), dst[i]);
        }
        const std::size_t size = (24u << 20) + 5;
        std::vector<std::uint8_t> a(size), b(size), a_out(size), b_out(size);
        for (std::size_t i = 0; i < size; ++i) {
            a[i] = static_cast<std::uint8_t>(rng());
            b[i] = static_cast<std::uint8_t>(rng());
        }
        std::thread other([&] { core::parallel_memcpy(b_out.data(), b.data(), size); });
        core::parallel_memcpy(a_out.data(), a.data(), size);
        other.join();
        CPPUNIT_ASSERT(a == a_out);
        CPPUNIT_ASSERT(b == b_out);
    }

    // Every record in exactly one share, shares contiguous and in worker order, each
    // worker index below parallel_workers() and never running twice at once.
    void parallel_ranges_covers_each_record_once_per_worker()
    {
        const std::size_t hw = std::max(1u, std::thread::hardware_concurrency());
        const std::size_t counts[] = { 0, 1, 2, 7, 1000, 100003 };
        for (std::size_t count : counts) {
            for (std::size_t by_size :
                 { std::size_t(0), std::size_t(1), std::size_t(3), count }) {
                const std::size_t workers = parallel_workers(count, by_size);
                CPPUNIT_ASSERT_EQUAL(
                    std::max<std::size_t>(1, std::min({ count, hw, by_size })), workers);
                std::vector<int> hits(count, 0);
                std::vector<std::atomic<int>> busy(workers);
                std::vector<std::size_t> first_of(workers, SIZE_MAX), end_of(workers, 0);
                parallel_ranges(count,
                                by_size,
                                [&](std::size_t w, std::size_t first, std::size_t end) {
                                    CPPUNIT_ASSERT(w < workers);
                                    CPPUNIT_ASSERT_EQUAL(0, busy[w].fetch_add(1));
                                    for (std::size_t i = first; i < end; ++i)
                                        ++hits[i];
                                    first_of[w] = first;
                                    end_of[w] = end;
                                    busy[w].fetch_sub(1);
                                });
                for (std::size_t i = 0; i < count; ++i)
                    CPPUNIT_ASSERT_EQUAL_MESSAGE(
                        "record " + std::to_string(i), 1, hits[i]);
                for (std::size_t w = 1; w < workers; ++w)
                    CPPUNIT_ASSERT_EQUAL(end_of[w - 1], first_of[w]);
            }
        }
        std::size_t first_seen = SIZE_MAX, end_seen = 0;
        parallel_ranges(5, 1, [&](std::size_t first, std::size_t end) {
            first_seen = first;
            end_seen = end;
        });
        CPPUNIT_ASSERT_EQUAL(std::size_t(0), first_seen);
        CPPUNIT_ASSERT_EQUAL(std::size_t(5), end_seen);
    }

    // A share's exception reaches the caller after every thread joined (a thread
    // letting it escape would end the process).
    void parallel_ranges_rethrows_a_share_error()
    {
        const std::size_t count = 64;
        const std::size_t workers = parallel_workers(count, count);
        std::atomic<std::size_t> done{ 0 };
        const std::string message = message_of<std::runtime_error>([&] {
            parallel_ranges(count, count, [&](std::size_t w, std::size_t, std::size_t) {
                if (w + 1 == workers)
                    throw std::runtime_error("share " + std::to_string(w));
                done.fetch_add(1);
            });
        });
        CPPUNIT_ASSERT_EQUAL("share " + std::to_string(workers - 1), message);
        CPPUNIT_ASSERT_EQUAL(workers - 1, done.load());
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_device);

} // namespace core
} // namespace cudadsp
} // namespace gr
