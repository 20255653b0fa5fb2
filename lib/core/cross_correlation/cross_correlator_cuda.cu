/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "cross_correlation/cross_correlation_peak_rule.h"
#include "cross_correlation/cross_correlator_cuda.h"
#include "runtime/cuda_check.h"
#include "runtime/cufft_plan.h"
#include "runtime/grid_size.h"
#include <cub/block/block_reduce.cuh>
#include <algorithm>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

constexpr unsigned int all_lanes = 0xffffffffu;

//! Input bytes (x and y) per batch when the configuration leaves it to the engine.
constexpr std::size_t default_batch_bytes = std::size_t(16) << 20;
//! Bound on an automatic batch of short frames (one thread block per frame each).
constexpr std::size_t max_default_batch_frames = std::size_t(1) << 16;

constexpr int pad_threads = 256;
constexpr int pad_samples_per_thread = 8;
//! Padded samples one block of pad_frames_kernel writes.
constexpr unsigned int pad_tile = pad_threads * pad_samples_per_thread;

constexpr int spectrum_threads = 256;

constexpr int peak_threads = 256;
constexpr int peak_warps = peak_threads / 32;
//! Correlation values a thread of peak_kernel loads at once in the integer search.
constexpr int lag_loads = 8;
//! Pairs of fine-grid points (j, -j) one pass of peak_kernel sums: 4 float64 sums per
//! pair and thread (U cos, V sin; real and imaginary), 32 in all, one per lane once a
//! warp has reduced them.
constexpr int pairs_per_pass = 8;
constexpr int pass_sums = 4 * pairs_per_pass;
static_assert(pass_sums == 32, "warp_reduce_scatter leaves one sum per lane");
//! Recurrence steps of a thread's twiddles over the bin pairs between exact restarts.
constexpr int restart_steps = 256;

std::size_t batch_frames_for(const cross_correlator_config& config)
{
    if (config.batch_frames > 0)
        return config.batch_frames;
    const std::size_t frame_bytes = 2 * config.fft_len * sizeof(float2);
    // validate()'s bound on explicit choices: batch_frames * L <= 2^29.
    const std::size_t largest = (std::size_t(1) << 29) / config.transform_len();
    return std::clamp<std::size_t>(default_batch_bytes / frame_bytes,
                                   1,
                                   std::min(max_default_batch_frames, largest));
}

//! Float64 sums over a block of pad_frames_kernel (CUB's tree: a fixed order).
using pad_energy_reduce = cub::BlockReduce<double, pad_threads>;

/*!
 * Pads frames to L samples and sums their energies.
 *
 * Grid: x = 2 n (pair p: frame p of x for p < n, frame p - n of y otherwise),
 * y = ceil(L / pad_tile) tiles of the padded frame. x and y hold n frames of N
 * samples; padded receives 2 n frames of L samples in pair order (all of x's, then
 * y's), each the frame's N samples followed by zeros. Blocks whose tile starts within
 * the N samples write the tile's float64 energy to
 * energy_partials[p * data_tiles + tile], data_tiles = ceil(N / pad_tile).
 */
__global__ void __launch_bounds__(pad_threads)
    pad_frames_kernel(const float2* __restrict__ x,
                      const float2* __restrict__ y,
                      unsigned int nframes,
                      unsigned int N,
                      unsigned int L,
                      float2* __restrict__ padded,
                      double* __restrict__ energy_partials,
                      unsigned int data_tiles)
{
    __shared__ pad_energy_reduce::TempStorage energy_reduce;
    const unsigned int pair = blockIdx.x;
    const bool is_y = pair >= nframes;
    const std::size_t frame = is_y ? pair - nframes : pair;
    const float2* source = (is_y ? y : x) + frame * N;
    float2* frame_out = padded + std::size_t(pair) * L;
    const unsigned int tile_start = blockIdx.y * pad_tile;

    double energy = 0.0;
#pragma unroll
    for (int i = 0; i < pad_samples_per_thread; ++i) {
        const unsigned int n = tile_start + i * pad_threads + threadIdx.x;
        if (n < L) {
            float2 v = make_float2(0.0f, 0.0f);
            if (n < N) {
                v = __ldg(source + n);
                energy += static_cast<double>(v.x) * v.x + static_cast<double>(v.y) * v.y;
            }
            frame_out[n] = v;
        }
    }
    if (tile_start >= N) // uniform over the block
        return;
    const double total = pad_energy_reduce(energy_reduce).Sum(energy); // thread 0's
    if (threadIdx.x == 0)
        energy_partials[std::size_t(pair) * data_tiles + blockIdx.y] = total;
}

