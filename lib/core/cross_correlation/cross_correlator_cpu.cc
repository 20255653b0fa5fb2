/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/cross_correlation_peak_rule.h"
#include "cross_correlation/cross_correlator_cpu.h"
#include "runtime/fftw_support.h"
#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Interleaved recurrences of a fine-grid sum: independent chains vectorise.
constexpr int chains = 8;
//! One float64 per chain, in GCC / Clang vector extensions: element-wise arithmetic
//! that the compiler maps onto the target's SIMD width.
typedef double lanes __attribute__((vector_size(chains * sizeof(double))));
//! Recurrence steps between exact restarts of the twiddles (bounds their drift): steps
//! of a chain over the bin pairs, and powers over the fine-grid points.
constexpr long long restart_steps = 512;
//! Pairs of fine-grid points (j, -j) summed in one sweep over the bin pairs.
constexpr int pairs_per_pass = 8;
static_assert(restart_steps % pairs_per_pass == 0, "restarts fall between passes");
//! Least work (bins times fine-grid points) worth a thread of its own.
constexpr std::size_t min_work_per_thread = std::size_t(1) << 22;

} // namespace

struct cross_correlator_cpu::fftw_plans {
    explicit fftw_plans(std::size_t L)
    {
        const auto lock = fftw_planner_lock();
        // ESTIMATE plans do not touch the arrays; they only fix their alignment, which
        // fftwf_malloc gives every buffer the plans later run on.
        auto a = fftw_allocate<fftwf_complex>(L);
        auto c = fftw_allocate<fftwf_complex>(L);
        const int n = static_cast<int>(L);
        forward = fftwf_plan_dft_1d(n, a.get(), a.get(), FFTW_FORWARD, FFTW_ESTIMATE);
        inverse = fftwf_plan_dft_1d(
            n, a.get(), c.get(), FFTW_BACKWARD, FFTW_ESTIMATE | FFTW_PRESERVE_INPUT);
        if (forward == nullptr || inverse == nullptr) {
            destroy();
            throw std::runtime_error("cross_correlator: FFTW could not plan a " +
                                     std::to_string(L) + "-point transform");
        }
    }
    ~fftw_plans()
    {
        const auto lock = fftw_planner_lock();
        destroy();
    }
    void destroy()
    {
        if (forward)
            fftwf_destroy_plan(forward);
        if (inverse)
            fftwf_destroy_plan(inverse);
        forward = inverse = nullptr;
    }

    fftwf_plan forward = nullptr; //!< in place
    fftwf_plan inverse = nullptr; //!< out of place, input preserved
};

/*!
 * One worker's buffers: a holds the padded x, then X, then S = X conj(Y); b the padded
 * y, then Y; c the padded correlation L r. Per bin pair of the fine grid
 * (cross_correlation_peak_rule.h), padded to whole chains: U and V (u_re .. v_im),
 * e^{i beta_k} (e_re, e_im) and the current power e^{i j beta_k} (w_re, w_im); pads
 * have U = V = 0.
 */
struct cross_correlator_cpu::workspace {
    explicit workspace(std::size_t L)
        : a(fftw_allocate<fftwf_complex>(L)),
          b(fftw_allocate<fftwf_complex>(L)),
          c(fftw_allocate<fftwf_complex>(L)),
          pair_slots(
              (static_cast<std::size_t>(bin_pair_count(static_cast<long long>(L))) +
               chains - 1) /
              chains * chains),
          u_re(fftw_allocate<double>(pair_slots)),
          u_im(fftw_allocate<double>(pair_slots)),
          v_re(fftw_allocate<double>(pair_slots)),
          v_im(fftw_allocate<double>(pair_slots)),
          e_re(fftw_allocate<double>(pair_slots)),
          e_im(fftw_allocate<double>(pair_slots)),
          w_re(fftw_allocate<double>(pair_slots)),
          w_im(fftw_allocate<double>(pair_slots))
    {
    }
    fftw_array<fftwf_complex> a, b, c;
    std::size_t pair_slots;
    fftw_array<double> u_re, u_im, v_re, v_im, e_re, e_im, w_re, w_im;
};

