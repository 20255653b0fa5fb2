/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_st_tbd: the CUDA backend's device entry point (device buffers, a caller's
// stream destroyed before the engine), reset and frame time on the device, pinned
// host buffers.

#include "qa_st_tbd.h"
#include <cuda_runtime_api.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Device memory for the entry-point test (the test links the CUDA runtime).
struct device_buffer_test {
    float* frames = nullptr;
    float* map = nullptr;
    std::int32_t* argmax = nullptr;
    explicit device_buffer_test(std::size_t n)
    {
        CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&frames), n * 4) ==
                       cudaSuccess);
        CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&map), n * 4) == cudaSuccess);
        CPPUNIT_ASSERT(cudaMalloc(reinterpret_cast<void**>(&argmax), n * 4) ==
                       cudaSuccess);
    }
    ~device_buffer_test()
    {
        cudaFree(frames);
        cudaFree(map);
        cudaFree(argmax);
    }
};

} // namespace

void qa_st_tbd::device_entry_point(const std::string&)
{
    st_tbd_config c = random_config(45, 33, 601);
    c.device = "cuda";
    c.bilinear = "software"; // no timing choice: nothing written to the cache
    const std::size_t n = 4, cells = c.cells();
    const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 602);
    auto host = st_tbd::make(c);
    const run_output expected = run(*host, frames, n);
    auto dev = st_tbd::make(c);
    device_buffer_test buffers(cells * n);
    CPPUNIT_ASSERT(cudaMemcpy(buffers.frames,
                              frames.data(),
                              cells * n * sizeof(float),
                              cudaMemcpyHostToDevice) == cudaSuccess);
    std::vector<tbd_detection> det;
    dev->process_device(buffers.frames, 2, buffers.map, buffers.argmax, nullptr);
    dev->process_device(buffers.frames + 2 * cells,
                        2,
                        buffers.map + 2 * cells,
                        buffers.argmax + 2 * cells,
                        nullptr);
    dev->synchronize();
    std::vector<float> map(cells * n);
    std::vector<std::int32_t> arg(cells * n);
    CPPUNIT_ASSERT(
        cudaMemcpy(map.data(), buffers.map, map.size() * 4, cudaMemcpyDeviceToHost) ==
        cudaSuccess);
    CPPUNIT_ASSERT(
        cudaMemcpy(arg.data(), buffers.argmax, arg.size() * 4, cudaMemcpyDeviceToHost) ==
        cudaSuccess);
    CPPUNIT_ASSERT(map == expected.map);
    CPPUNIT_ASSERT(arg == expected.argmax);
    // With detections it waits and appends, frame numbers continuing.
    dev->reset();
    dev->process_device(buffers.frames, n, nullptr, nullptr, &det);
    CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
    for (std::size_t i = 0; i < det.size(); ++i) {
        CPPUNIT_ASSERT_EQUAL(expected.detections[i].frame, det[i].frame);
        CPPUNIT_ASSERT_EQUAL(expected.detections[i].x, det[i].x);
        CPPUNIT_ASSERT_EQUAL(expected.detections[i].value, det[i].value);
    }
}

/*
 * process_device() on a stream the caller destroys right after the call, with the
 * engine used and destroyed later: the engine must not keep the caller's stream
 * (cudadsp_bench crashed in the engine's destructor when it did).
 */
