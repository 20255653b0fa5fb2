/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unwrap/phase_unwrap_cpu.h"
#include <cmath>
#include <limits>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

phase_unwrapper_cpu::phase_unwrapper_cpu(const phase_unwrap_config& config,
                                         const device_selection& device)
    : phase_unwrapper(config, device), d_period(make_unwrap_period(config.period))
{
}

std::size_t phase_unwrapper_cpu::unwrap_run(const float* in,
                                            float* out,
                                            std::size_t n,
                                            carried_state& state,
                                            const unwrap_period& p)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    double offset = wrap_offset(state.wraps, p);
    std::size_t out_of_range = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float x = in[i];
        if (!is_phase_sample(x, p)) {
            out_of_range += std::isfinite(x) ? 1 : 0;
            out[i] = nan;
            continue;
        }
        if (state.has_finite) {
            const std::int32_t k = unwrap_step(state.last_finite, x, p);
            if (k != 0) {
                state.wraps += k;
                offset = wrap_offset(state.wraps, p);
            }
        }
        state.last_finite = x;
        state.has_finite = true;
        out[i] = unwrapped_value(x, offset);
    }
    return out_of_range;
}

void phase_unwrapper_cpu::unwrap(const float* in, float* out, std::size_t n)
{
    check_whole_vectors(n);
    const std::size_t vlen = d_config.vlen;
    if (vlen == 1) {
        d_out_of_range += unwrap_run(in, out, n, d_state, d_period);
        return;
    }
    for (std::size_t offset = 0; offset < n; offset += vlen) {
        carried_state fresh;
        d_out_of_range += unwrap_run(in + offset, out + offset, vlen, fresh, d_period);
    }
}

void phase_unwrapper_cpu::unwrap_device(const float*, float*, std::size_t, cuda_stream_t)
{
    throw std::logic_error("phase_unwrapper: unwrap_device needs the CUDA backend; this "
                           "engine runs on the CPU");
}

void phase_unwrapper_cpu::reset() { d_state = carried_state(); }

void phase_unwrapper_cpu::period_changed()
{
    d_period = make_unwrap_period(d_config.period);
    reset();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
