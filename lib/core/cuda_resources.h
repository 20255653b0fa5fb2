/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CUDA_RESOURCES_H
#define INCLUDED_CUDADSP_CORE_CUDA_RESOURCES_H

// RAII owners for the CUDA objects the engines use. Each is move-only, checks its
// creation call and releases in its destructor (destructors never throw: a failure to
// free during unwinding must not terminate the process, so it is ignored there).

#include "cuda_check.h"
#include <cstddef>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

//! Makes \p ordinal the current device for the lifetime of the guard.
class device_guard
{
public:
    explicit device_guard(int ordinal);
    ~device_guard();
    device_guard(const device_guard&) = delete;
    device_guard& operator=(const device_guard&) = delete;

private:
    int d_previous = -1;
};

//! Device memory for \p count elements of T (uninitialised).
template <typename T>
class device_buffer
{
public:
    device_buffer() = default;
    explicit device_buffer(std::size_t count) : d_count(count)
    {
        if (count)
            CUDADSP_CUDA(cudaMalloc(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
    }
    ~device_buffer()
    {
        if (d_ptr)
            cudaFree(d_ptr);
    }
    device_buffer(device_buffer&& o) noexcept { swap(o); }
    device_buffer& operator=(device_buffer&& o) noexcept
    {
        device_buffer(std::move(o)).swap(*this);
        return *this;
    }
    device_buffer(const device_buffer&) = delete;
    device_buffer& operator=(const device_buffer&) = delete;

    T* get() const { return d_ptr; }
    std::size_t size() const { return d_count; }
    std::size_t bytes() const { return d_count * sizeof(T); }
    void swap(device_buffer& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_count, o.d_count);
    }

private:
    T* d_ptr = nullptr;
    std::size_t d_count = 0;
};

//! Page-locked host memory for \p count elements of T: DMA-able, so async copies overlap.
template <typename T>
class pinned_buffer
{
public:
    pinned_buffer() = default;
    explicit pinned_buffer(std::size_t count) : d_count(count)
    {
        if (count)
            CUDADSP_CUDA(
                cudaMallocHost(reinterpret_cast<void**>(&d_ptr), count * sizeof(T)));
    }
    ~pinned_buffer()
    {
        if (d_ptr)
            cudaFreeHost(d_ptr);
    }
    pinned_buffer(pinned_buffer&& o) noexcept { swap(o); }
    pinned_buffer& operator=(pinned_buffer&& o) noexcept
    {
        pinned_buffer(std::move(o)).swap(*this);
        return *this;
    }
    pinned_buffer(const pinned_buffer&) = delete;
    pinned_buffer& operator=(const pinned_buffer&) = delete;

    T* get() const { return d_ptr; }
    std::size_t size() const { return d_count; }
    std::size_t bytes() const { return d_count * sizeof(T); }
    void swap(pinned_buffer& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_count, o.d_count);
    }

private:
    T* d_ptr = nullptr;
    std::size_t d_count = 0;
};

//! A non-blocking CUDA stream (does not synchronise with the legacy default stream).
class cuda_stream
{
public:
    cuda_stream();
    ~cuda_stream();
    cuda_stream(cuda_stream&& o) noexcept : d_stream(std::exchange(o.d_stream, nullptr))
    {
    }
    cuda_stream& operator=(cuda_stream&& o) noexcept
    {
        std::swap(d_stream, o.d_stream);
        return *this;
    }
    cuda_stream(const cuda_stream&) = delete;
    cuda_stream& operator=(const cuda_stream&) = delete;

    cudaStream_t get() const { return d_stream; }
    void synchronize() const;

private:
    cudaStream_t d_stream = nullptr;
};

//! A CUDA event; timing_enabled = false makes a cheaper event for ordering only.
class cuda_event
{
public:
    explicit cuda_event(bool timing_enabled = false);
    ~cuda_event();
    cuda_event(cuda_event&& o) noexcept : d_event(std::exchange(o.d_event, nullptr)) {}
    cuda_event& operator=(cuda_event&& o) noexcept
    {
        std::swap(d_event, o.d_event);
        return *this;
    }
    cuda_event(const cuda_event&) = delete;
    cuda_event& operator=(const cuda_event&) = delete;

    cudaEvent_t get() const { return d_event; }
    void record(cudaStream_t stream) const;
    void synchronize() const;
    //! Make \p stream wait (on the device) for the work this event recorded.
    void wait_on(cudaStream_t stream) const;
    //! Milliseconds from \p start to this event (both recorded with timing enabled).
    float elapsed_ms_since(const cuda_event& start) const;

private:
    cudaEvent_t d_event = nullptr;
};

//! True when \p ptr is page-locked (cudaMallocHost or cudaHostRegister) host memory.
bool is_pinned_host_pointer(const void* ptr);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUDA_RESOURCES_H */
