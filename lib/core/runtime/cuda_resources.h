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

#include "runtime/cuda_check.h"
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

namespace detail {

//! Device memory: cudaMalloc / cudaFree.
struct device_allocation {
    static void* allocate(std::size_t bytes)
    {
        void* ptr = nullptr;
        CUDADSP_CUDA(cudaMalloc(&ptr, bytes));
        return ptr;
    }
    static void release(void* ptr) { cudaFree(ptr); }
};

//! Page-locked host memory: DMA-able, so async copies from and to it overlap.
struct pinned_allocation {
    static void* allocate(std::size_t bytes)
    {
        void* ptr = nullptr;
        CUDADSP_CUDA(cudaMallocHost(&ptr, bytes));
        return ptr;
    }
    static void release(void* ptr) { cudaFreeHost(ptr); }
};

//! \p count uninitialised elements of T from \p Allocation, released on destruction.
template <typename T, typename Allocation>
class cuda_allocation
{
public:
    cuda_allocation() = default;
    explicit cuda_allocation(std::size_t count)
        : d_ptr(count ? static_cast<T*>(Allocation::allocate(count * sizeof(T)))
                      : nullptr),
          d_count(count)
    {
    }
    ~cuda_allocation()
    {
        if (d_ptr)
            Allocation::release(d_ptr);
    }
    cuda_allocation(cuda_allocation&& o) noexcept { swap(o); }
    cuda_allocation& operator=(cuda_allocation&& o) noexcept
    {
        cuda_allocation(std::move(o)).swap(*this);
        return *this;
    }
    cuda_allocation(const cuda_allocation&) = delete;
    cuda_allocation& operator=(const cuda_allocation&) = delete;

    T* get() const { return d_ptr; }
    std::size_t size() const { return d_count; }
    std::size_t bytes() const { return d_count * sizeof(T); }
    void swap(cuda_allocation& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        std::swap(d_count, o.d_count);
    }

private:
    T* d_ptr = nullptr;
    std::size_t d_count = 0;
};

} // namespace detail

//! Device memory for count elements of T (uninitialised).
template <typename T>
using device_buffer = detail::cuda_allocation<T, detail::device_allocation>;

//! Page-locked host memory for count elements of T (uninitialised).
template <typename T>
using pinned_buffer = detail::cuda_allocation<T, detail::pinned_allocation>;

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

/*!
 * The stream an engine's device state (workspace, carried state) was last used on.
 * Work that touches that state on another stream must first wait for what was
 * enqueued before: switch_to() makes the new stream wait for the old one on the device
 * (through an event, no host wait) and remembers it.
 */
class stream_order
{
public:
    explicit stream_order(cudaStream_t initial = nullptr) : d_last(initial) {}
    void switch_to(cudaStream_t stream);
    cudaStream_t last() const { return d_last; }

private:
    cudaStream_t d_last;
};

//! True when \p ptr is page-locked (cudaMallocHost or cudaHostRegister) host memory.
bool is_pinned_host_pointer(const void* ptr);

/*!
 * Page-locks existing host memory (cudaHostRegister, portable to every device) for the
 * object's lifetime, so that copies from and to it are direct DMA transfers instead of
 * being staged. Registration can fail (a mapping the driver cannot pin, a locked-memory
 * limit); the object is then empty and the memory stays pageable: callers treat it
 * as an optimisation, never a requirement.
 */
class host_registration
{
public:
    host_registration() = default;
    host_registration(void* ptr, std::size_t bytes);
    ~host_registration();
    host_registration(host_registration&& o) noexcept
        : d_ptr(std::exchange(o.d_ptr, nullptr))
    {
    }
    host_registration& operator=(host_registration&& o) noexcept
    {
        std::swap(d_ptr, o.d_ptr);
        return *this;
    }
    host_registration(const host_registration&) = delete;
    host_registration& operator=(const host_registration&) = delete;

    bool registered() const { return d_ptr != nullptr; }

private:
    void* d_ptr = nullptr;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUDA_RESOURCES_H */
