/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_cross_correlator: the device entry points. The CPU engine has none; the CUDA
// backend with pinned and pageable buffers, device pointers and streams, batch
// sizes, and against the CPU engine.

#include "qa_cross_correlator.h"
#include "runtime/cuda_resources.h"
#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

void qa_cross_correlator::cpu_engine_has_no_device_entry()
{
    auto engine = cross_correlator::make(make_config("cpu", 8, 2));
    std::vector<cfloat> x(8);
    std::vector<peak_t> peaks(1);
    CPPUNIT_ASSERT_THROW(engine->process_device(x.data(), x.data(), 1, peaks.data()),
                         std::logic_error);
    engine->synchronize(); // a no-op on the CPU
}

void qa_cross_correlator::pinned_and_pageable_buffers(const std::string&)
{
    const std::size_t N = 1000, nframes = 37;
    const auto f = mixed_frames(N, nframes, 300, 8080);
    const auto refs = reference_frames(f);
    for (std::size_t batch : { std::size_t(0), std::size_t(5) }) {
        const auto c = make_config("cuda", N, 8, 300, batch);
        const std::string what = describe(c);
        auto engine = cross_correlator::make(c);
        CPPUNIT_ASSERT_EQUAL(std::string("cuda:0"), engine->device().to_string());
        const auto pageable = run(*engine, f.x.data(), f.y.data(), nframes, true, true);
        check_result(refs, f, pageable, c, what + " pageable");

        const std::size_t n = f.x.size();
        pinned_buffer<cfloat> x(n), y(n);
        std::copy(f.x.begin(), f.x.end(), x.get());
        std::copy(f.y.begin(), f.y.end(), y.get());
        pinned_buffer<peak_t> peaks(nframes);
        pinned_buffer<cfloat> spectrum(nframes * c.transform_len());
        pinned_buffer<cfloat> correlation(nframes * c.correlation_len());
        auto poison_pinned = [&]() {
            std::fill(peaks.get(), peaks.get() + nframes, poison_peak());
            std::fill(spectrum.get(), spectrum.get() + spectrum.size(), poison_complex());
            std::fill(correlation.get(),
                      correlation.get() + correlation.size(),
                      poison_complex());
        };
        auto fetch = [&]() {
            result r;
            r.peaks.assign(peaks.get(), peaks.get() + nframes);
            r.spectrum.assign(spectrum.get(), spectrum.get() + spectrum.size());
            r.correlation.assign(correlation.get(),
                                 correlation.get() + correlation.size());
            return r;
        };
        // Pinned in and out.
        poison_pinned();
        engine->process(
            x.get(), y.get(), nframes, peaks.get(), spectrum.get(), correlation.get());
        assert_identical(pageable, fetch(), what + " pinned in and out");
        // Pinned in, pageable out.
        assert_identical(pageable,
                         run(*engine, x.get(), y.get(), nframes, true, true),
                         what + " pinned in, pageable out");
        // Pageable in, pinned out.
        poison_pinned();
        engine->process(f.x.data(),
                        f.y.data(),
                        nframes,
                        peaks.get(),
                        spectrum.get(),
                        correlation.get());
        assert_identical(pageable, fetch(), what + " pageable in, pinned out");
        // Pinned in and out, no optional outputs.
        std::fill(peaks.get(), peaks.get() + nframes, poison_peak());
        engine->process(x.get(), y.get(), nframes, peaks.get());
        result p = pageable;
        p.spectrum.clear();
        p.correlation.clear();
        result q;
        q.peaks.assign(peaks.get(), peaks.get() + nframes);
        assert_identical(p, q, what + " pinned, peaks only");
    }
}

