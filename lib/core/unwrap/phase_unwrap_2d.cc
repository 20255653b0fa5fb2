/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "runtime/memory_budget.h"
#include "runtime/quoted_text.h"
#include "unwrap/phase_unwrap_2d_cpu.h"
#include "unwrap/phase_unwrap_2d_cuda.h"
#include "unwrap/phase_unwrap_2d_rule.h"
#include <gnuradio/cudadsp/core/phase_unwrap.h>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

unwrap_2d_method parse_unwrap_2d_method(const std::string& name,
                                        const std::string& parameter)
{
    if (name == "reliability")
        return unwrap_2d_method::reliability;
    if (name == "least_squares")
        return unwrap_2d_method::least_squares;
    if (name == "mcf")
        return unwrap_2d_method::mcf;
    throw std::invalid_argument(
        parameter + ": must be \"reliability\", \"least_squares\" or \"mcf\", got " +
        quoted_text(name));
}

std::string to_string(unwrap_2d_method method)
{
    switch (method) {
    case unwrap_2d_method::reliability:
        return "reliability";
    case unwrap_2d_method::least_squares:
        return "least_squares";
    case unwrap_2d_method::mcf:
        return "mcf";
    }
    return "unknown";
}

unwrap_2d_mcf_solver parse_unwrap_2d_mcf_solver(const std::string& name,
                                                const std::string& parameter)
{
    if (name == "shortest_paths")
        return unwrap_2d_mcf_solver::shortest_paths;
    if (name == "network_simplex")
        return unwrap_2d_mcf_solver::network_simplex;
    throw std::invalid_argument(parameter +
                                ": must be \"shortest_paths\" or \"network_simplex\", "
                                "got " +
                                quoted_text(name));
}

std::string to_string(unwrap_2d_mcf_solver solver)
{
    switch (solver) {
    case unwrap_2d_mcf_solver::shortest_paths:
        return "shortest_paths";
    case unwrap_2d_mcf_solver::network_simplex:
        return "network_simplex";
    }
    return "unknown";
}

void phase_unwrap_2d_config::validate() const
{
    if (width < 1 || height < 1)
        throw std::invalid_argument(
            "width, height: a frame needs at least one pixel, got " +
            std::to_string(width) + " x " + std::to_string(height));
    if (width > max_unwrap_2d_pixels || height > max_unwrap_2d_pixels ||
        width * height > max_unwrap_2d_pixels)
        throw std::invalid_argument(
            "width, height: a frame may have at most 2^30 pixels, got " +
            std::to_string(width) + " x " + std::to_string(height));
    if (method != unwrap_2d_method::reliability &&
        method != unwrap_2d_method::least_squares && method != unwrap_2d_method::mcf)
        throw std::invalid_argument("method: not a known unwrapping method");
    if (mcf_solver != unwrap_2d_mcf_solver::shortest_paths &&
        mcf_solver != unwrap_2d_mcf_solver::network_simplex)
        throw std::invalid_argument("mcf_solver: not a known minimum-cost-flow solver");
    validate_phase_period(period);
    if (method != unwrap_2d_method::reliability && (wrap_around_x || wrap_around_y))
        throw std::invalid_argument(
            std::string(wrap_around_x ? "wrap_around_x" : "wrap_around_y") +
            ": only the reliability method joins opposite edges");
    // With fewer than three columns (rows) a pixel's left and right neighbours would be
    // one pixel, and an edge would be counted twice.
    if (wrap_around_x && width < 3)
        throw std::invalid_argument("wrap_around_x: needs width >= 3, got " +
                                    std::to_string(width));
    if (wrap_around_y && height < 3)
        throw std::invalid_argument("wrap_around_y: needs height >= 3, got " +
                                    std::to_string(height));
    if (gradient_window < 1 || gradient_window > 15 || gradient_window % 2 == 0)
        throw std::invalid_argument("gradient_window: must be odd, from 1 to 15, got " +
                                    std::to_string(gradient_window));
    if (max_iterations < 1 || max_iterations > 100000)
        throw std::invalid_argument("max_iterations: must be in [1, 100000], got " +
                                    std::to_string(max_iterations));
    if (looks < 1 || looks > 1000)
        throw std::invalid_argument("looks: must be in [1, 1000], got " +
                                    std::to_string(looks));
    if (!std::isfinite(tolerance) || !(tolerance > 0.0) || !(tolerance < 1.0))
        throw std::invalid_argument("tolerance: must be in (0, 1), got " +
                                    std::to_string(tolerance));
    if (tile_size != 0 && (tile_size < 64 || tile_size > (std::size_t(1) << 15)))
        throw std::invalid_argument(
            "tile_size: must be 0 (automatic) or from 64 to 32768, got " +
            std::to_string(tile_size));
    // At most half a tile, so that no pixel lies in more than two tiles along a side
    // and every tile keeps pixels of its own.
    const std::size_t tile = tile_size != 0 ? tile_size : mcf_automatic_tile_size;
    if (tile_overlap < 16 || tile_overlap > tile / 2)
        throw std::invalid_argument("tile_overlap: must be from 16 to tile_size / 2 (" +
                                    std::to_string(tile / 2) + "), got " +
                                    std::to_string(tile_overlap));
}