void qa_st_tbd::caller_stream_destroyed_before_engine(const std::string&)
{
    st_tbd_config c = random_config(40, 30, 611);
    c.device = "cuda";
    c.bilinear = "software";
    const std::size_t n = 3, cells = c.cells();
    const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 612);
    auto host = st_tbd::make(c);
    const run_output expected = run(*host, frames, n);
    auto dev = st_tbd::make(c);
    device_buffer_test buffers(cells * n);
    CPPUNIT_ASSERT(cudaMemcpy(buffers.frames,
                              frames.data(),
                              cells * n * sizeof(float),
                              cudaMemcpyHostToDevice) == cudaSuccess);
    cudaStream_t caller = nullptr;
    CPPUNIT_ASSERT(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking) ==
                   cudaSuccess);
    dev->process_device(buffers.frames, 2, buffers.map, buffers.argmax, nullptr, caller);
    CPPUNIT_ASSERT(cudaStreamDestroy(caller) == cudaSuccess);
    // Later work on the engine's own stream follows the destroyed stream's frames.
    dev->process_device(buffers.frames + 2 * cells,
                        1,
                        buffers.map + 2 * cells,
                        buffers.argmax + 2 * cells,
                        nullptr);
    dev->synchronize();
    std::vector<float> map(cells * n);
    CPPUNIT_ASSERT(
        cudaMemcpy(map.data(), buffers.map, map.size() * 4, cudaMemcpyDeviceToHost) ==
        cudaSuccess);
    CPPUNIT_ASSERT(map == expected.map);
    dev = nullptr; // the destructor waits on the engine's own streams only
}

void qa_st_tbd::reset_and_frame_time(const std::string&)
{
    st_tbd_config c = random_config(120, 80, 701);
    c.device = "cuda";
    c.bilinear = "software"; // no timing choice: nothing written to the cache
    auto engine = st_tbd::make(c);
    const auto frames = gaussian_frames(c.cells() * 3, 0.3, 1.0, 702);
    const run_output first = run(*engine, frames, 3);
    std::vector<float> after(first.state.size());
    const double ms = engine->frame_time_ms(5);
    CPPUNIT_ASSERT(ms > 0.0 && std::isfinite(ms));
    engine->read_state(after.data());
    CPPUNIT_ASSERT(after == first.state);
    engine->reset();
    engine->read_state(after.data());
    for (float v : after)
        CPPUNIT_ASSERT_EQUAL(0.0f, v);
    const run_output again = run(*engine, frames, 1);
    CPPUNIT_ASSERT(again.map == first.map);
    CPPUNIT_ASSERT(again.state == first.state);
    engine->set_alpha(0.5f);
    st_tbd_config changed = c;
    changed.alpha = 0.5f;
    engine->reset();
    const run_output a = run(*engine, frames, 3);
    auto fresh = st_tbd::make(changed);
    const run_output b = run(*fresh, frames, 3);
    CPPUNIT_ASSERT(a.map == b.map);
}

void qa_st_tbd::pinned_host_buffers(const std::string&)
{
    st_tbd_config c = random_config(128, 64, 901);
    c.device = "cuda";
    c.bilinear = "software"; // no timing choice: nothing written to the cache
    const std::size_t n = 7, cells = c.cells();
    const auto frames = gaussian_frames(cells * n, 0.3, 1.0, 902);
    auto pageable = st_tbd::make(c);
    const run_output expected = run(*pageable, frames, n);
    float* pinned_frames = nullptr;
    float* pinned_map = nullptr;
    std::int32_t* pinned_arg = nullptr;
    CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_frames),
                                  cells * n * 4) == cudaSuccess);
    CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_map), cells * n * 4) ==
                   cudaSuccess);
    CPPUNIT_ASSERT(cudaMallocHost(reinterpret_cast<void**>(&pinned_arg), cells * n * 4) ==
                   cudaSuccess);
    std::copy(frames.begin(), frames.end(), pinned_frames);
    std::fill(pinned_map, pinned_map + cells * n, nanf_);
    std::fill(pinned_arg, pinned_arg + cells * n, argmax_poison);
    auto engine = st_tbd::make(c);
    std::vector<tbd_detection> det;
    engine->process(pinned_frames, n, pinned_map, pinned_arg, &det);
    const bool same_map =
        std::equal(expected.map.begin(), expected.map.end(), pinned_map);
    const bool same_arg =
        std::equal(expected.argmax.begin(), expected.argmax.end(), pinned_arg);
    cudaFreeHost(pinned_frames);
    cudaFreeHost(pinned_map);
    cudaFreeHost(pinned_arg);
    CPPUNIT_ASSERT(same_map);
    CPPUNIT_ASSERT(same_arg);
    CPPUNIT_ASSERT_EQUAL(expected.detections.size(), det.size());
}

} // namespace core
} // namespace cudadsp
} // namespace gr