void qa_cross_correlator::device_pointers_and_streams(const std::string&)
{
    const std::size_t N = 512, nframes = 40, split = 7;
    const auto f = mixed_frames(N, nframes, 200, 2718);
    const auto c = make_config("cuda", N, 16, 200, 6);
    const std::string what = describe(c, " device pointers");
    auto engine = cross_correlator::make(c);
    const auto host = run(*engine, f.x.data(), f.y.data(), nframes, true, true);
    check_result(reference_frames(f), f, host, c, describe(c, " host"));

    const std::size_t L = c.transform_len(), C = c.correlation_len();
    device_buffer<cfloat> d_x(f.x.size()), d_y(f.y.size());
    device_buffer<peak_t> d_peaks(nframes);
    device_buffer<cfloat> d_spectrum(nframes * L), d_correlation(nframes * C);
    CUDADSP_CUDA(cudaMemcpy(d_x.get(), f.x.data(), d_x.bytes(), cudaMemcpyHostToDevice));
    CUDADSP_CUDA(cudaMemcpy(d_y.get(), f.y.data(), d_y.bytes(), cudaMemcpyHostToDevice));
    const std::vector<peak_t> poisoned_peaks(nframes, poison_peak());
    const std::vector<cfloat> poisoned_spectrum(nframes * L, poison_complex());
    const std::vector<cfloat> poisoned_correlation(nframes * C, poison_complex());
    auto poison_device = [&]() {
        CUDADSP_CUDA(cudaMemcpy(d_peaks.get(),
                                poisoned_peaks.data(),
                                d_peaks.bytes(),
                                cudaMemcpyHostToDevice));
        CUDADSP_CUDA(cudaMemcpy(d_spectrum.get(),
                                poisoned_spectrum.data(),
                                d_spectrum.bytes(),
                                cudaMemcpyHostToDevice));
        CUDADSP_CUDA(cudaMemcpy(d_correlation.get(),
                                poisoned_correlation.data(),
                                d_correlation.bytes(),
                                cudaMemcpyHostToDevice));
    };
    auto fetch = [&](bool spectrum, bool correlation) {
        result r;
        r.peaks.resize(nframes);
        CUDADSP_CUDA(cudaMemcpy(
            r.peaks.data(), d_peaks.get(), d_peaks.bytes(), cudaMemcpyDeviceToHost));
        if (spectrum) {
            r.spectrum.resize(nframes * L);
            CUDADSP_CUDA(cudaMemcpy(r.spectrum.data(),
                                    d_spectrum.get(),
                                    d_spectrum.bytes(),
                                    cudaMemcpyDeviceToHost));
        }
        if (correlation) {
            r.correlation.resize(nframes * C);
            CUDADSP_CUDA(cudaMemcpy(r.correlation.data(),
                                    d_correlation.get(),
                                    d_correlation.bytes(),
                                    cudaMemcpyDeviceToHost));
        }
        return r;
    };

    // The engine's own stream, then synchronize().
    poison_device();
    engine->process_device(d_x.get(),
                           d_y.get(),
                           nframes,
                           d_peaks.get(),
                           d_spectrum.get(),
                           d_correlation.get());
    engine->synchronize();
    assert_identical(host, fetch(true, true), what + ", engine stream");

    // A caller's stream, two calls, then the stream's own synchronisation only.
    cuda_stream stream;
    poison_device();
    engine->process_device(d_x.get(),
                           d_y.get(),
                           split,
                           d_peaks.get(),
                           d_spectrum.get(),
                           d_correlation.get(),
                           stream.get());
    engine->process_device(d_x.get() + split * N,
                           d_y.get() + split * N,
                           nframes - split,
                           d_peaks.get() + split,
                           d_spectrum.get() + split * L,
                           d_correlation.get() + split * C,
                           stream.get());
    stream.synchronize();
    assert_identical(host, fetch(true, true), what + ", caller stream");

    // Peaks only, caller stream; a second engine on the same stream.
    poison_device();
    engine->process_device(
        d_x.get(), d_y.get(), nframes, d_peaks.get(), nullptr, nullptr, stream.get());
    stream.synchronize();
    result peaks_only = host;
    peaks_only.spectrum.clear();
    peaks_only.correlation.clear();
    assert_identical(peaks_only, fetch(false, false), what + ", peaks only");
    auto other = cross_correlator::make(make_config("cuda", N, 16, 200, 0));
    poison_device();
    other->process_device(d_x.get(),
                          d_y.get(),
                          nframes,
                          d_peaks.get(),
                          nullptr,
                          d_correlation.get(),
                          stream.get());
    stream.synchronize();
    result correlation_only = host;
    correlation_only.spectrum.clear();
    assert_identical(
        correlation_only, fetch(false, true), what + ", second engine, correlation only");
}

