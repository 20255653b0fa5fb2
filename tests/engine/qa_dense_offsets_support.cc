/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_dense_offsets: the speckle image pairs, the engine runs and the
// configurations its cases share (declared in qa_dense_offsets.h).

#include "qa_dense_offsets.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

image_pair speckle_pair(int n,
                        double band,
                        double d_down,
                        double d_across,
                        double g_down,
                        double g_across,
                        double scale,
                        bool quantise,
                        std::uint64_t seed,
                        double ramp_down,
                        double ramp_across)
{
    gaussian_source rng(seed);
    const int kmax = int(band * n / 2);
    std::vector<int> ks;
    for (int k = -kmax; k <= kmax; ++k)
        ks.push_back(k);
    const int K = int(ks.size());
    grid2<cdouble> S(K, K);
    for (auto& s : S.v)
        s = rng.complex_normal();
    const double norm = scale / std::sqrt(double(K) * K);
    image_pair p;
    p.rows = p.cols = n;
    p.ref = grid2<cdouble>(n, n);
    p.sec = grid2<cdouble>(n, n);
    for (int img = 0; img < 2; ++img) {
        grid2<cdouble>& out = img == 0 ? p.ref : p.sec;
        for (int col = 0; col < n; ++col) {
            const double dd = img ? d_down + g_down * (col - n / 2) : 0.0;
            const double da = img ? d_across + g_across * (col - n / 2) : 0.0;
            const double t1 = col - da;
            std::vector<cdouble> G(K);
            for (int u = 0; u < K; ++u) {
                cdouble s = 0.0;
                for (int t = 0; t < K; ++t)
                    s += S(u, t) * std::polar(1.0, 2 * pi * ks[t] * t1 / n);
                G[u] = s;
            }
            for (int row = 0; row < n; ++row) {
                const double t0 = row - dd;
                cdouble s = 0.0;
                for (int u = 0; u < K; ++u)
                    s += G[u] * std::polar(1.0, 2 * pi * ks[u] * t0 / n);
                // A phase ramp of the scene (moves with it), for the deramp.
                out(row, col) =
                    norm * s * std::polar(1.0, ramp_down * t0 + ramp_across * t1);
            }
        }
    }
    p.finish(quantise);
    return p;
}

offset_result poison_result()
{
    const float x = poison_nan();
    return { x, x, x, x, x, x, x };
}

std::vector<offset_result> run(dense_offsets_estimator& e,
                               const image_pair& p,
                               const std::vector<offset_window>& windows,
                               slc_sample_type type)
{
    std::vector<offset_result> out(windows.size(), poison_result());
    e.estimate(p.view(false, type),
               p.view(true, type),
               windows.data(),
               windows.size(),
               out.data());
    for (std::size_t i = 0; i < out.size(); ++i) {
        const float* f = &out[i].offset_down;
        for (int k = 0; k < 7; ++k)
            if (poisoned(f[k]))
                CPPUNIT_FAIL("window " + std::to_string(i) + ": result field " +
                             std::to_string(k) + " never written");
    }
    return out;
}

std::vector<offset_window>
grid_windows(int start, int skip, int nd, int na, int gross_d, int gross_a)
{
    offset_grid g;
    g.start_down = g.start_across = start;
    g.skip_down = g.skip_across = skip;
    g.number_down = nd;
    g.number_across = na;
    return make_offset_windows(g, { gross_d }, { gross_a });
}

bool close_rel(double a, double b, double rel)
{
    return std::fabs(a - b) <= rel * std::max(std::fabs(b), 1e-6);
}

dense_offsets_config make_config(const std::string& device,
                                 int h,
                                 int w,
                                 int half_search,
                                 int r,
                                 int q,
                                 int zoom,
                                 int stat)
{
    dense_offsets_config c;
    c.window_height = h;
    c.window_width = w;
    c.half_search_down = c.half_search_across = half_search;
    c.raw_oversampling = r;
    c.corr_oversampling = q;
    c.zoom_window = zoom;
    c.corr_stat_window = stat;
    c.deramp = deramp_method::average;
    c.device = device;
    return c;
}

dense_offsets_config small_config(const std::string& device)
{
    return make_config(device, 24, 32, 6, 2, 16, 8, 9);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
