/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_HOST_DEVICE_H
#define INCLUDED_CUDADSP_CORE_HOST_DEVICE_H

/*
 * CUDADSP_HOST_DEVICE marks a function that both backends compile: the CUDA kernels
 * (nvcc) and the CPU engines (the host compiler). Rules shared this way are what make
 * the two backends compute the same function.
 */
#ifdef __CUDACC__
#define CUDADSP_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define CUDADSP_HOST_DEVICE inline
#endif

#endif /* INCLUDED_CUDADSP_CORE_HOST_DEVICE_H */
