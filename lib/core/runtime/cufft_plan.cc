/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/cufft_plan.h"
#include <cstring>
#include <sstream>
#include <utility>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

const char* cufft_result_name(cufftResult status)
{
    switch (status) {
    case CUFFT_INVALID_PLAN:
        return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED:
        return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE:
        return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE:
        return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR:
        return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED:
        return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED:
        return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE:
        return "CUFFT_INVALID_SIZE";
    case CUFFT_NOT_SUPPORTED:
        return "CUFFT_NOT_SUPPORTED";
    default:
        return "cuFFT error";
    }
}

} // namespace

void check_cufft(cufftResult status, const char* call, const char* file, int line)
{
    if (status == CUFFT_SUCCESS)
        return;
    const char* base = std::strrchr(file, '/');
    std::ostringstream msg;
    msg << call << " failed at " << (base ? base + 1 : file) << ":" << line << ": "
        << cufft_result_name(status) << " (" << static_cast<int>(status) << ")";
    throw cuda_error(msg.str());
}

cufft_plan::cufft_plan(int points, cufftType type, int batch)
{
    CUDADSP_CUFFT(cufftPlan1d(&d_handle, points, type, batch));
    d_owned = true;
}

cufft_plan::cufft_plan(int points, cufftType type, int batch, external_work_area)
{
    CUDADSP_CUFFT(cufftCreate(&d_handle));
    try {
        CUDADSP_CUFFT(cufftSetAutoAllocation(d_handle, 0));
        CUDADSP_CUFFT(cufftMakePlan1d(d_handle, points, type, batch, &d_work_size));
    } catch (...) {
        cufftDestroy(d_handle);
        throw;
    }
    d_owned = true;
}

cufft_plan::cufft_plan(int rank,
                       const int* n,
                       const int* inembed,
                       int istride,
                       int idist,
                       const int* onembed,
                       int ostride,
                       int odist,
                       cufftType type,
                       int batch,
                       external_work_area)
{
    CUDADSP_CUFFT(cufftCreate(&d_handle));
    try {
        CUDADSP_CUFFT(cufftSetAutoAllocation(d_handle, 0));
        CUDADSP_CUFFT(cufftMakePlanMany(d_handle,
                                        rank,
                                        const_cast<int*>(n),
                                        const_cast<int*>(inembed),
                                        istride,
                                        idist,
                                        const_cast<int*>(onembed),
                                        ostride,
                                        odist,
                                        type,
                                        batch,
                                        &d_work_size));
    } catch (...) {
        cufftDestroy(d_handle);
        throw;
    }
    d_owned = true;
}

cufft_plan::~cufft_plan()
{
    if (d_owned)
        cufftDestroy(d_handle);
}

cufft_plan::cufft_plan(cufft_plan&& o) noexcept
    : d_handle(o.d_handle),
      d_owned(std::exchange(o.d_owned, false)),
      d_work_size(o.d_work_size)
{
}

cufft_plan& cufft_plan::operator=(cufft_plan&& o) noexcept
{
    std::swap(d_handle, o.d_handle);
    std::swap(d_owned, o.d_owned);
    std::swap(d_work_size, o.d_work_size);
    return *this;
}

void cufft_plan::set_stream(cudaStream_t stream) const
{
    CUDADSP_CUFFT(cufftSetStream(d_handle, stream));
}

void cufft_plan::set_work_area(void* area) const
{
    CUDADSP_CUFFT(cufftSetWorkArea(d_handle, area));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