namespace {

//! Copies one frame into the padded transform buffer; returns its energy (float64).
double
pad_frame(const std::complex<float>* in, std::size_t N, std::size_t L, fftwf_complex* out)
{
    std::memcpy(out, static_cast<const void*>(in), N * sizeof(fftwf_complex));
    std::memset(out + N, 0, (L - N) * sizeof(fftwf_complex));
    // Independent partial sums: one running sum would wait on every addition.
    const float* v = reinterpret_cast<const float*>(out);
    lanes partial = {};
    std::size_t i = 0;
    for (; i + chains <= 2 * N; i += chains)
        for (int c = 0; c < chains; ++c)
            partial[c] += static_cast<double>(v[i + c]) * v[i + c];
    double energy = 0.0;
    for (int c = 0; c < chains; ++c)
        energy += partial[c];
    for (; i < 2 * N; ++i)
        energy += static_cast<double>(v[i]) * v[i];
    return energy;
}

//! One value per chain from \p p, and back (no vector is passed by value: the ABI
//! of wide vectors depends on the target's extensions).
void load(lanes& v, const double* p) { std::memcpy(&v, p, sizeof(v)); }
void store(double* p, const lanes& v) { std::memcpy(p, &v, sizeof(v)); }

/*!
 * e^{2 pi i k (l0 I + j) / (I L)} for k = 0 .. slots - 1 (slots a multiple of chains)
 * into (re, im): chain c takes k = chains i + c, advances by e^{2 pi i chains ...} and
 * restarts from fine_twiddle() every restart_steps steps.
 */
void fill_twiddles(long long slots,
                   long long l0,
                   long long j,
                   const peak_grid& g,
                   double* re,
                   double* im)
{
    double step_re, step_im;
    fine_twiddle(chains, l0, j, g, step_re, step_im);
    const long long groups = slots / chains;
    for (long long first = 0; first < groups; first += restart_steps) {
        const long long end = std::min(groups, first + restart_steps);
        lanes w_re, w_im;
        for (int c = 0; c < chains; ++c)
            fine_twiddle(first * chains + c, l0, j, g, w_re[c], w_im[c]);
        for (long long i = first; i < end; ++i) {
            store(re + i * chains, w_re);
            store(im + i * chains, w_im);
            const lanes next_re = w_re * step_re - w_im * step_im;
            w_im = w_re * step_im + w_im * step_re;
            w_re = next_re;
        }
    }
}

/*!
 * The fine-grid search of one frame (cross_correlation_peak_rule.h) from its
 * cross-spectrum S (L bins, FFT order) and integer peak l0: U, V and e^{i beta_k} per
 * bin pair, then passes of pairs_per_pass point pairs (j, -j), each a sweep over the
 * bin pairs in chains, the powers e^{i j beta_k} advanced from pass to pass and
 * restarted from fine_twiddle() every restart_steps points.
 */
void fine_search(cross_correlator_cpu::workspace& ws,
                 const fftwf_complex* S,
                 long long l0,
                 const peak_grid& g,
                 fine_peak& fine)
{
    const long long L = g.transform_len;
    const long long pairs = bin_pair_count(L);
    const long long slots = static_cast<long long>(ws.pair_slots);
    const long long groups = slots / chains;
    double* const u_re = ws.u_re.get();
    double* const u_im = ws.u_im.get();
    double* const v_re = ws.v_re.get();
    double* const v_im = ws.v_im.get();
    double* const e_re = ws.e_re.get();
    double* const e_im = ws.e_im.get();
    double* const w_re = ws.w_re.get();
    double* const w_im = ws.w_im.get();

    // U, V from P, Q and e^{i alpha_k} (held in w for now).
    fill_twiddles(slots, l0, 0, g, w_re, w_im);
    for (long long k = 0; k < slots; ++k) {
        if (k >= pairs) {
            u_re[k] = u_im[k] = v_re[k] = v_im[k] = 0.0;
            continue;
        }
        const bool single = single_bin_pair(k, L);
        const fftwf_complex& a = S[k];
        const fftwf_complex& b = S[single ? k : L - k];
        double p_re, p_im, q_re, q_im;
        bin_pair(single, a[0], a[1], b[0], b[1], p_re, p_im, q_re, q_im);
        pair_rotation(
            p_re, p_im, q_re, q_im, w_re[k], w_im[k], u_re[k], u_im[k], v_re[k], v_im[k]);
    }
    fill_twiddles(slots, 0, 1, g, e_re, e_im);
    std::fill(w_re, w_re + slots, 1.0);
    std::fill(w_im, w_im + slots, 0.0);

    // j = 0: sum U.
    {
        lanes sum_re = {}, sum_im = {};
        for (long long i = 0; i < groups; ++i) {
            lanes ur, ui;
            load(ur, u_re + i * chains);
            load(ui, u_im + i * chains);
            sum_re += ur;
            sum_im += ui;
        }
        double re = 0.0, im = 0.0;
        for (int c = 0; c < chains; ++c) {
            re += sum_re[c];
            im += sum_im[c];
        }
        const double scale = 1.0 / static_cast<double>(L);
        add_fine_point(fine, 0, re * scale, im * scale);
    }

    for (int j0 = 0; j0 < g.interp; j0 += pairs_per_pass) {
        if (j0 > 0 && j0 % restart_steps == 0)
            fill_twiddles(slots, 0, j0, g, w_re, w_im);
        const int count = std::min(pairs_per_pass, g.interp - j0);
        // sum[p]: U cos(j beta) (re, im) and V sin(j beta) (re, im), j = j0 + 1 + p.
        lanes sum[pairs_per_pass][4] = {};
        for (long long i = 0; i < groups; ++i) {
            const long long at = i * chains;
            lanes ur, ui, vr, vi, er, ei, wr, wi;
            load(ur, u_re + at);
            load(ui, u_im + at);
            load(vr, v_re + at);
            load(vi, v_im + at);
            load(er, e_re + at);
            load(ei, e_im + at);
            load(wr, w_re + at);
            load(wi, w_im + at);
            for (int p = 0; p < count; ++p) {
                const lanes next_re = wr * er - wi * ei;
                wi = wr * ei + wi * er;
                wr = next_re;
                sum[p][0] += ur * wr;
                sum[p][1] += ui * wr;
                sum[p][2] += vr * wi;
                sum[p][3] += vi * wi;
            }
            store(w_re + at, wr);
            store(w_im + at, wi);
        }
        for (int p = 0; p < count; ++p) {
            double total[4] = {};
            for (int t = 0; t < 4; ++t)
                for (int c = 0; c < chains; ++c)
                    total[t] += sum[p][t][c];
            double plus_re, plus_im, minus_re, minus_im;
            fine_pair_points(total[0],
                             total[1],
                             total[2],
                             total[3],
                             g,
                             plus_re,
                             plus_im,
                             minus_re,
                             minus_im);
            const int j = j0 + 1 + p;
            add_fine_point(fine, j, plus_re, plus_im);
            add_fine_point(fine, -j, minus_re, minus_im);
        }
    }
}

void correlate_frame(const cross_correlator_cpu::fftw_plans& plans,
                     cross_correlator_cpu::workspace& ws,
                     const peak_grid& g,
                     std::size_t N,
                     const std::complex<float>* x,
                     const std::complex<float>* y,
                     cross_correlation_peak& peak,
                     std::complex<float>* spectrum,
                     std::complex<float>* correlation)
{
    const std::size_t L = static_cast<std::size_t>(g.transform_len);
    fftwf_complex* a = ws.a.get();
    fftwf_complex* b = ws.b.get();
    fftwf_complex* c = ws.c.get();

    const double energy_x = pad_frame(x, N, L, a);
    const double energy_y = pad_frame(y, N, L, b);
    fftwf_execute_dft(plans.forward, a, a);
    fftwf_execute_dft(plans.forward, b, b);
    for (std::size_t k = 0; k < L; ++k)
        cross_spectrum_bin(a[k][0], a[k][1], b[k][0], b[k][1], a[k][0], a[k][1]);
    fftwf_execute_dft(plans.inverse, a, c);
    if (spectrum)
        std::memcpy(static_cast<void*>(spectrum), a, L * sizeof(fftwf_complex));

    // Integer peak: lags in increasing order, so a strict > keeps the smallest lag of
    // a tie (peak_beats() with the positions in order).
    const long long M = g.max_lag;
    const float inverse_length = 1.0f / static_cast<float>(L); // a power of two: exact
    double best_key = no_peak_key;
    long long l0 = -M;
    for (long long lag = -M; lag <= M; ++lag) {
        const fftwf_complex& v = c[padded_index_of_lag(lag, g.transform_len)];
        if (correlation)
            correlation[lag + M] = { v[0] * inverse_length, v[1] * inverse_length };
        const double key = peak_key(v[0], v[1]);
        if (key > best_key) {
            best_key = key;
            l0 = lag;
        }
    }

    fine_peak fine;
    fine_search(ws, a, l0, g, fine);
    peak = finish_peak(fine, l0, energy_x, energy_y, g);
}

} // namespace

