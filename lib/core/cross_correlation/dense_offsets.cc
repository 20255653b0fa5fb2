/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/dense_offsets_cpu.h"
#include "cross_correlation/dense_offsets_cuda.h"
#include "cross_correlation/dense_offsets_rule.h"
#include "cross_correlation/image_checks.h"
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int max_window = 4096;
constexpr int max_half_search = 1024;
constexpr int max_raw_oversampling = 16;
constexpr int max_corr_oversampling = 1024;
//! Largest side of the fine surface, q Z (a 4096^2 real surface, 64 MiB of float32).
constexpr int max_fine_side = 4096;

void check_range(const char* field, long long value, long long lo, long long hi)
{
    if (value < lo || value > hi)
        throw std::invalid_argument(std::string(field) + ": must be " +
                                    std::to_string(lo) + " .. " + std::to_string(hi) +
                                    ", got " + std::to_string(value));
}

} // namespace

int dense_offsets_config::effective_zoom_window() const
{
    return effective_zoom(
        zoom_window, raw_oversampling, half_search_down, half_search_across);
}

void dense_offsets_config::validate() const
{
    check_range("window_width", window_width, 2, max_window);
    check_range("window_height", window_height, 2, max_window);
    check_range("half_search_across", half_search_across, 1, max_half_search);
    check_range("half_search_down", half_search_down, 1, max_half_search);
    check_range("raw_oversampling", raw_oversampling, 1, max_raw_oversampling);
    check_range("corr_oversampling", corr_oversampling, 1, max_corr_oversampling);
    if (zoom_window < 2 * raw_oversampling)
        throw std::invalid_argument(
            "zoom_window: must be >= 2 raw_oversampling = " +
            std::to_string(2 * raw_oversampling) +
            " (a half zoom window of at least one raw pixel), got " +
            std::to_string(zoom_window));
    const long long fine =
        static_cast<long long>(corr_oversampling) * effective_zoom_window();
    if (fine > max_fine_side)
        throw std::invalid_argument(
            "zoom_window, corr_oversampling: the fine surface's side corr_oversampling x "
            "min(zoom_window, 2 raw_oversampling min(half searches)) = " +
            std::to_string(fine) + " exceeds " + std::to_string(max_fine_side));
    if (corr_stat_window < 3)
        throw std::invalid_argument("corr_stat_window: must be >= 3, got " +
                                    std::to_string(corr_stat_window));
    if (deramp != deramp_method::amplitude && deramp != deramp_method::average &&
        deramp != deramp_method::none)
        throw std::invalid_argument(
            "deramp: must be amplitude (0), average (1) or none (2), "
            "got " +
            std::to_string(static_cast<int>(deramp)));
    if (deramp_pairing != deramp_axes::isce3 && deramp_pairing != deramp_axes::isce2)
        throw std::invalid_argument(
            "deramp_pairing: must be isce3 (0) or isce2 (1), got " +
            std::to_string(static_cast<int>(deramp_pairing)));
    if (deramp_axis != deramp_direction::down &&
        deramp_axis != deramp_direction::across && deramp_axis != deramp_direction::both)
        throw std::invalid_argument(
            "deramp_axis: must be down (0), across (1) or both (2), got " +
            std::to_string(static_cast<int>(deramp_axis)));
    if (peak != peak_surface::oversampled && peak != peak_surface::raw)
        throw std::invalid_argument("peak: must be oversampled (0) or raw (1), got " +
                                    std::to_string(static_cast<int>(peak)));
}

void offset_grid::validate() const
{
    const long long big = 1LL << 40;
    check_range("start_down", start_down, 0, big);
    check_range("start_across", start_across, 0, big);
    check_range("skip_down", skip_down, 1, big);
    check_range("skip_across", skip_across, 1, big);
    check_range("number_down", number_down, 1, 1LL << 24);
    check_range("number_across", number_across, 1, 1LL << 24);
    if (number_down * number_across > (1LL << 31) - 1)
        throw std::invalid_argument(
            "number_down, number_across: more than 2^31 - 1 windows (" +
            std::to_string(number_down) + " x " + std::to_string(number_across) + ")");
}

