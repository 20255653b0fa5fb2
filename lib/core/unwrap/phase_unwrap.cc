/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "unwrap/phase_unwrap_cpu.h"
#include "unwrap/phase_unwrap_cuda.h"
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

void validate_phase_period(double period)
{
    if (!(period >= min_phase_period && period <= max_phase_period)) {
        std::ostringstream text;
        text << "period: must be from " << min_phase_period << " to " << max_phase_period
             << " (a period float32 phases can resolve), got " << period;
        throw std::invalid_argument(text.str());
    }
}

void phase_unwrap_config::validate() const
{
    if (vlen < 1)
        throw std::invalid_argument("vlen: must be >= 1 (1 for a stream, else the vector "
                                    "length), got " +
                                    std::to_string(vlen));
    validate_phase_period(period);
    if (chunk_samples < 1)
        throw std::invalid_argument("chunk_samples: must be >= 1");
}

phase_unwrapper::phase_unwrapper(const phase_unwrap_config& config,
                                 const device_selection& device)
    : d_config(config), d_device(device)
{
}

phase_unwrapper::~phase_unwrapper() = default;

void phase_unwrapper::check_whole_vectors(std::size_t n) const
{
    if (d_config.vlen > 1 && n % d_config.vlen != 0)
        throw std::invalid_argument("n: " + std::to_string(n) +
                                    " samples is not a whole number of vectors of vlen " +
                                    std::to_string(d_config.vlen));
}

void phase_unwrapper::set_period(double period)
{
    phase_unwrap_config updated = d_config;
    updated.period = period;
    updated.validate();
    d_config = updated;
    period_changed();
}

std::unique_ptr<phase_unwrapper> phase_unwrapper::make(const phase_unwrap_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<phase_unwrapper_cuda>(config, device);
    return std::make_unique<phase_unwrapper_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
