/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_NVRTC_PROGRAM_H
#define INCLUDED_CUDADSP_CORE_NVRTC_PROGRAM_H

// Run-time compilation of CUDA C++ (NVRTC) for engines that generate kernels. Needs no
// GPU: only the compiler library (libnvrtc, and libnvrtc-builtins at run time).

#include <nvrtc.h>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*! Throws cuda_error naming \p call, the place and the NVRTC result when \p status is
 *  not NVRTC_SUCCESS. */
void check_nvrtc(nvrtcResult status, const char* call, const char* file, int line);

} // namespace core
} // namespace cudadsp
} // namespace gr

//! Wrap every NVRTC call: CUDADSP_NVRTC(nvrtcCompileProgram(prog, n, options));
#define CUDADSP_NVRTC(call) \
    ::gr::cudadsp::core::check_nvrtc((call), #call, __FILE__, __LINE__)

namespace gr {
namespace cudadsp {
namespace core {

//! A header the program may #include by \p name, with its text.
struct nvrtc_header {
    std::string name;
    std::string text;
};

//! A compiled program: a CUBIN (machine code) or PTX (JIT-compiled by the driver).
struct nvrtc_image {
    std::string data; //!< the image; PTX is NUL-terminated text
    bool cubin = false;
    std::string target; //!< "sm_90" (CUBIN) or "compute_90" (PTX)
    std::string log;    //!< the compiler's log (warnings), may be empty
};

/*!
 * Compiles \p source (named \p name in messages) for compute capability
 * \p major.\p minor: a CUBIN for sm_XY when this NVRTC supports that architecture and
 * \p ptx is false, otherwise PTX for the newest virtual architecture it supports that
 * is not newer than XY. \p options are passed as given (e.g. "-std=c++17"; the
 * architecture option is added here). Throws cuda_error with the compile log when the
 * program does not compile, or std::runtime_error when NVRTC supports no architecture
 * up to XY.
 */
nvrtc_image nvrtc_compile(const std::string& source,
                          const std::string& name,
                          const std::vector<nvrtc_header>& headers,
                          const std::vector<std::string>& options,
                          int major,
                          int minor,
                          bool ptx = false);

//! NVRTC's version as "13.0".
std::string nvrtc_version();

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_NVRTC_PROGRAM_H */
