# Copyright 2026 gr-cudadsp authors.
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Shared by the README's two commands: install what a fresh Debian 12 machine lacks,
# then configure and build gr-cudadsp in build/. Sourced, not run.
# Every Debian package a test, tool or example uses is in install_dependencies()'s list:
# .ci/check-dependencies fails CI when one is not.

set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${CUDADSP_BUILD_DIR:-$repo/build}"
# ctest's results (JUnit), skipped entries included: setup-and-test writes them,
# .ci/check-skips reads them.
ctest_results="$(realpath -m "$build")/ctest-results.xml"

log() { printf '\n== %s\n' "$*"; }

install_dependencies() {
    local packages=(cmake g++ make pkg-config git gnuradio gnuradio-dev libcppunit-dev
                    pybind11-dev python3-numpy python3-matplotlib python3-yaml
                    libfftw3-dev libvolk2-dev libboost-program-options-dev
                    nlohmann-json3-dev python3-scipy python3-skimage python3-gdal
                    liblemon-dev          # minimum-cost-flow solvers: MCF 2-D unwrapping
                    python3-netcdf4 python3-xarray python3-distributed
                    gnss-sdr              # the peer receiver: tools/compare-gnss-sdr (qa_compare_gnss_sdr)
                    rtklib                # rnx2rtkp reads our RINEX files (qa_gnss_rinex_rtklib)
                    python3-h5py-serial   # h5py: GNSS-SDR's dumps, tools/compare-gnss-sdr
                    python3-hypothesis    # qa_properties
                    gir1.2-gtk-3.0        # GRC's window (gnuradio only recommends it)
                    dpkg-dev file         # CPack's DEB dependencies (tools/check-packages)
                    clang libclang-rt-14-dev)  # libFuzzer: the fuzz targets (tests/fuzz)
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing ${missing[*]}"
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
    fi
    local nvcc="${CUDACXX:-/usr/local/cuda/bin/nvcc}"
    if [ ! -x "$nvcc" ] && ! command -v nvcc >/dev/null; then
        echo "error: the CUDA toolkit (nvcc) is needed to build gr-cudadsp; install it in /usr/local/cuda or set CUDACXX" >&2
        exit 1
    fi
}

configure_and_build() {
    log "building in $build"
    # The configure log lives inside the build folder, which git ignores.
    mkdir -p "$build"
    cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release ${CUDADSP_CMAKE_ARGS:-} >"$build/configure.log" 2>&1 \
        || { cat "$build/configure.log"; exit 1; }
    cmake --build "$build" -j "$(nproc)"
}