/*!
 * S[i] = X[i] conj(Y[i]) for i < count (the bins of n frames). S may be X (in place),
 * so no pointer is restrict.
 */
__global__ void __launch_bounds__(spectrum_threads)
    cross_spectrum_kernel(const float2* X, const float2* Y, float2* S, std::size_t count)
{
    const std::size_t i = std::size_t(blockIdx.x) * spectrum_threads + threadIdx.x;
    if (i >= count)
        return;
    const float2 a = X[i];
    const float2 b = Y[i];
    float2 s;
    cross_spectrum_bin(a.x, a.y, b.x, b.y, s.x, s.y);
    S[i] = s;
}

struct peak_kernel_args {
    const float2* correlation;     //!< n frames of L: the unnormalised padded correlation
    const float2* spectrum;        //!< n frames of L: S = X conj(Y)
    const double* energy_partials; //!< from pad_frames_kernel, 2 n frames
    unsigned int data_tiles;
    unsigned int nframes;
    peak_grid grid;
    cross_correlation_peak* peaks; //!< n results
    float2* correlation_out;       //!< n frames of 2M + 1 lags, or nullptr
};

//! A candidate of the integer peak search: peak_key() of the correlation at a lag.
struct peak_candidate {
    double key;
    long long lag;
};

/*!
 * The winner of two candidates under peak_beats() (the larger key; on equal keys the
 * smaller lag): a total order, so CUB's reduction tree picks what a scan in lag order
 * picks.
 */
struct peak_winner {
    __device__ __forceinline__ peak_candidate operator()(const peak_candidate& a,
                                                         const peak_candidate& b) const
    {
        return peak_beats(b.key, b.lag, a.key, a.lag) ? b : a;
    }
};

//! Sum of two (re, im) pairs.
struct complex_sum {
    __device__ __forceinline__ double2 operator()(const double2& a,
                                                  const double2& b) const
    {
        return make_double2(a.x + b.x, a.y + b.y);
    }
};

using peak_candidate_reduce = cub::BlockReduce<peak_candidate, peak_threads>;
using peak_u0_reduce = cub::BlockReduce<double2, peak_threads>;

//! (re, im) *= (c, s): one complex multiplication, float64.
__device__ __forceinline__ void rotate(double& re, double& im, double c, double s)
{
    const double next = re * c - im * s;
    im = re * s + im * c;
    re = next;
}

//! One halving step of warp_reduce_scatter(): values [0, 2 Half) to [0, Half).
template <int Half>
__device__ __forceinline__ void reduce_scatter_step(double (&v)[pass_sums], int lane)
{
    const bool upper = (lane & Half) != 0;
#pragma unroll
    for (int i = 0; i < Half; ++i) {
        const double lo = v[i], hi = v[i + Half];
        v[i] = (upper ? hi : lo) + __shfl_xor_sync(all_lanes, upper ? lo : hi, Half);
    }
}

/*!
 * Reduce-scatter over a warp of 32 values per lane: afterwards lane l returns the sum
 * over the warp's lanes of value l (a fixed tree of float64 additions). Each halving
 * step sends half of the remaining values, 31 exchanges in all instead of 32 x 5.
 */
__device__ __forceinline__ double warp_reduce_scatter(double (&v)[pass_sums])
{
    const int lane = threadIdx.x % 32;
    reduce_scatter_step<16>(v, lane);
    reduce_scatter_step<8>(v, lane);
    reduce_scatter_step<4>(v, lane);
    reduce_scatter_step<2>(v, lane);
    reduce_scatter_step<1>(v, lane);
    return v[0];
}

//! The twiddles of a thread's walk over its bin pairs k = k_first + peak_threads i.
enum walk { walk_alpha, walk_beta, walk_anchor, walks };

