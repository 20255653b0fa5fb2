/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "pydoc_macros.h"
#define D(...) DOC(gr, cudadsp, __VA_ARGS__)
/*
  Docstrings for the Python bindings of phase_unwrap_ff (written by hand; used as the
  docstring header when Doxygen is not run).
 */


static const char* __doc_gr_cudadsp_phase_unwrap_ff = R"doc(Unwrap a wrapped phase: remove jumps of a multiple of the period.

Output = input + period * K, where the integer K changes whenever two consecutive
finite samples differ by more than period/2 (numpy.unwrap semantics; jumps of exactly
period/2 are kept). K is an exact 64-bit integer, so no error accumulates.

vlen == 1: one continuous stream, state carried across work() calls.
vlen > 1: every vector is unwrapped on its own.
NaN or Inf in gives NaN out at that sample only; so does a finite sample of 2^24
periods or more in magnitude (a glitch: see out_of_range_samples()).
Reset: any message on the "reset" port (applied at the next work() call), or a stream
tag "unwrap_reset" (applied exactly at the tagged sample).)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_phase_unwrap_ff = R"doc()doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_make = R"doc(Make a phase unwrapper.

Args:
    vlen: 1 for a stream, or the length of the vectors unwrapped one by one
        (1 to 536870911: an item of vlen floats must fit GNU Radio's int item size).
    period: period of the phase: 2*pi radians, 360 degrees, 1 cycle
        (1e-30 to 1e30: float32 samples resolve no phase of a period outside).
    device: "auto", "cpu", "cuda" or "cuda:N".
    batch_samples: most samples handed to the engine at once: the GPU batch and the
        latency the block adds (>= vlen).

Raises:
    ValueError: a parameter is out of range (the message names it).
    RuntimeError: CUDA was asked for but no such device exists.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_set_period = R"doc(Period for the samples that follow; restarts the unwrapping (like a reset).

Raises ValueError unless 1e-30 <= period <= 1e30.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_period = R"doc(The current period.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_reset = R"doc(Restart the unwrapping (K = 0) at the next sample processed.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_out_of_range_samples = R"doc(Finite input samples so far that were not phases.

A sample of magnitude 2^24 periods or more (where float32 values are more than a
period apart, so it cannot hold a phase: a glitch such as 3e38) gives NaN and is
skipped, as a NaN sample is. Counts since the block was made; resets keep it. Waits
for the GPU on the CUDA backend.)doc";


static const char* __doc_gr_cudadsp_phase_unwrap_ff_backend = R"doc(The backend in use: "cpu" or "cuda:N".)doc";
