/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/cross_correlator_cpu.h"
#include "cross_correlation/cross_correlator_cuda.h"
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

// Bounds that keep every index and every exact phase reduction of the peak rule
// (cross_correlation_peak_rule.h) within 64-bit integers, and the element count of a
// batch's cuFFT plan (2 batch_frames transforms of L) within 31 bits.
constexpr std::size_t max_fft_len = std::size_t(1) << 24;
constexpr std::size_t max_interp = std::size_t(1) << 16;
constexpr std::size_t max_batch_elements = std::size_t(1) << 29;

} // namespace

void cross_correlator_config::validate() const
{
    if (fft_len < 2 || fft_len > max_fft_len)
        throw std::invalid_argument("fft_len: must be 2 .. " +
                                    std::to_string(max_fft_len) + ", got " +
                                    std::to_string(fft_len));
    if (interp < 1 || interp > max_interp)
        throw std::invalid_argument("interp: must be 1 .. " + std::to_string(max_interp) +
                                    ", got " + std::to_string(interp));
    if (max_lag > fft_len - 1)
        throw std::invalid_argument(
            "max_lag: must be 1 .. fft_len - 1 = " + std::to_string(fft_len - 1) +
            ", or 0 for fft_len - 1; got " + std::to_string(max_lag));
    if (batch_frames > max_batch_elements / transform_len())
        throw std::invalid_argument("batch_frames: must be 0 (automatic) .. " +
                                    std::to_string(max_batch_elements / transform_len()) +
                                    " (2^29 / transform_len) for fft_len " +
                                    std::to_string(fft_len) + ", got " +
                                    std::to_string(batch_frames));
}

std::size_t cross_correlator_config::transform_len() const
{
    std::size_t length = 1;
    while (length < 2 * fft_len)
        length *= 2;
    return length;
}

cross_correlator::cross_correlator(const cross_correlator_config& config,
                                   const device_selection& device)
    : d_config(config), d_device(device)
{
}

cross_correlator::~cross_correlator() = default;

std::unique_ptr<cross_correlator>
cross_correlator::make(const cross_correlator_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<cross_correlator_cuda>(config, device);
    return std::make_unique<cross_correlator_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