/*!
 * One thread's share of a pass of the fine grid (cross_correlation_peak_rule.h): over
 * its bin pairs k = threadIdx.x + peak_threads i, adds U_k cos(j beta_k) to
 * sum[4 p], sum[4 p + 1] and V_k sin(j beta_k) to sum[4 p + 2], sum[4 p + 3] for
 * j = j0 + 1 + p, p < Count, and U_k to (u0_re, u0_im); returns the warp's total of
 * sum[lane] (warp_reduce_scatter()). The twiddles e^{i alpha_k},
 * e^{i beta_k} and the anchor e^{i j0 beta_k} advance over k by recurrence and restart
 * from fine_twiddle() every restart_steps bin pairs.
 */
template <int Count>
__device__ __forceinline__ double pass_share(const float2* __restrict__ S,
                                             long long l0,
                                             int j0,
                                             const peak_grid& g,
                                             const double2* steps,
                                             double& u0_re,
                                             double& u0_im)
{
    double sum[pass_sums];
#pragma unroll
    for (int i = 0; i < pass_sums; ++i)
        sum[i] = 0.0;
    const long long L = g.transform_len;
    const long long pairs = bin_pair_count(L);
    constexpr long long stride = peak_threads;
    double2 alpha, beta, anchor;
    for (long long first = threadIdx.x; first < pairs; first += stride * restart_steps) {
        const long long stop = min(pairs, first + stride * restart_steps);
        fine_twiddle(first, l0, 0, g, alpha.x, alpha.y);
        fine_twiddle(first, 0, 1, g, beta.x, beta.y);
        fine_twiddle(first, 0, j0, g, anchor.x, anchor.y);
        // The bins of the next pair load while this one is summed.
        float2 a_next = __ldg(S + first);
        float2 b_next = __ldg(S + (single_bin_pair(first, L) ? first : L - first));
        for (long long k = first; k < stop; k += stride) {
            const bool single = single_bin_pair(k, L);
            const float2 a = a_next;
            const float2 b = b_next;
            const long long next = k + stride < stop ? k + stride : k;
            a_next = __ldg(S + next);
            b_next = __ldg(S + (single_bin_pair(next, L) ? next : L - next));
            double p_re, p_im, q_re, q_im, u_re, u_im, v_re, v_im;
            bin_pair(single, a.x, a.y, b.x, b.y, p_re, p_im, q_re, q_im);
            pair_rotation(
                p_re, p_im, q_re, q_im, alpha.x, alpha.y, u_re, u_im, v_re, v_im);
            u0_re += u_re;
            u0_im += u_im;
            double w_re = anchor.x, w_im = anchor.y;
#pragma unroll
            for (int p = 0; p < Count; ++p) {
                rotate(w_re, w_im, beta.x, beta.y); // e^{i (j0 + 1 + p) beta_k}
                sum[4 * p] += u_re * w_re;
                sum[4 * p + 1] += u_im * w_re;
                sum[4 * p + 2] += v_re * w_im;
                sum[4 * p + 3] += v_im * w_im;
            }
            rotate(alpha.x, alpha.y, steps[walk_alpha].x, steps[walk_alpha].y);
            rotate(beta.x, beta.y, steps[walk_beta].x, steps[walk_beta].y);
            rotate(anchor.x, anchor.y, steps[walk_anchor].x, steps[walk_anchor].y);
        }
    }
    return warp_reduce_scatter(sum);
}

/*!
 * The integer peak of one frame, in thread 0: the lag in -M .. M whose correlation
 * has the largest peak_key() (the smallest such lag on a tie). \p c holds the frame's L
 * unnormalised correlation values in padded order (padded_index_of_lag()); when
 * \p correlation_out is not null, r[-M .. M] = c / L goes to its 2 M + 1 values.
 * Called by the whole block.
 */