void qa_cross_correlator::batch_frames_invariance(const std::string&)
{
    // Under a sanitizer the long frames are 1000 samples (still 20 of them, so the
    // batches of 7 end in a partial one).
    for (std::size_t N : { std::size_t(100), qa::scaled<std::size_t>(4096, 1000) }) {
        const std::size_t nframes = N == 100 ? 200 : 20;
        const auto f = mixed_frames(N, nframes, long(N / 4), 1618 + N);
        const auto c = make_config("cuda", N, 16, N / 4, 0);
        const auto whole = run(c, f, true, true);
        check_result(reference_frames(f), f, whole, c, describe(c, " default batch"));
        for (std::size_t batch : { 1, 7, 64, 1000 }) {
            const auto cb = make_config("cuda", N, 16, N / 4, batch);
            assert_identical(whole, run(cb, f, true, true), describe(cb));
            assert_identical(
                [&] {
                    result r = whole;
                    r.spectrum.clear();
                    r.correlation.clear();
                    return r;
                }(),
                run(cb, f),
                describe(cb, " peaks only"));
        }
    }
}

/*!
 * CUDA against the CPU engine on 400 frames: both within the reference's tolerance,
 * the same lag wherever the reference decides it, and magnitudes and phases within
 * twice the model error of each other.
 */
void qa_cross_correlator::matches_cpu(const std::string&)
{
    for (std::size_t interp : { 1, 16 }) {
        // Under a sanitizer 100 frames: several batches still.
        const std::size_t N = 512, nframes = qa::scaled<std::size_t>(400, 100);
        const auto f = mixed_frames(N, nframes, 255, 4000 + interp);
        const auto refs = reference_frames(f);
        const auto cc = make_config("cuda", N, interp, 255);
        auto pc = cc;
        pc.device = "cpu";
        const auto cuda = run(cc, f, true, true);
        const auto cpu = run(pc, f, true, true);
        check_result(refs, f, cuda, cc, describe(cc, " 400 frames"));
        check_result(refs, f, cpu, pc, describe(pc, " 400 frames"));
        std::size_t differing = 0, undecided = 0;
        double worst_mag = 0.0, worst_phase = 0.0;
        for (std::size_t k = 0; k < nframes; ++k) {
            const auto e = expect_peak(refs[k], cc);
            const peak_t &a = cpu.peaks[k], &b = cuda.peaks[k];
            std::ostringstream msg;
            msg.precision(9);
            msg << frame_name(describe(cc, " against cpu"), k) << ": cpu (" << a.lag
                << ", " << a.magnitude << ", " << a.phase << "), cuda (" << b.lag << ", "
                << b.magnitude << ", " << b.phase << ")";
            if (!e.decided()) {
                ++undecided;
                continue;
            }
            CPPUNIT_ASSERT_EQUAL_MESSAGE(msg.str(), a.lag, b.lag);
            if (bits_of(a.magnitude) != bits_of(b.magnitude) ||
                bits_of(a.phase) != bits_of(b.phase))
                ++differing;
            const double mag_err = std::fabs(double(a.magnitude) - b.magnitude);
            const double mag_tol =
                2.0 * ((e.eps + tol_rel * std::abs(e.best.value)) / e.norm + 0x1p-23);
            CPPUNIT_ASSERT_MESSAGE(msg.str(), mag_err <= mag_tol);
            worst_mag = std::max(worst_mag, mag_err);
            if (std::abs(e.best.value) > 2.0 * e.eps) {
                const double phase_err = std::fabs(wrap_pi(double(a.phase) - b.phase));
                CPPUNIT_ASSERT_MESSAGE(
                    msg.str(),
                    phase_err <=
                        2.0 * (std::asin(e.eps / std::abs(e.best.value)) + 4e-7));
                worst_phase = std::max(worst_phase, phase_err);
            }
        }
        std::cout << "qa_cross_correlator: " << describe(cc) << ": " << differing
                  << " of " << nframes - undecided
                  << " decided frames differ from the CPU engine in magnitude or "
                     "phase, by at most "
                  << worst_mag << " and " << worst_phase << " rad; " << undecided
                  << " undecided" << std::endl;
    }
}

} // namespace core
} // namespace cudadsp
} // namespace gr
