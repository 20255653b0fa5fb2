/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "prm_file.h"
#include "xcorr_grid.h"
#include <string>

namespace gr {
namespace cudadsp {
namespace xcorr {

xcorr_grid make_grid(const grid_config& c)
{
    if (c.nx < 1)
        throw input_error("-nx " + std::to_string(c.nx) + ": must be at least 1");
    if (c.ny < 1)
        throw input_error("-ny " + std::to_string(c.ny) + ": must be at least 1");
    // GMTSAR: x_inc = (m_nx - 2*(xsearch + nx_corr))/(nxl + 3), nx_corr = 2*xsearch.
    const std::int64_t x_inc =
        (c.width - 2 * (std::int64_t(c.xsearch) + 2 * std::int64_t(c.xsearch))) /
        (std::int64_t(c.nx) + 3);
    const std::int64_t y_inc =
        (c.height - 2 * (std::int64_t(c.ysearch) + 2 * std::int64_t(c.ysearch))) /
        (std::int64_t(c.ny) + 1);
    if (x_inc < 1)
        throw input_error(
            "the master SLC is too narrow for the grid: " + std::to_string(c.width) +
            " columns give x_inc = (width - 6*xsearch)/(nx + 3) = (" +
            std::to_string(c.width) + " - " + std::to_string(6 * c.xsearch) + ")/" +
            std::to_string(std::int64_t(c.nx) + 3) + " = " + std::to_string(x_inc) +
            "; it needs at least " +
            std::to_string(6 * std::int64_t(c.xsearch) + c.nx + 3) +
            " columns (reduce -nx or -xsearch)");
    if (y_inc < 1)
        throw input_error(
            "the master SLC is too short for the grid: " + std::to_string(c.height) +
            " rows give y_inc = (height - 6*ysearch)/(ny + 1) = (" +
            std::to_string(c.height) + " - " + std::to_string(6 * c.ysearch) + ")/" +
            std::to_string(std::int64_t(c.ny) + 1) + " = " + std::to_string(y_inc) +
            "; it needs at least " +
            std::to_string(6 * std::int64_t(c.ysearch) + c.ny + 1) +
            " rows (reduce -ny or -ysearch)");
    const std::int64_t last_x =
        4 * std::int64_t(c.xsearch) + (std::int64_t(c.nx) + 1) * x_inc;
    const std::int64_t last_y = 4 * std::int64_t(c.ysearch) + std::int64_t(c.ny) * y_inc;
    if (last_x > 0x7fffffff || last_y > 0x7fffffff)
        throw input_error("the image is too large: patch centres exceed 32 bits");

    xcorr_grid g;
    g.x_inc = static_cast<int>(x_inc);
    g.y_inc = static_cast<int>(y_inc);
    g.locations.reserve(static_cast<std::size_t>(c.nx) * c.ny);
    for (int j = 1; j <= c.ny; ++j)
        for (int i = 2; i <= c.nx + 1; ++i)
            g.locations.push_back({ 4 * c.xsearch + i * g.x_inc,
                                    4 * c.ysearch + j * g.y_inc,
                                    j - 1,
                                    i - 2 });
    return g;
}

std::vector<core::patch_pair> make_pairs(const xcorr_grid& grid,
                                         int xsearch,
                                         int ysearch,
                                         int rshift,
                                         int ashift,
                                         double stretch)
{
    std::vector<core::patch_pair> pairs;
    pairs.reserve(grid.locations.size());
    for (const auto& l : grid.locations)
        pairs.push_back(
            core::gmtsar_patch_pair(l.x, l.y, xsearch, ysearch, rshift, ashift, stretch));
    return pairs;
}

namespace {

// "" when [start, start + size) lies in [0, limit), else by how much it does not.
std::string overrun(std::int64_t start,
                    std::int64_t size,
                    std::int64_t limit,
                    const char* units,
                    const char* first_side,
                    const char* last_side)
{
    if (start < 0)
        return std::to_string(-start) + " " + units + " " + first_side;
    if (start + size > limit)
        return std::to_string(start + size - limit) + " " + units + " " + last_side;
    return "";
}

void check_window(const std::string& patch,
                  const char* image,
                  std::int64_t col,
                  std::int64_t row,
                  std::int64_t npx,
                  std::int64_t npy,
                  std::int64_t width,
                  std::int64_t height,
                  const char* hint)
{
    std::string why =
        overrun(row, npy, height, "rows", "above row 0", "below the last row");
    const std::string cols = overrun(
        col, npx, width, "columns", "left of column 0", "right of the last column");
    if (why.empty())
        why = cols;
    else if (!cols.empty())
        why += ", " + cols;
    if (why.empty())
        return;
    throw input_error(patch + ": the " + image + " window (rows " + std::to_string(row) +
                      ".." + std::to_string(row + npy - 1) + ", columns " +
                      std::to_string(col) + ".." + std::to_string(col + npx - 1) +
                      ") leaves the " + image + " SLC (" + std::to_string(height) +
                      " rows x " + std::to_string(width) + " columns) by " + why + hint);
}

} // namespace

void check_pairs_inside(const xcorr_grid& grid,
                        const std::vector<core::patch_pair>& pairs,
                        int xsearch,
                        int ysearch,
                        std::int64_t master_width,
                        std::int64_t master_height,
                        std::int64_t aligned_width,
                        std::int64_t aligned_height)
{
    const std::int64_t npx = 4 * std::int64_t(xsearch);
    const std::int64_t npy = 4 * std::int64_t(ysearch);
    for (std::size_t k = 0; k < pairs.size(); ++k) {
        const auto& p = pairs[k];
        const auto& l = grid.locations[k];
        const std::string patch =
            "patch " + std::to_string(k + 1) + " (strip " + std::to_string(l.strip + 1) +
            ", x " + std::to_string(l.x) + ", y " + std::to_string(l.y) + ")";
        check_window(patch,
                     "master",
                     p.master_col,
                     p.master_row,
                     npx,
                     npy,
                     master_width,
                     master_height,
                     "");
        check_window(patch,
                     "aligned",
                     p.aligned_col,
                     p.aligned_row,
                     npx,
                     npy,
                     aligned_width,
                     aligned_height,
                     " (rshift, ashift and the PRF stretch place it; reduce the search "
                     "sizes or the grid, or check the shifts)");
    }
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
