/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_UNWRAP_2D_DEVICE_H
#define INCLUDED_CUDADSP_QA_UNWRAP_2D_DEVICE_H

// Running a two-dimensional unwrapper on device buffers, as the CUDA cases of the
// unwrapper tests do.

#include "qa_unwrap_2d_reference.h"
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstdint>

namespace gr {
namespace cudadsp {
namespace qa {

/*!
 * One frame through engine.unwrap_device() on \p stream (null: the engine's own): the
 * inputs copied to device buffers (an empty weight or mask passed as none), every
 * output poisoned there first (unwrapped with poison_value, the cycles and components
 * with \p poison_integer), the outputs copied back. Components where the method has
 * them (not least squares).
 */
unwrap_2d_outputs run_unwrap_2d_on_device(core::phase_unwrapper_2d& engine,
                                          const unwrap_2d_frame& frame,
                                          core::cuda_stream_t stream,
                                          std::int32_t poison_integer);

} // namespace qa
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_UNWRAP_2D_DEVICE_H */
