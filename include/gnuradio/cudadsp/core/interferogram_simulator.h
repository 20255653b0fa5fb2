/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H
#define INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H

#include <gnuradio/cudadsp/core/api.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * \brief What a synthetic interferogram contains (phases in radians).
 *
 * S = min(width, height) below; sizes given as fractions of S or of the image keep the
 * scene's look at every size, so its smooth parts get gentler per pixel as it grows.
 * The placement of every feature comes from the seed alone: switching one feature off
 * or changing an amplitude leaves the others where they were, and the decorrelation
 * noise of each pixel is drawn from the same random numbers whatever the coherence.
 */
struct CUDADSP_CORE_API interferogram_scene_config {
    //! Columns, >= 2; width * height at most 2^30.
    std::size_t width = 512;
    //! Rows, >= 2.
    std::size_t height = 512;
    /*! Seed of every random draw (splitmix64: the same draws on every platform and
     *  standard library; the scene's bits also depend on the C library's exp, sin,
     *  atan2, ... and on FMA contraction, so they match where those do). */
    std::uint64_t seed = 1;
    //! Peak-to-peak topographic phase over the scene, in cycles; finite, >= 0.
    double topography_cycles = 20.0;
    //! Depth of the deformation bowl at its centre, in cycles; finite, >= 0.
    double deformation_cycles = 5.0;
    //! Standard deviation of the turbulent atmospheric phase, radians; finite, >= 0.
    double atmosphere_rad = 2.0;
    //! Coherence of land, in (0, 1]; 1 gives no decorrelation noise on land.
    double coherence = 0.9;
    //! A water body (coherence near 0, masked).
    bool water = true;
    //! A steep area whose true gradient exceeds half a cycle per pixel (aliased).
    bool steep = true;
    //! A vegetated patch where the coherence falls smoothly below that of bare land.
    bool vegetation = true;

    //! Throws std::invalid_argument naming the offending field.
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

/*!
 * \brief A synthetic interferogram with known unwrapped phase, for testing and
 * benchmarking phase unwrappers. Validates \p config first (std::invalid_argument).
 *
 * The truth (true_phase, float64, radians) is the sum of four fields, each exactly 0
 * when its amplitude is 0 or its feature is off:
 *
 * - Topography: ten axis-aligned Gaussian hills (centres anywhere over the image and a
 *   little beyond, widths 0.10 to 0.25 S, heights 0.4 to 1) and one ridge (a Gaussian
 *   across a seeded line, width 0.05 to 0.08 S, fading along it over 0.3 to 0.5 of the
 *   longer side); the relief is shifted and scaled so that its phase spans exactly
 *   [0, 2 pi topography_cycles] over the image.
 * - Deformation: the vertical surface displacement of a Mogi point source (Mogi 1958,
 *   Bull. Earthquake Res. Inst. 36, 99-134), u(r) proportional to (1 + r^2/d^2)^(-3/2)
 *   at horizontal distance r from the source of depth d (0.06 to 0.10 S), as a
 *   subsidence bowl: -2 pi deformation_cycles (1 + r^2/d^2)^(-3/2).
 * - Atmosphere: turbulent delay with the power-law spectrum P(k) ~ k^(-8/3) of
 *   Hanssen (2001, Radar Interferometry, Kluwer, ch. 4), built without an FFT as a sum
 *   of octaves: white Gaussian noise on lattices of spacing 2^j pixels (j from 2, as
 *   roughness finer than 4 pixels is the decorrelation noise's part, up to half the
 *   longer side), of standard deviation 2^(j/3) (an octave of a k^(-8/3)
 *   spectrum in two dimensions holds variance ~ k^(-2/3)), each spread into a smooth
 *   cubic B-spline surface by repeated 2x subdivision (Lane and Riesenfeld 1980, IEEE
 *   PAMI 2(1), 35-46); the sum is shifted to zero mean and scaled to the standard
 *   deviation atmosphere_rad over the image.
 * - Steep peak (steep): a narrow Gaussian peak of width sigma = 0.02 S (held to 3 to
 *   24 pixels) whose steepest slope, at r = sigma, is 2 pi per pixel whatever the
 *   image size: a ring around its summit (about 0.3 sigma < r < 1.9 sigma) aliases.
 *
 * The coherence map is the land's coherence, lowered in the vegetated patch
 * (vegetation): a Gaussian patch of width 0.08 to 0.12 S where the coherence is
 * coherence^(1 + 5.58 b), b the patch's bump (1 at its centre). This is temporal
 * decorrelation by random scatterer motion, gamma = exp(-(8 pi^2 / lambda^2) s^2)
 * (Zebker and Villasenor 1992, IEEE TGRS 30(5), 950-959), with the motion variance
 * s^2 of vegetation 6.58 times that of bare land: 0.5 at the centre for land at 0.9,
 * and 1 everywhere for land at 1. Water (water): a lake, an ellipse of semi-axes 0.08 to
 * 0.14 S and 0.05 to 0.10 S with a wavy shore, where mask = 0 and coherence = 0.05.
 * The lake, the bowl, the steep peak and the patch lie in different quadrants.
 *
 * Decorrelation noise: each pixel's phase noise is drawn exactly from the single-look
 * interferometric phase distribution of its coherence gamma (Just and Bamler 1994,
 * Applied Optics 33(20), 4361-4368): for circular complex Gaussian echoes z1 = s and
 * z2 = gamma s + sqrt(1 - gamma^2) n (s, n independent, unit power), the noise is
 * arg(z1 conj(z2)) = atan2(q rho sin c, gamma + q rho cos c) with q = sqrt(1 - gamma^2),
 * c = arg s - arg n uniform, and rho^2 = |n|^2 / |s|^2, the ratio of two unit
 * exponentials, drawn from its distribution function t / (1 + t) as u / (1 - u). For
 * gamma = 1 the noise is exactly 0.
 *
 * Outputs: wrapped = w = true_phase + noise reduced exactly to [-pi, pi) (IEEE
 * remainder by the double 2 pi) and rounded to the nearest float32 that lies in
 * [-pi, pi) (the float32 nearest to +-pi lies outside: w that would round to it gives
 * the largest float32 below pi in magnitude, with w's sign); with coherence 1 and no
 * water the noise is 0 and wrapped is exactly that rounding of the wrapped truth.
 * aliased = 1 at both pixels of every pair of 4-neighbours whose true phases differ by
 * more than pi (the unwrapping cannot recover them; water pixels included). The
 * smooth fields alone stay below pi per pixel for moderate amplitudes: with steep off,
 * the defaults (20 topographic cycles, a 5-cycle bowl, 2 rad of atmosphere) are
 * unaliased from 512 x 512 up (their steepest step at 512 x 512 is below 2.5 rad for
 * seeds 1 to 200; the smooth fields' steps shrink as the scene grows).
 *
 * Cost: 1.5 to 2 s for 4096 x 4096 on one core (x86-64, release build; the noise's
 * trigonometry dominates), with a peak of 0.6 GB of memory (the scene itself 0.3 GB).
 */
CUDADSP_CORE_API interferogram_scene
simulate_interferogram(const interferogram_scene_config& config);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_INTERFEROGRAM_SIMULATOR_H */
