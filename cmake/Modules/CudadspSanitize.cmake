# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# CUDADSP_SANITIZE: GCC sanitizers for every target of the build, e.g.
#   -DCUDADSP_SANITIZE=address,undefined
# (tools/sanitize-test, run by CI). The host code of both languages is instrumented: C++
# directly, the host side of .cu files through nvcc's -Xcompiler. Device code is not
# (compute-sanitizer covers it on the GPU host). Undefined behaviour is made fatal, so a
# test that meets any fails instead of printing a warning and passing.
set(CUDADSP_SANITIZE "" CACHE STRING
    "GCC sanitizers for the host code (e.g. address,undefined); empty: none")

if(CUDADSP_SANITIZE)
    if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
        message(FATAL_ERROR "CUDADSP_SANITIZE: needs GCC (nvcc's host compiler here), got ${CMAKE_CXX_COMPILER_ID}")
    endif()
    # One -fsanitize= per sanitizer: nvcc splits -Xcompiler values at commas.
    string(REPLACE "," ";" _cudadsp_sanitizers "${CUDADSP_SANITIZE}")
    set(_cudadsp_sanitize_flags "")
    foreach(_sanitizer IN LISTS _cudadsp_sanitizers)
        list(APPEND _cudadsp_sanitize_flags -fsanitize=${_sanitizer})
    endforeach()
    set(_cudadsp_sanitize_link ${_cudadsp_sanitize_flags})
    list(APPEND _cudadsp_sanitize_flags -fno-omit-frame-pointer)
    if("undefined" IN_LIST _cudadsp_sanitizers)
        list(APPEND _cudadsp_sanitize_flags -fno-sanitize-recover=undefined)
    endif()
    string(REPLACE ";" "," _cudadsp_sanitize_nvcc "${_cudadsp_sanitize_flags}")
    string(REPLACE ";" "," _cudadsp_sanitize_nvcc_link "${_cudadsp_sanitize_link}")
    add_compile_options(
        "$<$<COMPILE_LANGUAGE:C,CXX>:${_cudadsp_sanitize_flags}>"
        "$<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_cudadsp_sanitize_nvcc}>")
    # The sanitizer runtimes come with the link; a target that nvcc links passes the flags
    # to its host compiler. GCC's libasan link spec ends with --no-as-needed in force, so
    # every library named after it would become a dependency, the CUDA driver's stub
    # libcuda.so too (the core library must load without a driver): --as-needed again.
    add_link_options(
        "$<$<LINK_LANGUAGE:C,CXX>:${_cudadsp_sanitize_link};-Wl,--as-needed>"
        "$<$<LINK_LANGUAGE:CUDA>:-Xcompiler=${_cudadsp_sanitize_nvcc_link};-Xlinker=--as-needed>")
    message(STATUS "Sanitizers for the host code: ${CUDADSP_SANITIZE}")
endif()
