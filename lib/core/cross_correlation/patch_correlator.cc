/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/image_checks.h"
#include "cross_correlation/patch_correlator_cpu.h"
#include "cross_correlation/patch_correlator_cuda.h"
#include <sstream>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr int max_search = 1024;
constexpr int max_range_interp = 16;
constexpr int max_interp = 64;
//! Bound on a batch's largest transform set: 2 batch_patches npy ri npx samples
//! (the batched range interpolation), so that cuFFT's element counts fit 31 bits.
constexpr long long max_batch_elements = (1LL << 31) - 1;

bool power_of_two(long long v) { return v > 0 && (v & (v - 1)) == 0; }

void check_power_of_two(const char* field, int value, int lo, int hi)
{
    if (!power_of_two(value) || value < lo || value > hi)
        throw std::invalid_argument(std::string(field) + ": must be a power of two, " +
                                    std::to_string(lo) + " .. " + std::to_string(hi) +
                                    ", got " + std::to_string(value));
}

} // namespace

void patch_correlator_config::validate() const
{
    check_power_of_two("xsearch", xsearch, 8, max_search);
    check_power_of_two("ysearch", ysearch, 8, max_search);
    check_power_of_two("range_interp", range_interp, 1, max_range_interp);
    check_power_of_two("interp", interp, 1, max_interp);
    const long long per_patch =
        2LL * npy() * static_cast<long long>(npx()) * range_interp;
    const long long largest = max_batch_elements / per_patch;
    if (largest < 1)
        throw std::invalid_argument(
            "xsearch, ysearch, range_interp: a patch's range interpolation (2 npy ri "
            "npx = " +
            std::to_string(per_patch) + " samples) exceeds 2^31 - 1");
    if (batch_patches > static_cast<std::size_t>(largest))
        throw std::invalid_argument("batch_patches: must be 0 (automatic) .. " +
                                    std::to_string(largest) +
                                    " (2^31 / (2 npy ri npx)) for this geometry, got " +
                                    std::to_string(batch_patches));
}

patch_correlator::patch_correlator(const patch_correlator_config& config,
                                   const device_selection& device)
    : d_config(config), d_device(device)
{
}

patch_correlator::~patch_correlator() = default;

void patch_correlator::check_pairs(const image_view& master,
                                   const image_view& aligned,
                                   const patch_pair* pairs,
                                   std::size_t npatches) const
{
    if (npatches == 0)
        return;
    if (pairs == nullptr)
        throw std::invalid_argument("pairs: nullptr for " + std::to_string(npatches) +
                                    " patches");
    check_image_view("master", master);
    check_image_view("aligned", aligned);
    const long long npx = d_config.npx();
    const long long npy = d_config.npy();
    for (std::size_t k = 0; k < npatches; ++k) {
        const patch_pair& p = pairs[k];
        const struct {
            const char* name;
            const image_view& view;
            std::int64_t col, row;
        } windows[] = { { "master", master, p.master_col, p.master_row },
                        { "aligned", aligned, p.aligned_col, p.aligned_row } };
        for (const auto& w : windows) {
            const auto width = static_cast<long long>(w.view.width);
            const auto height = static_cast<long long>(w.view.height);
            if (w.col < 0 || w.row < 0 || w.col > width - npx || w.row > height - npy) {
                std::ostringstream msg;
                msg << "patch " << k << ": the " << w.name << " window, rows [" << w.row
                    << ", " << w.row + npy << ") x columns [" << w.col << ", "
                    << w.col + npx << "), leaves the " << w.name << " image ("
                    << w.view.width << " x " << w.view.height << ", "
                    << sample_type_name(w.view.type) << ")";
                throw std::invalid_argument(msg.str());
            }
        }
    }
}

std::unique_ptr<patch_correlator>
patch_correlator::make(const patch_correlator_config& config)
{
    config.validate();
    const device_selection device = select_device(config.device, "device");
    if (device.backend == backend_kind::cuda)
        return std::make_unique<patch_correlator_cuda>(config, device);
    return std::make_unique<patch_correlator_cpu>(config, device);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
