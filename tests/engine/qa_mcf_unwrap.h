/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_QA_MCF_UNWRAP_H
#define INCLUDED_CUDADSP_QA_MCF_UNWRAP_H

// What the fixtures of qa_mcf_unwrap (qa_mcf_unwrap.cc: the method; qa_mcf_solvers.cc:
// its two minimum-cost-flow solvers) share, defined in qa_mcf_unwrap_support.cc.

#include "qa_support.h"
#include "qa_unwrap_2d_reference.h"
#include <gnuradio/cudadsp/core/interferogram_simulator.h>
#include <gnuradio/cudadsp/core/phase_unwrap_2d.h>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

const double two_pi = 6.283185307179586476925286766559;
//! A K and a component no test field can have, to catch elements never written.
constexpr std::int32_t poison_integer = 0x7fffffff;

using frame = qa::unwrap_2d_frame;
using outputs = qa::unwrap_2d_outputs;

//! \p tile_size 0: the automatic choice, which solves frames up to 512 x 512 whole.
std::unique_ptr<phase_unwrapper_2d> make_engine(const std::string& device,
                                                const frame& f,
                                                unwrap_2d_method method,
                                                std::size_t tile_size = 0,
                                                std::size_t tile_overlap = 128);

//! A single-look simulated scene (steep peak off) as a frame, and its judged pixels:
//! valid and not aliased.
frame scene_frame(const interferogram_scene& scene, std::vector<std::uint8_t>& judged);

//! One frame, every output poisoned first (components only where the method has them).
outputs run(phase_unwrapper_2d& engine, const frame& f, bool in_place = false);

/*! Invalid pixels: NaN, K 0, component 0; valid ones: wrapped + P K as documented, a
 *  component >= 1, and K = 0 at each component's first pixel in row-major order. */
void check_outputs_consistent(const outputs& o, const frame& f, const std::string& what);

/*!
 * Fraction of the pixels where \p judged is nonzero whose unwrapped value lies within
 * half a period of \p truth, after removing from each component (or, without
 * components, the whole frame) the whole number of periods that puts most of its
 * pixels right.
 */
double right_cycle_fraction(const outputs& o,
                            const std::vector<double>& truth,
                            const std::vector<std::uint8_t>& judged);

//! x reduced to [-pi, pi), rounded once to float32.
float wrap_phase(double x);

/*! A smooth field in radians: a plane, a Gaussian hill of 10 periods and a saddle;
 *  its steepest step between 4-neighbours is below a third of a period. */
std::vector<double> smooth_field(std::size_t width, std::size_t height);

frame frame_of(const std::vector<double>& truth, std::size_t width, std::size_t height);

struct solved_frame {
    outputs o;
    std::int64_t cost = 0;
};

/*! \p f unwrapped whole by mcf_unwrap_cpu with \p solver and \p looks, its row passes
 *  shared among at most \p row_workers workers, every output poisoned first. */
solved_frame solve_frame(const frame& f,
                         unwrap_2d_mcf_solver solver,
                         std::size_t looks = 1,
                         std::size_t row_workers = 1);

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_QA_MCF_UNWRAP_H */
