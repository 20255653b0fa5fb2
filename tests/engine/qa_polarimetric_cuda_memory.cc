/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// Polarimetric product engine, CUDA backend: pinned host buffers, device pointers and
// streams, results independent of the chunking, and many radials against the CPU.

#include "qa_float_bits.h"
#include "qa_polarimetric_support.h"
#include "qa_support.h"
#include "runtime/cuda_resources.h"
#include <gnuradio/cudadsp/core/polarimetric.h>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

using namespace qa_polarimetric_cases;

class qa_polarimetric_cuda_memory : public CppUnit::TestFixture
{
    CPPUNIT_TEST_SUITE(qa_polarimetric_cuda_memory);
    QA_CUDA_TEST(pinned_host_buffers);
    QA_CUDA_TEST(device_pointers_and_streams);
    QA_CUDA_TEST(chunking_invariance);
    QA_CUDA_TEST(many_radials_match_cpu);
    CPPUNIT_TEST_SUITE_END();

public:
    void pinned_host_buffers(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 2242, R = 37;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 8080, noise_of(c));
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);
            const std::string what = "cuda " + mode_name(mode);
            const std::size_t n = p.h.size(), nout = R * G;
            pinned_buffer<cfloat> h(n), v(n);
            pinned_buffer<float> products(nproducts * nout);
            std::copy(p.h.begin(), p.h.end(), h.get());
            std::copy(p.v.begin(), p.v.end(), v.get());
            for (std::size_t chunk : { std::size_t(0), std::size_t(5) }) {
                std::fill(products.get(), products.get() + products.size(), poison_nan());
                float* ptr[nproducts];
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = products.get() + q * nout;
                cuda_engine(c, chunk)->process(h.get(), v.get(), R, ptr);
                product_set out(nout);
                for (int q = 0; q < nproducts; ++q)
                    std::copy(ptr[q], ptr[q] + nout, out.p[q].begin());
                check_products(expected,
                               out,
                               c,
                               what + " pinned in and out, chunk " +
                                   std::to_string(chunk));
                // Pinned inputs, pageable outputs.
                check_products(expected,
                               run(*cuda_engine(c, chunk), h.get(), v.get(), R),
                               c,
                               what + " pinned in, pageable out");
            }
            // Pageable inputs, pinned outputs.
            std::fill(products.get(), products.get() + products.size(), poison_nan());
            float* ptr[nproducts];
            for (int q = 0; q < nproducts; ++q)
                ptr[q] = products.get() + q * nout;
            cuda_engine(c, 3)->process(p.h.data(), p.v.data(), R, ptr);
            product_set out(nout);
            for (int q = 0; q < nproducts; ++q)
                std::copy(ptr[q], ptr[q] + nout, out.p[q].begin());
            check_products(expected, out, c, what + " pageable in, pinned out");
        }
    }

    void device_pointers_and_streams(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 1001, R = 20;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 2718, noise_of(c));
            const std::string what = "cuda " + mode_name(mode) + " device pointers";
            const std::size_t n = p.h.size(), nout = R * G;
            device_buffer<cfloat> d_h(n), d_v(n);
            device_buffer<float> d_out(nproducts * nout);
            CUDADSP_CUDA(
                cudaMemcpy(d_h.get(), p.h.data(), d_h.bytes(), cudaMemcpyHostToDevice));
            CUDADSP_CUDA(
                cudaMemcpy(d_v.get(), p.v.data(), d_v.bytes(), cudaMemcpyHostToDevice));
            const std::vector<float> poisoned(nproducts * nout, poison_nan());
            auto fetch = [&]() {
                product_set out(nout);
                for (int q = 0; q < nproducts; ++q)
                    CUDADSP_CUDA(cudaMemcpy(out.p[q].data(),
                                            d_out.get() + q * nout,
                                            nout * sizeof(float),
                                            cudaMemcpyDeviceToHost));
                return out;
            };
            auto poison_device = [&]() {
                CUDADSP_CUDA(cudaMemcpy(
                    d_out.get(), poisoned.data(), d_out.bytes(), cudaMemcpyHostToDevice));
            };
            float* ptr[nproducts];
            auto point_at = [&](std::size_t radial) {
                for (int q = 0; q < nproducts; ++q)
                    ptr[q] = d_out.get() + q * nout + radial * G;
            };
            const auto expected = reference(c, c.calibration, p.h.data(), p.v.data(), R);

            // The engine's own stream, then synchronize().
            auto engine = cuda_engine(c);
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), R, ptr);
            engine->synchronize();
            const auto own = fetch();
            check_products(expected, own, c, what + ", engine stream");

            // A caller's stream, two calls.
            cuda_stream stream;
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), 7, ptr, stream.get());
            point_at(7);
            const std::size_t at = 7 * c.samples_per_radial();
            engine->process_device(
                d_h.get() + at, d_v.get() + at, R - 7, ptr, stream.get());
            stream.synchronize();
            assert_identical(own, fetch(), G, what + ", caller stream");

            // A calibration change between two enqueued calls applies to the second only.
            polarimetric_calibration b = c.calibration;
            b.zcal_db += 7.0;
            b.phidp_offset_deg = 90.0;
            b.noise_h *= 2.0;
            b.snr_threshold_db = 10.0;
            poison_device();
            point_at(0);
            engine->process_device(d_h.get(), d_v.get(), 7, ptr, stream.get());
            engine->set_calibration(b);
            point_at(7);
            engine->process_device(
                d_h.get() + at, d_v.get() + at, R - 7, ptr, stream.get());
            stream.synchronize();
            const auto mixed = fetch();
            product_set head(7 * G), tail((R - 7) * G);
            for (int q = 0; q < nproducts; ++q) {
                std::copy(
                    mixed.p[q].begin(), mixed.p[q].begin() + 7 * G, head.p[q].begin());
                std::copy(
                    mixed.p[q].begin() + 7 * G, mixed.p[q].end(), tail.p[q].begin());
            }
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 7),
                           head,
                           c,
                           what + ", enqueued before set_calibration");
            check_products(reference(c, b, p.h.data() + at, p.v.data() + at, R - 7),
                           tail,
                           c,
                           what + ", enqueued after set_calibration");
        }
    }

    void chunking_invariance(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            const std::size_t G = 2242, R = 50;
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 1618, noise_of(c));
            const auto whole = run(*cuda_engine(c, 0), p, R);
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), R),
                           whole,
                           c,
                           "cuda " + mode_name(mode) + " default chunks");
            for (std::size_t chunk : { 1, 7, 49, 50, 64 })
                assert_identical(whole,
                                 run(*cuda_engine(c, chunk), p, R),
                                 G,
                                 "cuda " + mode_name(mode) + " chunk_radials " +
                                     std::to_string(chunk));
        }
    }

    void many_radials_match_cpu(const std::string&)
    {
        for (auto mode :
             { polarimetric_mode::simultaneous, polarimetric_mode::alternating }) {
            // Under a sanitizer 40 radials, still several of the engine's default
            // chunks at 36 pulses.
            const std::size_t G = 2242, R = qa::scaled<std::size_t>(400, 40);
            auto c = make_config("cuda", mode, G, 36);
            const auto p = simulate(c, R, 4000 + int(mode), noise_of(c));
            auto cpu_config = c;
            cpu_config.device = "cpu";
            const auto cpu = run(*polarimetric_processor::make(cpu_config), p, R);
            const auto cuda = run(*cuda_engine(c), p, R);
            assert_close_to_cpu(cpu,
                                cuda,
                                c,
                                "cuda " + mode_name(mode) + " " + std::to_string(R) +
                                    " radials");
            // And the float64 reference on the first and last radials.
            const std::size_t last = (R - 2) * c.samples_per_radial();
            product_set head(2 * G), tail(2 * G);
            for (int q = 0; q < nproducts; ++q) {
                std::copy(
                    cuda.p[q].begin(), cuda.p[q].begin() + 2 * G, head.p[q].begin());
                std::copy(cuda.p[q].end() - 2 * G, cuda.p[q].end(), tail.p[q].begin());
            }
            check_products(reference(c, c.calibration, p.h.data(), p.v.data(), 2),
                           head,
                           c,
                           "cuda " + mode_name(mode) + " first radials");
            check_products(
                reference(c, c.calibration, p.h.data() + last, p.v.data() + last, 2),
                tail,
                c,
                "cuda " + mode_name(mode) + " last radials");
        }
    }

private:
    std::unique_ptr<polarimetric_processor> cuda_engine(polarimetric_config c,
                                                        std::size_t chunk_radials = 0)
    {
        c.device = "cuda";
        c.chunk_radials = chunk_radials;
        return polarimetric_processor::make(c);
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_polarimetric_cuda_memory);

} // namespace core
} // namespace cudadsp
} // namespace gr
