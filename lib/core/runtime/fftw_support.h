/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_FFTW_SUPPORT_H
#define INCLUDED_CUDADSP_CORE_FFTW_SUPPORT_H

/*
 * What the CPU backends need around FFTW (single precision): one process-wide lock for
 * plan creation and destruction, and FFTW-aligned arrays.
 *
 * FFTW's planner is not thread-safe, and other FFTW users share it in this process
 * (GNU Radio's FFT blocks among them). fftw_planner_lock() first asks FFTW to wrap
 * every planner call of the process in its own lock (fftwf_make_planner_thread_safe,
 * once), and then holds one mutex shared by all our engines, which also orders our own
 * plan creation and destruction before that hook exists. Plans are made with
 * FFTW_ESTIMATE: without measuring, so the choice does not depend on timing. (FFTW would
 * still use wisdom that another library of the process imported for the same size;
 * that can change the float32 rounding, never the function.)
 */

#include <fftw3.h>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>

namespace gr {
namespace cudadsp {
namespace core {

//! Hold while creating or destroying FFTW plans.
std::unique_lock<std::mutex> fftw_planner_lock();

struct fftw_deleter {
    void operator()(void* p) const { fftwf_free(p); }
};

//! An FFTW-aligned array (fftwf_malloc), freed with fftwf_free.
template <typename T>
using fftw_array = std::unique_ptr<T[], fftw_deleter>;

//! \p count uninitialised elements (at least one, so that the pointer is never null).
template <typename T>
fftw_array<T> fftw_allocate(std::size_t count)
{
    void* p = fftwf_malloc((count ? count : 1) * sizeof(T));
    if (p == nullptr)
        throw std::bad_alloc();
    return fftw_array<T>(static_cast<T*>(p));
}

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_FFTW_SUPPORT_H */