__device__ __forceinline__ long long
integer_peak(const float2* __restrict__ c,
             float2* __restrict__ correlation_out,
             int M,
             long long L,
             peak_candidate_reduce::TempStorage& reduce_storage)
{
    const float inverse_length = 1.0f / static_cast<float>(L);
    peak_candidate best{ no_peak_key, no_peak_position };
    // Loads in groups of lag_loads, all issued before any is used (the order in which
    // candidates are compared does not matter: peak_beats() is a total order).
    for (int base = -M + static_cast<int>(threadIdx.x); base <= M;
         base += peak_threads * lag_loads) {
        float2 v[lag_loads];
#pragma unroll
        for (int i = 0; i < lag_loads; ++i) {
            const int lag = base + i * peak_threads;
            if (lag <= M)
                v[i] = __ldg(c + padded_index_of_lag(lag, L));
        }
#pragma unroll
        for (int i = 0; i < lag_loads; ++i) {
            const int lag = base + i * peak_threads;
            if (lag > M)
                break;
            if (correlation_out)
                correlation_out[lag + M] =
                    make_float2(v[i].x * inverse_length, v[i].y * inverse_length);
            const double key = peak_key(v[i].x, v[i].y);
            if (peak_beats(key, lag, best.key, best.lag)) {
                best.key = key;
                best.lag = lag;
            }
        }
    }
    return peak_candidate_reduce(reduce_storage).Reduce(best, peak_winner{}).lag;
}

//! pass_share<count>() for a \p count in 1 .. pairs_per_pass known at run time.
__device__ __forceinline__ double pass_share_of(int count,
                                                const float2* __restrict__ S,
                                                long long l0,
                                                int j0,
                                                const peak_grid& g,
                                                const double2* steps,
                                                double& u0_re,
                                                double& u0_im)
{
    switch (count) {
    case 1:
        return pass_share<1>(S, l0, j0, g, steps, u0_re, u0_im);
    case 2:
        return pass_share<2>(S, l0, j0, g, steps, u0_re, u0_im);
    case 3:
        return pass_share<3>(S, l0, j0, g, steps, u0_re, u0_im);
    case 4:
        return pass_share<4>(S, l0, j0, g, steps, u0_re, u0_im);
    case 5:
        return pass_share<5>(S, l0, j0, g, steps, u0_re, u0_im);
    case 6:
        return pass_share<6>(S, l0, j0, g, steps, u0_re, u0_im);
    case 7:
        return pass_share<7>(S, l0, j0, g, steps, u0_re, u0_im);
    default:
        return pass_share<pairs_per_pass>(S, l0, j0, g, steps, u0_re, u0_im);
    }
}

/*!
 * Feeds the fine-grid points +-(j0 + 1) .. +-(j0 + count) of one pass to the peak rule,
 * from the block's totals of the pass (pass_total[4 p .. 4 p + 3] for point pair p).
 */
