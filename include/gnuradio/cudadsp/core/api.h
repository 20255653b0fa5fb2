/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_API_H
#define INCLUDED_CUDADSP_CORE_API_H

// The engines build without GNU Radio, so they cannot use gnuradio/attributes.h.
// The library is compiled with -fvisibility=hidden; engine classes and functions
// that C++ users and the apps call are exported explicitly.
#if defined(__GNUC__) || defined(__clang__)
#define CUDADSP_CORE_API __attribute__((visibility("default")))
#else
#define CUDADSP_CORE_API
#endif

// cudaStream_t is `struct CUstream_st*`; naming it here keeps the CUDA headers out of
// the public engine headers while staying type-compatible with the runtime API.
struct CUstream_st;

namespace gr {
namespace cudadsp {
namespace core {
using cuda_stream_t = CUstream_st*;
} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_API_H */
