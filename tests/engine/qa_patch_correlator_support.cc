/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// qa_patch_correlator: the synthetic patches and images, the configurations and
// the engine runs its cases share (declared in qa_patch_correlator.h).

#include "qa_patch_correlator.h"
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

patch_result poison_result()
{
    return { poison_int, poison_int, poison_nan(), poison_nan(), poison_nan() };
}

bool identical(const patch_result& a, const patch_result& b)
{
    return a.jpeak == b.jpeak && a.ipeak == b.ipeak && same_bits(a.xfrac, b.xfrac) &&
           same_bits(a.yfrac, b.yfrac) && same_bits(a.corr, b.corr);
}

std::string str(const patch_result& r)
{
    std::ostringstream s;
    s << "{jpeak " << r.jpeak << ", ipeak " << r.ipeak << ", xfrac " << r.xfrac
      << ", yfrac " << r.yfrac << ", corr " << r.corr << "}";
    return s.str();
}

void speckle_pair(long rows,
                  long cols,
                  double dy,
                  double dx,
                  double coh,
                  double scale,
                  gaussian_source& g,
                  std::vector<cdouble>& master,
                  std::vector<cdouble>& aligned)
{
    std::vector<cdouble> Z(rows * cols), N(rows * cols);
    auto freq = [](long k, long n) { return double(k < n / 2 ? k : k - n) / double(n); };
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c) {
            const double fy = freq(r, rows), fx = freq(c, cols);
            const bool in = std::fabs(fy) < 0.4 && std::fabs(fx) < 0.4;
            Z[r * cols + c] = in ? g.complex_normal() : 0.0;
            N[r * cols + c] = in ? g.complex_normal() : 0.0;
        }
    master = Z;
    fft2(master, rows, cols, true);
    aligned.assign(rows * cols, 0.0);
    for (long r = 0; r < rows; ++r)
        for (long c = 0; c < cols; ++c) {
            const double fy = freq(r, rows), fx = freq(c, cols);
            const cdouble shift = std::polar(1.0, -2.0 * pi * (fy * dy + fx * dx));
            aligned[r * cols + c] =
                (coh * Z[r * cols + c] +
                 std::sqrt(std::max(0.0, 1.0 - coh * coh)) * N[r * cols + c]) *
                shift;
        }
    fft2(aligned, rows, cols, true);
    double power = 0.0;
    for (const auto& v : master)
        power += std::norm(v);
    const double k = scale / std::sqrt(power / double(2 * master.size()));
    for (auto* img : { &master, &aligned })
        for (auto& v : *img)
            v = { std::round(v.real() * k), std::round(v.imag() * k) };
}

void add_shifted_patch(
    patch_set& s, double dy, double dx, double coh, gaussian_source& g, double scale)
{
    const long rows = pow2_at_least(2 * s.npy), cols = pow2_at_least(2 * s.npx);
    std::vector<cdouble> m, a;
    speckle_pair(rows, cols, dy, dx, coh, scale, g, m, a);
    const std::size_t k = s.add();
    s.truth_dx[k] = dx;
    s.truth_dy[k] = dy;
    const long r0 = (rows - s.npy) / 2, c0 = (cols - s.npx) / 2;
    for (long r = 0; r < s.npy; ++r)
        for (long c = 0; c < s.npx; ++c) {
            const std::size_t i = k * s.npx * s.npy + r * s.npx + c;
            s.master[i] = cfloat(m[(r0 + r) * cols + c0 + c]);
            s.aligned[i] = cfloat(a[(r0 + r) * cols + c0 + c]);
        }
}

patch_correlator_config make_config(const std::string& device,
                                    int xs,
                                    int ys,
                                    int ri,
                                    int ifc,
                                    bool highres,
                                    std::size_t batch)
{
    patch_correlator_config c;
    c.xsearch = xs;
    c.ysearch = ys;
    c.range_interp = ri;
    c.interp = ifc;
    c.highres = highres;
    c.device = device;
    c.batch_patches = batch;
    return c;
}

