/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_KERNELS_CUH
#define INCLUDED_CUDADSP_CORE_ST_TBD_KERNELS_CUH

/*
 * The track-before-detect CUDA backend's compiled kernels: the generic update (software
 * or texture bilinear interpolation) and the argmax-to-float conversion, with the state
 * layout they take. The generated kernel's source is st_tbd_kernel_source.cc (NVRTC).
 * st_tbd_cuda.cu, which launches them, alone includes this file; the kernels keep the
 * internal linkage (anonymous namespace) they had there.
 */

#include "tbd/st_tbd_cuda.h"
#include "tbd/st_tbd_rule.h"
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! The state layout as the generic kernel needs it.
struct kernel_layout {
    int width;
    int height;
    long long pitch;
    long long stride;
    long long x0;
    long long y0;
};

kernel_layout to_kernel_layout(const tbd_layout& l)
{
    return { static_cast<int>(l.width),       static_cast<int>(l.height),
             static_cast<long long>(l.pitch), static_cast<long long>(l.plane_stride),
             static_cast<long long>(l.x0),    static_cast<long long>(l.y0) };
}

/*!
 * The generic update: one thread per cell (blocks of tbd_block_x x tbd_block_y),
 * hypotheses in order, each hypothesis' transitions from the table (taps, first), in
 * table order. state and next are two buffers in the layout \p l (guards zero); frame,
 * map and argmax are width * height row-major. Texture: \p textures[plane] is the
 * texture object of that plane of \p state.
 */
template <bool Texture>
__global__ void __launch_bounds__(tbd_block_x* tbd_block_y)
    st_tbd_generic_kernel(const float* __restrict__ state,
                          float* __restrict__ next,
                          const float* __restrict__ frame,
                          float* __restrict__ map,
                          std::int32_t* __restrict__ argmax,
                          float alpha,
                          const tbd_tap* __restrict__ taps,
                          const int* __restrict__ first,
                          const cudaTextureObject_t* __restrict__ textures,
                          int planes,
                          kernel_layout l)
{
    const int x = blockIdx.x * tbd_block_x + threadIdx.x;
    const int y = blockIdx.y * tbd_block_y + threadIdx.y;
    if (x >= l.width || y >= l.height)
        return;
    const long long cell = (l.y0 + y) * l.pitch + l.x0 + x;
    const float tx = float(l.x0 + x) + 0.5f;
    const float ty = float(l.y0 + y) + 0.5f;
    const int i = y * l.width + x;
    const float in = tbd_input(__ldg(frame + i));
    float best = 0.0f;
    int arg = 0;
    int k = __ldg(first);
    for (int m = 0; m < planes; ++m) {
        const int end = __ldg(first + m + 1);
        float v = 0.0f;
        for (; k < end; ++k) {
            const tbd_tap t = taps[k];
            float sample;
            if (Texture) {
                sample = tex2D<float>(textures[t.source],
                                      tx + (float(t.ix) + t.fx),
                                      ty + (float(t.iy) + t.fy));
            } else {
                const float* q =
                    state + t.source * l.stride + cell + t.iy * l.pitch + t.ix;
                sample = tbd_bilinear(__ldg(q),
                                      __ldg(q + 1),
                                      __ldg(q + l.pitch),
                                      __ldg(q + l.pitch + 1),
                                      t.fx,
                                      t.fy);
            }
            v += t.weight * sample;
        }
        const float p = tbd_information_update(v, in, alpha);
        next[cell + m * l.stride] = p;
        tbd_argmax_step(p, m, best, arg);
    }
    map[i] = best;
    argmax[i] = arg;
}

/*!
 * The detection rule over a finished map (one thread per cell): each cell that passes
 * takes a slot of \p out by an atomic increment of \p count; \p count ends as the
 * number that passed, which may exceed \p capacity (then only capacity were stored).
 */
__global__ void __launch_bounds__(tbd_block_x* tbd_block_y)
    st_tbd_detection_kernel(const float* __restrict__ map,
                            const std::int32_t* __restrict__ argmax,
                            int width,
                            int height,
                            float threshold,
                            tbd_candidate* __restrict__ out,
                            unsigned int capacity,
                            unsigned int* __restrict__ count)
{
    const int x = blockIdx.x * tbd_block_x + threadIdx.x;
    const int y = blockIdx.y * tbd_block_y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int i = y * width + x;
    const float d = __ldg(map + i);
    if (!(d > threshold))
        return;
    const float outside = tbd_outside();
    auto at = [&](int dx, int dy) {
        const int u = x + dx;
        const int v = y + dy;
        return (u < 0 || v < 0 || u >= width || v >= height) ? outside
                                                             : __ldg(map + v * width + u);
    };
    if (tbd_is_detection(d,
                         threshold,
                         at(-1, -1),
                         at(0, -1),
                         at(1, -1),
                         at(-1, 0),
                         at(1, 0),
                         at(-1, 1),
                         at(0, 1),
                         at(1, 1))) {
        const unsigned int slot = atomicAdd(count, 1u);
        if (slot < capacity)
            out[slot] = { static_cast<std::uint32_t>(x),
                          static_cast<std::uint32_t>(y),
                          d,
                          __ldg(argmax + i) };
    }
}

/*!
 * argmax as float (the form of st_tbd_ff's output 1): \p n values, exact for the
 * indices it holds (< 2^24). A grid-stride loop of coalesced 4-byte reads and writes.
 */
__global__ void st_tbd_argmax_to_float_kernel(const std::int32_t* __restrict__ argmax,
                                              float* __restrict__ out,
                                              std::size_t n)
{
    for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
         i += std::size_t(gridDim.x) * blockDim.x)
        out[i] = static_cast<float>(__ldg(argmax + i));
}

} // namespace
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_KERNELS_CUH */