std::size_t phase_unwrap_2d_config::mcf_tile_size() const
{
    if (tile_size != 0)
        return tile_size;
    const std::size_t side = std::max(width, height);
    if (side <= mcf_automatic_tile_size)
        return side;
    // As many tiles along the longer side as mcf_automatic_tile_size pixels fill, each
    // as long as they need to be to share tile_overlap: the fewest pixels solved twice.
    const std::size_t tiles =
        (side + mcf_automatic_tile_size - 1) / mcf_automatic_tile_size;
    return (side + (tiles - 1) * tile_overlap + tiles - 1) / tiles;
}

phase_unwrapper_2d::phase_unwrapper_2d(const phase_unwrap_2d_config& config,
                                       const device_selection& device)
    : d_config(config), d_device(device)
{
}

phase_unwrapper_2d::~phase_unwrapper_2d() = default;

void phase_unwrapper_2d::check_buffers(const unwrap_2d_buffers& buffers) const
{
    if (buffers.wrapped == nullptr)
        throw std::invalid_argument("wrapped: the input buffer is required");
    if (buffers.unwrapped == nullptr)
        throw std::invalid_argument("unwrapped: the output buffer is required");
    if (buffers.components != nullptr &&
        d_config.method == unwrap_2d_method::least_squares)
        throw std::invalid_argument("components: only the reliability and MCF methods "
                                    "give connected components");
}

unwrap_2d_report phase_unwrapper_2d::unwrap(const unwrap_2d_buffers& host)
{
    check_buffers(host);
    return unwrap_host(host);
}

unwrap_2d_report phase_unwrapper_2d::unwrap_device(const unwrap_2d_buffers& device,
                                                   cuda_stream_t stream)
{
    if (d_device.backend != backend_kind::cuda)
        throw std::logic_error("unwrap_device: the CPU backend has no device buffers");
    check_buffers(device);
    return unwrap_on_device(device, stream);
}

std::unique_ptr<phase_unwrapper_2d>
phase_unwrapper_2d::make(const phase_unwrap_2d_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    const bool cuda = device.backend == backend_kind::cuda;
    // Before any workspace exists: a frame too large ends here with a message instead
    // of std::bad_alloc inside a constructor or the kernel's out-of-memory killer.
    require_memory(cuda ? phase_unwrapper_2d_cuda::memory_needed(config)
                        : phase_unwrapper_2d_cpu::memory_needed(config),
                   device,
                   "phase_unwrapper_2d: a " + std::to_string(config.width) + " x " +
                       std::to_string(config.height) + " frame (" +
                       std::to_string(config.pixels()) + " pixels, " +
                       to_string(config.method) + " method, " + device.to_string() + ")");
    if (cuda)
        return std::make_unique<phase_unwrapper_2d_cuda>(config, device);
    return std::make_unique<phase_unwrapper_2d_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