std::string describe(const patch_correlator_config& c, const std::string& what)
{
    std::ostringstream s;
    s << c.device << " xs " << c.xsearch << " ys " << c.ysearch << " ri "
      << c.range_interp << " interp " << c.interp << (c.highres ? "" : " nointerp");
    if (c.batch_patches)
        s << " batch " << c.batch_patches;
    return s.str() + what;
}

void check_written(const std::vector<patch_result>& r, const std::string& what)
{
    for (std::size_t k = 0; k < r.size(); ++k) {
        const bool written = r[k].jpeak != poison_int && r[k].ipeak != poison_int &&
                             !poisoned(r[k].xfrac) && !poisoned(r[k].yfrac) &&
                             !poisoned(r[k].corr);
        CPPUNIT_ASSERT_MESSAGE(what + ": patch " + std::to_string(k) + " not written",
                               written);
    }
}

std::vector<patch_result>
run_engine(patch_correlator& e, const patch_set& s, const std::string& what)
{
    std::vector<patch_result> r(s.count(), poison_result());
    e.correlate_patches(s.master.data(), s.aligned.data(), s.count(), r.data());
    check_written(r, what);
    return r;
}

std::vector<patch_result> run_engine(const patch_correlator_config& c, const patch_set& s)
{
    auto e = patch_correlator::make(c);
    return run_engine(*e, s, describe(c));
}

patch_set
random_patches(const patch_correlator_config& c, std::size_t count, std::uint64_t seed)
{
    gaussian_source g(seed);
    patch_set s;
    s.npx = c.npx();
    s.npy = c.npy();
    const double max_dy = c.ysearch / 2.0, max_dx = c.xsearch / (2.0 * c.range_interp);
    for (std::size_t k = 0; k < count; ++k) {
        const double coh = k % 8 == 7 ? 1.0 : g.uniform(0.6, 0.95);
        add_shifted_patch(
            s, g.uniform(-max_dy, max_dy), g.uniform(-max_dx, max_dx), coh, g);
    }
    return s;
}

image_pair make_image_pair(const patch_correlator_config& c,
                           long W,
                           long H,
                           int nx,
                           int ny,
                           int rshift,
                           int ashift,
                           std::uint64_t seed)
{
    gaussian_source g(seed);
    image_pair p;
    p.W = W;
    p.H = H;
    std::vector<cdouble> m, a;
    speckle_pair(pow2_at_least(H),
                 pow2_at_least(W),
                 2.3 + ashift,
                 -1.4 + rshift,
                 0.9,
                 1500,
                 g,
                 m,
                 a);
    const long fw = pow2_at_least(W);
    p.master.resize(2 * W * H);
    p.aligned.resize(2 * W * H);
    for (long r = 0; r < H; ++r)
        for (long k = 0; k < W; ++k) {
            const cdouble vm = m[r * fw + k], va = a[r * fw + k];
            auto clip = [](double v) {
                return std::int16_t(std::max(-32767.0, std::min(32767.0, v)));
            };
            p.master[2 * (r * W + k)] = clip(vm.real());
            p.master[2 * (r * W + k) + 1] = clip(vm.imag());
            p.aligned[2 * (r * W + k)] = clip(va.real());
            p.aligned[2 * (r * W + k) + 1] = clip(va.imag());
        }
    const int npx = c.npx(), npy = c.npy();
    const long x_inc = (W - 2 * (c.xsearch + 2 * c.xsearch)) / (nx + 3);
    const long y_inc = (H - 2 * (c.ysearch + 2 * c.ysearch)) / (ny + 1);
    for (int j = 1; j <= ny; ++j)
        for (int i = 2; i <= nx + 1; ++i) {
            const long x = npx + i * x_inc, y = npy + j * y_inc;
            p.pairs.push_back(
                { x - npx / 2, y - npy / 2, x + rshift - npx / 2, y + ashift - npy / 2 });
        }
    return p;
}

} // namespace core
} // namespace cudadsp
} // namespace gr
