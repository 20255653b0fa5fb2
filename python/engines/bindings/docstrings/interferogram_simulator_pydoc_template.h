/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of the synthetic-interferogram generator (written
  by hand; used as the docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_core_interferogram_scene = R"doc(A synthetic interferogram with its truth, from simulate_interferogram().

Attributes (read-only NumPy arrays of shape (height, width), views that keep the scene
alive; copy one to change it):
    true_phase (float64): the unwrapped truth, radians.
    wrapped (float32): truth plus decorrelation noise, wrapped to [-pi, pi).
    coherence (float32): the coherence each pixel's noise was drawn with.
    mask (bool): True on land, False on water.
    aliased (bool): True where the truth differs by more than pi from a 4-neighbour
        (no unwrapper can recover it there).
    width, height (int).)doc";


static const char* __doc_gr_cudadsp_core_simulate_interferogram = R"doc(A synthetic interferogram with known unwrapped phase, from seeded draws that are the same on every platform.

The truth is the sum of a topography (Gaussian hills and a ridge spanning exactly
topography_cycles peak to peak), a subsidence bowl (a Mogi point source,
deformation_cycles deep), a turbulent atmosphere (a k^(-8/3) power-law spectrum after
Hanssen 2001, standard deviation atmosphere_rad) and, with steep, a narrow peak whose
steepest slope is 2 pi per pixel (a ring of aliased pixels). Each pixel's phase noise
is drawn exactly from the single-look interferometric phase distribution of its
coherence: coherence on land, lowered to about 0.5 at the centre of a vegetated patch
for land at 0.9 (vegetation), and 0.05 on a lake (water), where mask is False.
coherence=1, water=False gives a noise-free wrapped phase: wrapped is the truth wrapped
to [-pi, pi) and rounded to float32. With steep=False the defaults are unaliased from
512 x 512 up. The full model and its sources are in the C++ header
gnuradio/cudadsp/core/interferogram_simulator.h.

Args:
    width, height: image size in pixels, each >= 2, at most 2^30 pixels in all.
    seed: seed of every random draw (placement, relief, atmosphere, noise).
    topography_cycles: peak-to-peak topographic phase, cycles (>= 0).
    deformation_cycles: depth of the deformation bowl, cycles (>= 0).
    atmosphere_rad: standard deviation of the atmospheric phase, radians (>= 0).
    coherence: coherence of land, in (0, 1]; 1 gives no noise on land.
    water: a lake (masked, coherence 0.05).
    steep: the steep, aliasing peak.
    vegetation: a vegetated patch of lower coherence.

Returns:
    interferogram_scene with true_phase, wrapped, coherence, mask and aliased.

Raises:
    ValueError: naming the argument out of range.)doc";
