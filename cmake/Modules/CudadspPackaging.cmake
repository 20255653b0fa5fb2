# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Debian packages of gr-cudadsp (CPack DEB, one package per install component):
#
#   gr-cudadsp-core   the engine library libgnuradio-cudadsp-core, its headers and CMake
#                     package (C++ without GNU Radio's scheduler)
#   python3-cudadsp   the engines' Python package `cudadsp` and the data it reads
#   cudadsp-tools     cudadsp_info, cudadsp_xcorr, cudadsp_unwrap, cudadsp_offsets,
#                     cudadsp_stack, cudadsp_gnss (no GNU Radio)
#   gr-cudadsp        the GNU Radio blocks: library, headers, `gnuradio.cudadsp`, GRC
#                     files, the example flowgraphs and cudadsp_bench (which runs blocks)
#   gr-cudadsp-doc    the documentation, in share/doc/gr-cudadsp
#
# Build them from a build configured for /usr (Debian's Python folder named, as Debian
# builds GNU Radio itself):
#   cmake -S . -B build-deb -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr \
#         -DGR_PYTHON_DIR=lib/python3/dist-packages -DCUDADSP_TESTS=OFF
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)
# tools/check-packages does that, installs them with apt, runs a tool and an example
# from the installed files and purges them (docs/packages.md).
#
# Library dependencies come from dpkg-shlibdeps, except CUDA's: the CUDA 13 runtime
# (cudart, cuFFT, NVRTC) is NVIDIA's, not Debian's (no Debian package provides those
# sonames), so it is a stated requirement (docs/packages.md), not a Depends.

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME gr-cudadsp)
set(CPACK_PACKAGE_VENDOR "gr-cudadsp authors")
set(CPACK_PACKAGE_VERSION "${VERSION_MAJOR}.${VERSION_API}.${VERSION_ABI}")
set(CPACK_PACKAGE_CONTACT "gr-cudadsp authors <maintainers@users.noreply.a-seed-8b3586f6.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU signal processing for GNU Radio: GNSS, weather radar, InSAR, tracking")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/COPYING)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL core python tools blocks doc)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/gr-cudadsp/gr-cudadsp")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Libraries no Debian package holds, where dpkg-shlibdeps finds them: CUDA's runtime in
# its own folder, and the engine library of gr-cudadsp-core in the build (the packages
# that link it name gr-cudadsp-core of the same version themselves).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    /usr/local/cuda/lib /usr/local/cuda/lib64 ${PROJECT_BINARY_DIR}/lib/core
    ${PROJECT_BINARY_DIR}/lib)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(exact_version "(= ${CPACK_PACKAGE_VERSION})")

set(CPACK_DEBIAN_CORE_PACKAGE_NAME gr-cudadsp-core)
set(CPACK_COMPONENT_CORE_DESCRIPTION
    "gr-cudadsp engine library and headers\n The engines of gr-cudadsp (GNSS correlator and acquisition, polarimetric moments, KDP, phase unwrapping, cross-correlation, dense offsets, track-before-detect) on the CPU and on CUDA GPUs, for C++ programs; needs the CUDA 13 runtime (NVIDIA).")

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-cudadsp)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "gr-cudadsp-core ${exact_version}, python3, python3-numpy")
set(CPACK_DEBIAN_PYTHON_PACKAGE_RECOMMENDS "python3-gdal, python3-distributed")
set(CPACK_COMPONENT_PYTHON_DESCRIPTION
    "gr-cudadsp engines for Python (NumPy), without GNU Radio\n The package cudadsp: unwrap_phase_2d, dense_offsets, patch_offsets, acquire, track, polarimetric_moments, kdp, track_before_detect, the simulators.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME cudadsp-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_DEPENDS
    "gr-cudadsp-core ${exact_version}, python3-cudadsp ${exact_version}")
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
    "gr-cudadsp command-line tools\n cudadsp_info, cudadsp_xcorr (GMTSAR xcorr), cudadsp_unwrap, cudadsp_offsets, cudadsp_stack, cudadsp_gnss (GPS fixes, RINEX, NMEA); no GNU Radio needed.")

set(CPACK_DEBIAN_BLOCKS_PACKAGE_NAME gr-cudadsp)
set(CPACK_DEBIAN_BLOCKS_PACKAGE_DEPENDS
    "gr-cudadsp-core ${exact_version}, python3-cudadsp ${exact_version}, gnuradio (>= 3.10.5), python3-numpy")
set(CPACK_COMPONENT_BLOCKS_DESCRIPTION
    "GNU Radio blocks of gr-cudadsp\n GPU multichannel GNSS correlator and acquisition, polarimetric products, KDP, phase unwrappers, cross-correlators, track-before-detect: the blocks, their Python module gnuradio.cudadsp, GRC files and example flowgraphs.")

set(CPACK_DEBIAN_DOC_PACKAGE_NAME gr-cudadsp-doc)
set(CPACK_DEBIAN_DOC_PACKAGE_ARCHITECTURE all)
set(CPACK_COMPONENT_DOC_DESCRIPTION
    "documentation of gr-cudadsp\n Block pages, design notes, architecture and installation guides (Markdown).")

# The Python packages: their byte code cleaned before removal (py3clean, as Debian's
# own Python packages do), so that a purge leaves nothing.
foreach(component python blocks)
    string(TOUPPER ${component} upper)
    set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
    configure_file(${PROJECT_SOURCE_DIR}/cmake/debian/prerm.in
        ${PROJECT_BINARY_DIR}/debian/${package}/prerm @ONLY)
    set(CPACK_DEBIAN_${upper}_PACKAGE_CONTROL_EXTRA ${PROJECT_BINARY_DIR}/debian/${package}/prerm)
    set(CPACK_DEBIAN_${upper}_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
endforeach()

include(CPack)
