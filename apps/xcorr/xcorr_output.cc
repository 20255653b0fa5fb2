/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "xcorr_output.h"
#include <cstdio>

namespace gr {
namespace cudadsp {
namespace xcorr {

std::string format_line(int x, float dx, int y, float dy, float corr)
{
    char line[160];
    const int n = std::snprintf(line,
                                sizeof line,
                                " %d %6.3f %d %6.3f %6.2f \n",
                                x,
                                static_cast<double>(dx),
                                y,
                                static_cast<double>(dy),
                                static_cast<double>(corr));
    if (n < 0 || static_cast<std::size_t>(n) >= sizeof line) {
        // Only absurd magnitudes get here; print them in full all the same.
        std::string big(static_cast<std::size_t>(n > 0 ? n : 0) + 1, '\0');
        std::snprintf(&big[0],
                      big.size(),
                      " %d %6.3f %d %6.3f %6.2f \n",
                      x,
                      static_cast<double>(dx),
                      y,
                      static_cast<double>(dy),
                      static_cast<double>(corr));
        big.resize(big.size() - 1);
        return big;
    }
    return std::string(line, static_cast<std::size_t>(n));
}

patch_offset combine(const core::patch_result& r,
                     int range_interp,
                     int rshift,
                     int ashift,
                     int stretch_shift)
{
    return { core::patch_offset_dx(r, range_interp, rshift),
             core::patch_offset_dy(r, ashift, stretch_shift),
             r.corr };
}

std::string format_results(const xcorr_grid& grid,
                           const std::vector<core::patch_result>& results,
                           int range_interp,
                           int rshift,
                           int ashift,
                           double stretch)
{
    std::string out;
    out.reserve(grid.locations.size() * 40);
    for (std::size_t k = 0; k < grid.locations.size(); ++k) {
        const auto& l = grid.locations[k];
        const patch_offset o = combine(results[k],
                                       range_interp,
                                       rshift,
                                       ashift,
                                       core::gmtsar_stretch_shift(l.y, stretch));
        out += format_line(l.x, o.dx, l.y, o.dy, o.corr);
    }
    return out;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
