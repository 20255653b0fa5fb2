/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation_peak_rule.h"
#include "cross_correlator_cpu.h"
#include <fftw3.h>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

/*
 * FFTW's planner is not thread-safe, and other FFTW users share it in this process
 * (GNU Radio's FFT blocks among them). fftwf_make_planner_thread_safe() wraps every
 * planner call of the process in FFTW's own lock; the mutex also orders our own plan
 * creation and destruction before that hook exists. Plans are FFTW_ESTIMATE: made
 * without measuring, so the choice does not depend on timing. (FFTW would still use
 * wisdom that another library of the process imported for the same size; that can
 * change the float32 rounding, never the function.)
 */
std::mutex& planner_mutex()
{
    static std::mutex mutex;
    return mutex;
}

void make_planner_thread_safe()
{
    static std::once_flag once;
    std::call_once(once, [] { fftwf_make_planner_thread_safe(); });
}

struct fftw_deleter {
    void operator()(void* p) const { fftwf_free(p); }
};
template <typename T>
using fftw_array = std::unique_ptr<T[], fftw_deleter>;

template <typename T>
fftw_array<T> allocate(std::size_t count)
{
    void* p = fftwf_malloc(count * sizeof(T));
    if (p == nullptr)
        throw std::bad_alloc();
    return fftw_array<T>(static_cast<T*>(p));
}

//! Interleaved recurrences of a fine-grid sum: independent chains vectorise.
constexpr int chains = 8;
//! One float64 per chain, in GCC / Clang vector extensions: element-wise arithmetic
//! that the compiler maps onto the target's SIMD width.
typedef double lanes __attribute__((vector_size(chains * sizeof(double))));
//! Recurrence steps between exact restarts of the twiddles (bounds their drift).
constexpr long long restart_steps = 512;
//! Least work (bins times fine-grid points) worth a thread of its own.
constexpr std::size_t min_work_per_thread = std::size_t(1) << 22;

} // namespace

struct cross_correlator_cpu::fftw_plans {
    explicit fftw_plans(std::size_t L)
    {
        make_planner_thread_safe();
        std::lock_guard<std::mutex> lock(planner_mutex());
        // ESTIMATE plans do not touch the arrays; they only fix their alignment, which
        // fftwf_malloc gives every buffer the plans later run on.
        auto a = allocate<fftwf_complex>(L);
        auto c = allocate<fftwf_complex>(L);
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
        std::lock_guard<std::mutex> lock(planner_mutex());
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
 * y, then Y; c the padded correlation L r. s_re, s_im: S as float64, in signed
 * frequency order from -(L/2 - 1) (the fine-grid sums' operand).
 */
struct cross_correlator_cpu::workspace {
    explicit workspace(std::size_t L)
        : a(allocate<fftwf_complex>(L)),
          b(allocate<fftwf_complex>(L)),
          c(allocate<fftwf_complex>(L)),
          s_re(allocate<double>(L)),
          s_im(allocate<double>(L))
    {
    }
    fftw_array<fftwf_complex> a, b, c;
    fftw_array<double> s_re, s_im;
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

/*!
 * r(l0 + j / I), divided by L, from the cross-spectrum in signed frequency order
 * (s_re, s_im) and its Nyquist bin. Terms of frequency k = k0 + chains i + c go to
 * chain c; each chain's twiddle advances by e^{2 pi i chains t / L} and restarts from
 * the exact phase every restart_steps steps.
 */
void fine_value(const double* s_re,
                const double* s_im,
                const fftwf_complex& nyquist,
                long long l0,
                int j,
                const peak_grid& g,
                double& out_re,
                double& out_im)
{
    const long long L = g.transform_len;
    const long long k0 = first_sum_frequency(L);
    const long long terms = sum_frequency_count(L);
    const long long groups = terms / chains;
    double step_re, step_im;
    fine_twiddle(chains, l0, j, g, step_re, step_im);
    lanes acc_re = {}, acc_im = {};
    for (long long first = 0; first < groups; first += restart_steps) {
        const long long end = std::min(groups, first + restart_steps);
        lanes w_re, w_im;
        for (int c = 0; c < chains; ++c)
            fine_twiddle(k0 + first * chains + c, l0, j, g, w_re[c], w_im[c]);
        for (long long i = first; i < end; ++i) {
            lanes sr, si;
            std::memcpy(&sr, s_re + i * chains, sizeof(sr));
            std::memcpy(&si, s_im + i * chains, sizeof(si));
            acc_re += sr * w_re - si * w_im;
            acc_im += sr * w_im + si * w_re;
            const lanes next_re = w_re * step_re - w_im * step_im;
            w_im = w_re * step_im + w_im * step_re;
            w_re = next_re;
        }
    }
    double tail_re = 0.0, tail_im = 0.0;
    for (long long i = groups * chains; i < terms; ++i) {
        double w_re, w_im;
        fine_twiddle(k0 + i, l0, j, g, w_re, w_im);
        tail_re += s_re[i] * w_re - s_im[i] * w_im;
        tail_im += s_re[i] * w_im + s_im[i] * w_re;
    }
    double re = 0.0, im = 0.0;
    for (int c = 0; c < chains; ++c) {
        re += acc_re[c];
        im += acc_im[c];
    }
    re += tail_re;
    im += tail_im;
    const double nyquist_weight = nyquist_factor(l0, j, g);
    re += nyquist[0] * nyquist_weight;
    im += nyquist[1] * nyquist_weight;
    const double inverse_length = 1.0 / static_cast<double>(L);
    out_re = re * inverse_length;
    out_im = im * inverse_length;
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

    const long long k0 = first_sum_frequency(g.transform_len);
    const long long terms = sum_frequency_count(g.transform_len);
    double* s_re = ws.s_re.get();
    double* s_im = ws.s_im.get();
    for (long long i = 0; i < terms; ++i) {
        const fftwf_complex& s = a[bin_of_frequency(k0 + i, g.transform_len)];
        s_re[i] = s[0];
        s_im[i] = s[1];
    }
    fine_peak fine;
    for (int j = -g.interp; j <= g.interp; ++j) {
        double re, im;
        fine_value(s_re, s_im, a[L / 2], l0, j, g, re, im);
        add_fine_point(fine, j, re, im);
    }
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
    // Work of a frame: the fine-grid sums, and about as much again for the transforms.
    const std::size_t frame_work = L * (2 * d_config.interp + 1 + 16);
    const std::size_t workers = std::min<std::size_t>(
        { nframes,
          std::max<std::size_t>(1, std::thread::hardware_concurrency()),
          std::max<std::size_t>(1, nframes * frame_work / min_work_per_thread) });
    while (d_workspaces.size() < workers)
        d_workspaces.push_back(std::make_unique<workspace>(L));

    auto run = [&](std::size_t worker, std::size_t first, std::size_t end) {
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
                            correlation ? correlation + f * correlation_len : nullptr);
    };
    if (workers == 1) {
        run(0, 0, nframes);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(workers);
    for (std::size_t w = 0; w < workers; ++w)
        threads.emplace_back(run, w, nframes * w / workers, nframes * (w + 1) / workers);
    for (std::thread& t : threads)
        t.join();
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
