/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H
#define INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H

// PLACEHOLDER-REPLACED-BY-HELPER (interface fixed; the helper documents and completes it)
#include <gnuradio/cudadsp/core/api.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

//! What a synthetic interferogram contains (phases in radians).
struct CUDADSP_CORE_API interferogram_scene_config {
    std::size_t width = 512;
    std::size_t height = 512;
    std::uint64_t seed = 1;
    //! Peak-to-peak topographic phase over the scene, in cycles.
    double topography_cycles = 20.0;
    //! Depth of the deformation bowl at its centre, in cycles.
    double deformation_cycles = 5.0;
    //! Standard deviation of the turbulent atmospheric phase, radians.
    double atmosphere_rad = 2.0;
    //! Coherence of land; 1 gives no decorrelation noise.
    double coherence = 0.9;
    //! A water body (coherence near 0, masked).
    bool water = true;
    //! A steep area whose true gradient exceeds half a cycle per pixel (aliased).
    bool steep = true;

    void validate() const;
};

//! A synthetic interferogram with its truth; row-major, width * height each.
struct CUDADSP_CORE_API interferogram_scene {
    std::size_t width = 0;
    std::size_t height = 0;
    std::vector<double> true_phase; //!< unwrapped truth, radians
    std::vector<float> wrapped;     //!< noisy wrapped phase in [-pi, pi)
    std::vector<float> coherence;   //!< coherence the noise was drawn with
    std::vector<std::uint8_t> mask; //!< 1 valid, 0 water
    std::vector<std::uint8_t>
        aliased; //!< 1 where the truth's gradient exceeds pi per pixel
};

CUDADSP_CORE_API interferogram_scene
simulate_interferogram(const interferogram_scene_config& config);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H */