__device__ __forceinline__ void add_pass_points(
    fine_peak& fine, const double* pass_total, int j0, int count, const peak_grid& g)
{
    for (int p = 0; p < count; ++p) {
        double plus_re, plus_im, minus_re, minus_im;
        fine_pair_points(pass_total[4 * p],
                         pass_total[4 * p + 1],
                         pass_total[4 * p + 2],
                         pass_total[4 * p + 3],
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

//! Sum of a frame's data_tiles energy partials from pad_frames_kernel, in tile order.
__device__ __forceinline__ double frame_energy(const double* partials,
                                               unsigned int data_tiles)
{
    double energy = 0.0;
    for (unsigned int t = 0; t < data_tiles; ++t)
        energy += partials[t];
    return energy;
}

/*!
 * One block of peak_threads threads per frame (grid: nframes blocks): the integer peak
 * over lags -M .. M (and the correlation output), then the fine grid in passes of
 * pairs_per_pass point pairs (j, -j): each thread sums its bin pairs, each warp
 * reduces, the warps' sums are added in a fixed order, and thread 0 feeds the points
 * to the peak rule and writes args.peaks[frame]. Reads correlation, spectrum (n frames
 * of L each) and energy_partials (2 n frames of data_tiles); writes correlation_out
 * (n frames of 2 M + 1, when not null), which overlaps none of them.
 */
__global__ void __launch_bounds__(peak_threads, 2) peak_kernel(peak_kernel_args args)
{
    __shared__ peak_candidate_reduce::TempStorage candidate_reduce;
    __shared__ peak_u0_reduce::TempStorage u0_reduce;
    __shared__ double warp_sum[peak_warps][pass_sums];
    __shared__ double pass_total[pass_sums];
    __shared__ long long peak_lag;
    __shared__ double2 steps[walks]; // per step of peak_threads bin pairs

    const peak_grid& g = args.grid;
    const std::size_t frame = blockIdx.x;
    const long long L = g.transform_len;
    const int M = g.max_lag;
    const int warp = threadIdx.x / 32;
    const int lane = threadIdx.x % 32;

    float2* correlation_out =
        args.correlation_out ? args.correlation_out + frame * (2 * std::size_t(M) + 1)
                             : nullptr;
    const long long best_lag = integer_peak(
        args.correlation + frame * L, correlation_out, M, L, candidate_reduce);
    if (threadIdx.x == 0) {
        peak_lag = best_lag;
        // The walks' steps for the first pass (j0 = 0).
        fine_twiddle(
            peak_threads, peak_lag, 0, g, steps[walk_alpha].x, steps[walk_alpha].y);
        fine_twiddle(peak_threads, 0, 1, g, steps[walk_beta].x, steps[walk_beta].y);
        steps[walk_anchor] = make_double2(1.0, 0.0);
    }
    __syncthreads();
    const long long l0 = peak_lag;

    // Fine grid: pass j0 sums the points +-(j0 + 1) .. +-(j0 + count); the first pass
    // also r(l0) = sum U / L.
    const float2* S = args.spectrum + frame * L;
    const int I = g.interp;
    fine_peak fine; // thread 0's
    for (int j0 = 0; j0 < I; j0 += pairs_per_pass) {
        const int count = min(pairs_per_pass, I - j0); // uniform over the block
        double u0_re = 0.0, u0_im = 0.0;
        warp_sum[warp][lane] = pass_share_of(count, S, l0, j0, g, steps, u0_re, u0_im);
        double2 u0 = make_double2(0.0, 0.0); // thread 0's
        if (j0 == 0)
            u0 = peak_u0_reduce(u0_reduce).Reduce(make_double2(u0_re, u0_im),
                                                  complex_sum{});
        __syncthreads();
        if (static_cast<int>(threadIdx.x) < pass_sums) {
            double total = 0.0;
            for (int w = 0; w < peak_warps; ++w)
                total += warp_sum[w][threadIdx.x];
            pass_total[threadIdx.x] = total;
        }
        const int next = j0 + pairs_per_pass;
        if (threadIdx.x == 0 && next < I) // the next pass's anchor step: after the
                                          // barrier below, all have read this one's
            fine_twiddle(
                peak_threads, 0, next, g, steps[walk_anchor].x, steps[walk_anchor].y);
        __syncthreads();
        if (threadIdx.x == 0) {
            if (j0 == 0) {
                const double scale = 1.0 / static_cast<double>(L);
                add_fine_point(fine, 0, u0.x * scale, u0.y * scale);
            }
            add_pass_points(fine, pass_total, j0, count, g);
        }
        // The next pass writes warp_sum only after this pass's second barrier, which
        // follows the last read of it, and pass_total only after its own first
        // barrier, which thread 0 reaches after reading.
    }

    if (threadIdx.x == 0) {
        const double energy_x =
            frame_energy(args.energy_partials + frame * args.data_tiles, args.data_tiles);
        const double energy_y =
            frame_energy(args.energy_partials + (args.nframes + frame) * args.data_tiles,
                         args.data_tiles);
        args.peaks[frame] = finish_peak(fine, l0, energy_x, energy_y, g);
    }
}

} // namespace

/*!
 * Device memory of one batch, and the cuFFT plans. Plans exist for 1, 2, 4, ...
 * transforms up to the largest power of two <= 2 batch_frames; a count of transforms
 * runs as a sum of those, largest first (a partial batch costs what it holds). They
 * share one work area, as they run one at a time on the engine's current stream.
 */
struct cross_correlator_cuda::workspace {
    workspace(const cross_correlator_config& config, std::size_t batch)
        : L(config.transform_len()),
          data_tiles(
              static_cast<unsigned int>((config.fft_len + pad_tile - 1) / pad_tile)),
          padded(2 * batch * L),
          energy_partials(2 * batch * data_tiles)
    {
        std::size_t work_bytes = 0;
        for (std::size_t count = 1; count <= 2 * batch; count *= 2) {
            plans.emplace_back(static_cast<int>(L),
                               CUFFT_C2C,
                               static_cast<int>(count),
                               cufft_plan::external_work_area{});
            plan_counts.push_back(count);
            work_bytes = std::max(work_bytes, plans.back().work_size());
        }
        fft_work = device_buffer<unsigned char>(work_bytes);
        for (const cufft_plan& plan : plans)
            if (plan.work_size() > 0)
                plan.set_work_area(fft_work.get());
    }

    //! count transforms of L points from in to out (in place when equal).
    void transform(const float2* in,
                   float2* out,
                   std::size_t count,
                   int direction,
                   cudaStream_t stream) const
    {
        std::size_t done = 0;
        std::size_t p = plans.size();
        while (done < count) {
            while (plan_counts[p - 1] > count - done)
                --p;
            const cufft_plan& plan = plans[p - 1];
            plan.set_stream(stream);
            // cuFFT takes non-const input; an out-of-place C2C transform leaves it
            // intact.
            CUDADSP_CUFFT(
                cufftExecC2C(plan.get(),
                             const_cast<cufftComplex*>(
                                 reinterpret_cast<const cufftComplex*>(in + done * L)),
                             reinterpret_cast<cufftComplex*>(out + done * L),
                             direction));
            done += plan_counts[p - 1];
        }
    }

    const std::size_t L;
    const unsigned int data_tiles;
    cuda_stream stream;
    device_buffer<float2> padded;          //!< 2 batch frames of L
    device_buffer<double> energy_partials; //!< 2 batch frames of data_tiles
    device_buffer<unsigned char> fft_work; //!< declared first: outlives the plans
    std::vector<cufft_plan> plans;
    std::vector<std::size_t> plan_counts;
};

cross_correlator_cuda::cross_correlator_cuda(const cross_correlator_config& config,
                                             const device_selection& device)
    : cross_correlator(config, device), d_batch_frames(batch_frames_for(config))
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>(config, d_batch_frames);
    d_order = stream_order(d_ws->stream.get());
}

cross_correlator_cuda::~cross_correlator_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        for (auto& pipeline : d_pipelines)
            pipeline.reset();
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

host_pipeline& cross_correlator_cuda::pipeline_for(bool spectrum, bool correlation)
{
    std::unique_ptr<host_pipeline>& pipeline =
        d_pipelines[(spectrum ? 1 : 0) + (correlation ? 2 : 0)];
    if (!pipeline) {
        const std::size_t frame_bytes = d_config.fft_len * sizeof(float2);
        std::vector<std::size_t> outputs{ sizeof(cross_correlation_peak) };
        if (spectrum)
            outputs.push_back(d_config.transform_len() * sizeof(float2));
        if (correlation)
            outputs.push_back(d_config.correlation_len() * sizeof(float2));
        pipeline = std::make_unique<host_pipeline>(
            d_batch_frames,
            std::vector<std::size_t>{ frame_bytes, frame_bytes },
            outputs);
    }
    return *pipeline;
}

void cross_correlator_cuda::enqueue_batch(const std::complex<float>* d_x,
                                          const std::complex<float>* d_y,
                                          std::size_t nframes,
                                          cross_correlation_peak* d_peaks,
                                          std::complex<float>* d_spectrum,
                                          std::complex<float>* d_correlation,
                                          cudaStream_t stream)
{
    const std::size_t N = d_config.fft_len;
    const std::size_t L = d_ws->L;
    const auto n = static_cast<unsigned int>(nframes);
    float2* padded = d_ws->padded.get();

    const dim3 pad_grid(2 * n, blocks_for(L, pad_tile));
    pad_frames_kernel<<<pad_grid, pad_threads, 0, stream>>>(
        reinterpret_cast<const float2*>(d_x),
        reinterpret_cast<const float2*>(d_y),
        n,
        static_cast<unsigned int>(N),
        static_cast<unsigned int>(L),
        padded,
        d_ws->energy_partials.get(),
        d_ws->data_tiles);
    CUDADSP_CUDA_LAUNCHED("pad_frames_kernel");

    d_ws->transform(padded, padded, 2 * nframes, CUFFT_FORWARD, stream);

    // S goes to the caller's spectrum buffer when there is one, else over X.
    float2* S = d_spectrum ? reinterpret_cast<float2*>(d_spectrum) : padded;
    const std::size_t bins = nframes * L;
    cross_spectrum_kernel<<<static_cast<unsigned int>((bins + spectrum_threads - 1) /
                                                      spectrum_threads),
                            spectrum_threads,
                            0,
                            stream>>>(padded, padded + bins, S, bins);
    CUDADSP_CUDA_LAUNCHED("cross_spectrum_kernel");

    // The correlations replace Y.
    float2* correlation = padded + bins;
    d_ws->transform(S, correlation, nframes, CUFFT_INVERSE, stream);

    peak_kernel_args args;
    args.correlation = correlation;
    args.spectrum = S;
    args.energy_partials = d_ws->energy_partials.get();
    args.data_tiles = d_ws->data_tiles;
    args.nframes = n;
    args.grid = make_peak_grid(d_config);
    args.peaks = d_peaks;
    args.correlation_out = reinterpret_cast<float2*>(d_correlation);
    peak_kernel<<<n, peak_threads, 0, stream>>>(args);
    CUDADSP_CUDA_LAUNCHED("peak_kernel");
}

void cross_correlator_cuda::process(const std::complex<float>* x,
                                    const std::complex<float>* y,
                                    std::size_t nframes,
                                    cross_correlation_peak* peaks,
                                    std::complex<float>* spectrum,
                                    std::complex<float>* correlation)
{
    if (nframes == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t stream = d_ws->stream.get();
    d_order.switch_to(stream);
    const bool want_spectrum = spectrum != nullptr;
    const bool want_correlation = correlation != nullptr;
    const void* const host_in[] = { x, y };
    void* host_out[3] = { peaks, nullptr, nullptr };
    int outputs = 1;
    if (want_spectrum)
        host_out[outputs++] = spectrum;
    if (want_correlation)
        host_out[outputs++] = correlation;
    pipeline_for(want_spectrum, want_correlation)
        .run(host_in,
             host_out,
             nframes,
             stream,
             [&](const void* const* d_in,
                 void* const* d_out,
                 std::size_t frames,
                 cudaStream_t s) {
                 int o = 1;
                 auto* d_spectrum = want_spectrum
                                        ? static_cast<std::complex<float>*>(d_out[o++])
                                        : nullptr;
                 auto* d_correlation = want_correlation
                                           ? static_cast<std::complex<float>*>(d_out[o++])
                                           : nullptr;
                 enqueue_batch(static_cast<const std::complex<float>*>(d_in[0]),
                               static_cast<const std::complex<float>*>(d_in[1]),
                               frames,
                               static_cast<cross_correlation_peak*>(d_out[0]),
                               d_spectrum,
                               d_correlation,
                               s);
             });
}

void cross_correlator_cuda::process_device(const std::complex<float>* d_x,
                                           const std::complex<float>* d_y,
                                           std::size_t nframes,
                                           cross_correlation_peak* d_peaks,
                                           std::complex<float>* d_spectrum,
                                           std::complex<float>* d_correlation,
                                           cuda_stream_t stream)
{
    if (nframes == 0)
        return;
    device_guard guard(d_device.cuda_ordinal);
    cudaStream_t target = stream ? stream : d_ws->stream.get();
    d_order.switch_to(target);
    const std::size_t N = d_config.fft_len;
    const std::size_t L = d_config.transform_len();
    const std::size_t R = d_config.correlation_len();
    for (std::size_t f = 0; f < nframes; f += d_batch_frames) {
        const std::size_t n = std::min(d_batch_frames, nframes - f);
        enqueue_batch(d_x + f * N,
                      d_y + f * N,
                      n,
                      d_peaks + f,
                      d_spectrum ? d_spectrum + f * L : nullptr,
                      d_correlation ? d_correlation + f * R : nullptr,
                      target);
    }
}

void cross_correlator_cuda::synchronize()
{
    device_guard guard(d_device.cuda_ordinal);
    CUDADSP_CUDA(cudaStreamSynchronize(d_order.last()));
}

} // namespace core
} // namespace cudadsp
} // namespace gr
