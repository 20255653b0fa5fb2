/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_ST_TBD_KERNEL_SOURCE_H
#define INCLUDED_CUDADSP_CORE_ST_TBD_KERNEL_SOURCE_H

// Source text of the generated track-before-detect kernel (compiled with NVRTC by the
// CUDA backend). Pure host code, so the generator and the compile are tested without a
// GPU.

#include "runtime/nvrtc_program.h"
#include "tbd/lrei.h"
#include "tbd/st_tbd_internal.h"
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

enum class tbd_bilinear_mode { software, texture };

//! "software" or "texture".
const char* to_string(tbd_bilinear_mode mode);

//! Threads per block of both update kernels: 32 x 8 cells, one cell per thread.
constexpr unsigned int tbd_block_x = 32;
constexpr unsigned int tbd_block_y = 8;

//! Name of the generated kernel (extern "C").
constexpr const char* tbd_generated_kernel_name = "st_tbd_generated";

/*! Most planes the texture path takes: their handles travel by value as one kernel
 *  argument of 8 bytes per plane (4 KiB here, well inside the 32 KiB of kernel
 *  parameters CUDA 12.1+ allows on compute capability 7.0 and newer). */
constexpr std::size_t tbd_max_texture_planes = 512;

/*! Raise when the generated text changes: it is part of the order-cache key, so a
 *  cached order tuned for another generator is not reused. */
constexpr int tbd_generator_revision = 1;

/*!
 * The generated kernel for \p table in line order \p order (a permutation of the
 * table's taps, i.e. of st_tbd::lines()).
 *
 * Contract of the kernel (one thread per cell, blocks of tbd_block_x x tbd_block_y):
 *   st_tbd_generated(const float* state, float* next, const float* frame, float* map,
 *                    int* argmax, float alpha[, tbd_planes planes])
 * state and next: two state buffers in \p layout (every guard zero; next's interior is
 * written, its guard is not); frame, map and argmax: width * height row-major; planes
 * (texture mode only): one texture object per plane of the buffer \p state, a pitched
 * 2D texture over the whole guarded plane (pitch x rows floats), linear filtering,
 * unnormalised coordinates. state and next must not overlap.
 *
 * Every line is the paper's multiply-accumulate line with the constants baked in:
 *   texture:  v4 += 0.804f * tex2D<float>(planes.t[3], u + -1.9f, v + -0.55f);
 *   software: v4 += 0.804f * tap<3, -2, -1>(c, 0.1f, 0.45f);
 * (plane, integer offset and fraction of the read at (x - dx, y - dy); the arithmetic
 * is tbd_bilinear() of st_tbd_rule.h, which the program includes). Constants are
 * printed with 9 significant digits, so they are the exact float values.
 */
std::string st_tbd_generated_source(const tbd_layout& layout,
                                    const tbd_table& table,
                                    const std::vector<std::size_t>& order,
                                    tbd_bilinear_mode mode);

//! The headers the generated source includes (host_device.h and st_tbd_rule.h).
const std::vector<nvrtc_header>& st_tbd_rule_headers();

//! NVRTC options for the generated kernel.
std::vector<std::string> st_tbd_nvrtc_options();

//! The LREI sort keys of the lines of \p table: read offset (-dy, -dx) and source plane.
std::vector<lrei_line_key> st_tbd_line_keys(const st_tbd_config& config);

/*! A canonical description of everything that shapes the generated kernel (grid,
 *  layout, every transition's exact values, generator revision) for the order cache
 *  key; \p purpose distinguishes entries ("order texture", "bilinear generic", ...). */
std::string st_tbd_cache_description(const st_tbd_config& config,
                                     const tbd_layout& layout,
                                     const std::string& purpose);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_ST_TBD_KERNEL_SOURCE_H */
