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
#include <cufftXt.h>
#include <cstddef>
#include <memory>
#include <string>

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

    /*!
     * A cuFFT LTO callback (cufftXtSetJITCallback): \p ltoir holds an extern "C"
     * __device__ function named \p symbol with the signature of \p type
     * (cufftJITCallbackLoadC for CUFFT_CB_LD_COMPLEX: offset counts elements from the
     * start of the executed batch), compiled to LTO-IR (nvrtc_compile_ltoir());
     * \p caller_info is the device pointer it receives. cuFFT links it into the plan's
     * kernels while planning (nvJitLink, loaded by cuFFT at run time).
     */
    struct jit_callback {
        const std::string* ltoir = nullptr; //!< kept by the caller until planned
        std::string symbol;
        cufftXtCallbackType type = CUFFT_CB_UNDEFINED;
        void* caller_info = nullptr; //!< device memory, alive as long as the plan
    };
    /*! A plan of \p batch transforms of \p points points with \p callback, without a
     *  work area. Throws cuda_error when cuFFT cannot set or link the callback (an LTO
     *  callback needs the shared libcufft and nvJitLink), as for any planning error. */
    cufft_plan(int points,
               cufftType type,
               int batch,
               external_work_area,
               const jit_callback& callback);

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
    //! The callback's caller_info as cuFFT was given it (one pointer per device), at an
    //! address that moves of the plan do not change.
    std::unique_ptr<void*> d_caller_info;
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_CUFFT_PLAN_H */