std::vector<offset_window>
make_offset_windows(const offset_grid& grid,
                    const std::vector<std::int32_t>& gross_down,
                    const std::vector<std::int32_t>& gross_across)
{
    grid.validate();
    const std::size_t n = static_cast<std::size_t>(grid.number_down * grid.number_across);
    const struct {
        const char* name;
        const std::vector<std::int32_t>& values;
    } gross[] = { { "gross_offset_down", gross_down },
                  { "gross_offset_across", gross_across } };
    for (const auto& g : gross)
        if (g.values.size() != 1 && g.values.size() != n)
            throw std::invalid_argument(
                std::string("gross_offset: ") + g.name + " has " +
                std::to_string(g.values.size()) +
                " values; it must hold one (a constant) or one per window (number_down x "
                "number_across = " +
                std::to_string(grid.number_down) + " x " +
                std::to_string(grid.number_across) + " = " + std::to_string(n) +
                ", row-major)");
    std::vector<offset_window> windows(n);
    for (std::int64_t j = 0; j < grid.number_down; ++j)
        for (std::int64_t k = 0; k < grid.number_across; ++k) {
            const std::size_t i = static_cast<std::size_t>(j * grid.number_across + k);
            offset_window& w = windows[i];
            w.reference_down = grid.start_down + j * grid.skip_down;
            w.reference_across = grid.start_across + k * grid.skip_across;
            w.gross_down = gross_down.size() == 1 ? gross_down[0] : gross_down[i];
            w.gross_across = gross_across.size() == 1 ? gross_across[0] : gross_across[i];
        }
    return windows;
}

dense_offsets_estimator::dense_offsets_estimator(const dense_offsets_config& config,
                                                 const device_selection& device)
    : d_config(config), d_device(device)
{
}

dense_offsets_estimator::~dense_offsets_estimator() = default;

void dense_offsets_estimator::check_windows(const image_view& reference,
                                            const image_view& secondary,
                                            const offset_window* windows,
                                            std::size_t nwindows) const
{
    if (nwindows == 0)
        return;
    if (windows == nullptr)
        throw std::invalid_argument("windows: nullptr for " + std::to_string(nwindows) +
                                    " windows");
    check_image_view("reference", reference);
    check_image_view("secondary", secondary);
    const dense_offsets_config& c = d_config;
    for (std::size_t i = 0; i < nwindows; ++i) {
        const offset_window& win = windows[i];
        const struct {
            const char* name;
            const image_view& view;
            std::int64_t down, across;
            long long rows, cols;
            const char* cause;
        } parts[] = { { "reference",
                        reference,
                        win.reference_down,
                        win.reference_across,
                        c.window_height,
                        c.window_width,
                        "start, skip, number of windows, window size" },
                      { "secondary",
                        secondary,
                        win.reference_down + win.gross_down - c.half_search_down,
                        win.reference_across + win.gross_across - c.half_search_across,
                        c.search_height(),
                        c.search_width(),
                        "start, skip, number of windows, window size, half search range, "
                        "gross offset" } };
        for (const auto& p : parts) {
            const auto height = static_cast<long long>(p.view.height);
            const auto width = static_cast<long long>(p.view.width);
            const bool down_out = p.down < 0 || p.down + p.rows > height;
            const bool across_out = p.across < 0 || p.across + p.cols > width;
            if (down_out || across_out) {
                std::ostringstream msg;
                msg << "window " << i << ": the " << p.name << " window, rows [" << p.down
                    << ", " << p.down + p.rows << ") x columns [" << p.across << ", "
                    << p.across + p.cols << "), leaves the " << p.name << " image ("
                    << p.view.height << " rows x " << p.view.width << " columns, "
                    << sample_type_name(p.view.type) << ") "
                    << (down_out ? "down" : "across") << "; check " << p.cause;
                throw std::invalid_argument(msg.str());
            }
        }
    }
}

std::unique_ptr<dense_offsets_estimator>
dense_offsets_estimator::make(const dense_offsets_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<dense_offsets_cuda>(config, device);
    return std::make_unique<dense_offsets_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
