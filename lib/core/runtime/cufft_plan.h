/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_CUFFT_PLAN_H
#define INCLUDED_CUDADSP_CORE_CUFFT_PLAN_H

#include "runtime/cuda_check.h"
#include <cufft.h>
#include <cstddef>

namespace gr {
namespace cudadsp {
namespace core {

/*! Throws cuda_error naming \p call, the place and the cuFFT result when \p status is
 *  not CUFFT_SUCCESS. */
void check_cufft(cufftResult status, const char* call, const char* file, int line);

} // namespace core
} // namespace cudadsp
} // namespace gr

//! Wrap every cuFFT call: CUDADSP_CUFFT(cufftExecC2C(plan, in, out, CUFFT_FORWARD));
#define CUDADSP_CUFFT(call) \
    ::gr::cudadsp::core::check_cufft((call), #call, __FILE__, __LINE__)

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief Owner of a cuFFT plan (move-only; destroyed with the object).
 *
 * Plans are expensive to make: engines make theirs once, for their largest batch, and
 * reuse them on their own stream.
 */
class cufft_plan
{
public:
    cufft_plan() = default;
    //! \p batch contiguous transforms of \p points points each.
    cufft_plan(int points, cufftType type, int batch);

    //! Tag for plans without a work area of their own.
    struct external_work_area {
    };
    /*! The same plan without a work area: plans that never run at the same time (one
     *  engine's, on one stream) can share one of the largest work_size(), given to each
     *  with set_work_area() before it runs. */
    cufft_plan(int points, cufftType type, int batch, external_work_area);

    /*! A plan of \p batch rank-dimensional transforms of size \p n in the advanced data
     *  layout (cufftMakePlanMany's arguments), without a work area. */
    cufft_plan(int rank,
               const int* n,
               const int* inembed,
               int istride,
               int idist,
               const int* onembed,
               int ostride,
               int odist,
               cufftType type,
               int batch,
               external_work_area);

    ~cufft_plan();
    cufft_plan(cufft_plan&& o) noexcept;
    cufft_plan& operator=(cufft_plan&& o) noexcept;
    cufft_plan(const cufft_plan&) = delete;
    cufft_plan& operator=(const cufft_plan&) = delete;

    cufftHandle get() const { return d_handle; }
    //! Later executions of this plan are enqueued on \p stream.
    void set_stream(cudaStream_t stream) const;
    //! Bytes of device memory the plan works in (an external_work_area plan's need).
    std::size_t work_size() const { return d_work_size; }
    //! External work area plans: device memory of at least work_size() bytes.
    void set_work_area(void* area) const;

private:
    cufftHandle d_handle = 0;
    bool d_owned = false;
    std::size_t d_work_size = 0;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUFFT_PLAN_H */