cross_correlator_cpu::cross_correlator_cpu(const cross_correlator_config& config,
                                           const device_selection& device)
    : cross_correlator(config, device),
      d_plans(std::make_unique<fftw_plans>(config.transform_len()))
{
}

cross_correlator_cpu::~cross_correlator_cpu() = default;

void cross_correlator_cpu::process(const std::complex<float>* x,
                                   const std::complex<float>* y,
                                   std::size_t nframes,
                                   cross_correlation_peak* peaks,
                                   std::complex<float>* spectrum,
                                   std::complex<float>* correlation)
{
    if (nframes == 0)
        return;
    const std::size_t N = d_config.fft_len;
    const std::size_t L = d_config.transform_len();
    const std::size_t correlation_len = d_config.correlation_len();
    const peak_grid grid = make_peak_grid(d_config);

    // Frames are independent: one contiguous share per core. Small calls stay on the
    // calling thread, where starting threads would cost more than it saves.
    // Work of a frame, in units of a multiply-add: the fine-grid sums (L / 2 bin pairs
    // times I point pairs) and about 16 L for the transforms and the rest.
    const std::size_t frame_work = L * ((d_config.interp + 1) / 2 + 16);
    const std::size_t max_workers = nframes * frame_work / min_work_per_thread;
    const std::size_t workers = parallel_workers(nframes, max_workers);
    while (d_workspaces.size() < workers)
        d_workspaces.push_back(std::make_unique<workspace>(L));

    parallel_ranges(nframes,
                    max_workers,
                    [&](std::size_t worker, std::size_t first, std::size_t end) {
                        workspace& ws = *d_workspaces[worker];
                        for (std::size_t f = first; f < end; ++f)
                            correlate_frame(*d_plans,
                                            ws,
                                            grid,
                                            N,
                                            x + f * N,
                                            y + f * N,
                                            peaks[f],
                                            spectrum ? spectrum + f * L : nullptr,
                                            correlation
                                                ? correlation + f * correlation_len
                                                : nullptr);
                    });
}

void cross_correlator_cpu::process_device(const std::complex<float>*,
                                          const std::complex<float>*,
                                          std::size_t,
                                          cross_correlation_peak*,
                                          std::complex<float>*,
                                          std::complex<float>*,
                                          cuda_stream_t)
{
    throw std::logic_error("process_device: this cross-correlator runs on the CPU "
                           "backend; use process() with host buffers");
}

} // namespace core
} // namespace cudadsp
} // namespace gr
