/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/pcps_acquisition_cuda.h"
#include "gnss/pcps_acquisition_rule.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include "runtime/grid_size.h"
#include "runtime/parallel_ranges.h"
#include "runtime/staged_device_array.h"
#include <cub/block/block_reduce.cuh>
#include <algorithm>
#include <complex>
#include <cstdint>
#include <map>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

namespace {

//! Bound on the automatic batch: the products of one batch take at most this much.
constexpr std::size_t max_batch_bytes = std::size_t(1) << 30;
/*! Bound on the complex elements of one batch, whatever the configuration asks: the
 *  kernels index a batch with 32-bit integers, and 1-D cuFFT plans of up to 2^30
 *  elements stay within cuFFT's 32-bit plans. */
constexpr std::size_t max_batch_elements = std::size_t(1) << 30;

constexpr int elementwise_threads = 256;

//! Lags of one block of fold_kernel (a thread a lag).
constexpr int fold_threads = 256;

constexpr int peak_threads = 256;

/*!
 * The zero-padded integrations: out[d M + n] = x[(k0 + d) N + n] for n < N, 0 for
 * N <= n < M, d < dwells (M = 2N). \p in holds the search's K N samples (float2, or
 * short2 for interleaved int16 I/Q, converted exactly). dwells M <= max_batch_elements.
 */
template <typename Sample>
__global__ void __launch_bounds__(elementwise_threads)
    load_dwells_kernel(const Sample* __restrict__ in,
                       unsigned int k0,
                       unsigned int dwells,
                       unsigned int N,
                       unsigned int M,
                       float2* __restrict__ out)
{
    const unsigned int item = blockIdx.x * elementwise_threads + threadIdx.x;
    if (item >= dwells * M)
        return;
    const unsigned int d = item / M;
    const unsigned int n = item - d * M;
    float2 v = make_float2(0.0f, 0.0f);
    if (n < N) {
        const Sample s = in[(std::size_t(k0) + d) * N + n];
        v = make_float2(static_cast<float>(s.x), static_cast<float>(s.y));
    }
    out[item] = v;
}

//! load_dwells_kernel() over integrations k0 .. k0 + dwells - 1 of \p samples.
template <typename Sample>
void enqueue_load(const void* samples,
                  std::size_t k0,
                  std::size_t dwells,
                  std::size_t N,
                  std::size_t M,
                  float2* out,
                  cudaStream_t stream)
{
    load_dwells_kernel<<<blocks_for(dwells * M, elementwise_threads),
                         elementwise_threads,
                         0,
                         stream>>>(static_cast<const Sample*>(samples),
                                   static_cast<unsigned int>(k0),
                                   static_cast<unsigned int>(dwells),
                                   static_cast<unsigned int>(N),
                                   static_cast<unsigned int>(M),
                                   out);
    CUDADSP_CUDA_LAUNCHED("load_dwells_kernel");
}

//! Where the rows of one batch are, and what they multiply.
struct batch_layout {
    unsigned int M;            //!< 2N: points per transform
    unsigned int first_row;    //!< global row (satellite, grid, bin) of row 0
    unsigned int rows;         //!< rows in the batch
    unsigned int dwells;       //!< integrations in the batch
    unsigned int first_dwell;  //!< integration (0 .. K - 1) of the batch's dwell 0
    unsigned int periods;      //!< code periods per integration (P)
    unsigned int grids;        //!< grids per satellite (G)
    unsigned int replicas;     //!< replicas per grid (R)
    unsigned int bins;         //!< Doppler bins (B)
    unsigned int rows_per_sat; //!< grids x bins
    unsigned int lags;         //!< code-phase bins of one grid row
};

/*!
 * Transform t = (row d + dwell) R + replica of the batch (row, dwell, replica local to
 * the batch) holds the product X_dwell[f] conj(Q[(f - shift) mod M]), f < M, where Q is
 * the replica spectrum of the row's satellite, Doppler residue, replica, and the
 * grid (g + k P) mod G for row grid g and integration k (the pilot's secondary code
 * moves on P periods per integration; G = 1 otherwise), and shift its bin's circular
 * shift (pcps_acquisition::doppler_plan). \p spectra holds the batch's integrations
 * (M points each, in order), \p bank the replica spectra, \p bin_spectrum[s B + b] the
 * bank index of satellite s's residue of bin b at grid 0, replica 0 (grid g, replica
 * j: + g R + j) and \p bin_shift[s B + b] its shift. One thread per (row, replica) and
 * pair of points f, f + 1 (M = 2N is even), which reads the replica values once for all
 * the batch's integrations that use them and stores both products in one 16-byte
 * store: the kernel writes every byte cuFFT then reads, so it runs at the memory's
 * write bandwidth only with wide stores. rows R M <= max_batch_elements.
 */
__global__ void __launch_bounds__(elementwise_threads)
    products_kernel(batch_layout b,
                    const float2* __restrict__ spectra,
                    const float2* __restrict__ bank,
                    const unsigned int* __restrict__ bin_spectrum,
                    const unsigned int* __restrict__ bin_shift,
                    float2* __restrict__ out)
{
    const unsigned int pairs = b.M / 2;
    const unsigned int item = blockIdx.x * elementwise_threads + threadIdx.x;
    if (item >= b.rows * b.replicas * pairs)
        return;
    const unsigned int q = item / pairs;
    const unsigned int f = 2 * (item - q * pairs);
    const unsigned int j = q % b.replicas;
    const unsigned int local_row = q / b.replicas;
    const unsigned int row = b.first_row + local_row;
    const unsigned int sat = row / b.rows_per_sat;
    const unsigned int in_sat = row - sat * b.rows_per_sat;
    const unsigned int g = in_sat / b.bins;
    const unsigned int bin = in_sat - g * b.bins;
    const unsigned int sb = sat * b.bins + bin;
    const unsigned int first_spectrum = bin_spectrum[sb] + j;
    const unsigned int shift = bin_shift[sb];
    const unsigned int e0 = f >= shift ? f - shift : f + b.M - shift;
    const unsigned int e1 = e0 + 1 == b.M ? 0 : e0 + 1;
    // The grid of integration first_dwell + d, advanced by P mod G per integration.
    unsigned int gk = (g + b.first_dwell * b.periods) % b.grids;
    const unsigned int grid_step = b.periods % b.grids;
    unsigned int loaded_grid = b.grids; // none yet
    float r0r = 0.0f, r0i = 0.0f, r1r = 0.0f, r1i = 0.0f;
    for (unsigned int d = 0; d < b.dwells; ++d) {
        if (gk != loaded_grid) {
            const float2* q_spectrum =
                bank + std::size_t(first_spectrum + gk * b.replicas) * b.M;
            const float2 r0 = q_spectrum[e0];
            const float2 r1 = q_spectrum[e1];
            // The CPU backend's arithmetic: x times conj(Q) = (rr, ri).
            r0r = r0.x;
            r0i = -r0.y;
            r1r = r1.x;
            r1i = -r1.y;
            loaded_grid = gk;
        }
        const float4 x =
            *reinterpret_cast<const float4*>(spectra + std::size_t(d) * b.M + f);
        float4 c;
        c.x = x.x * r0r - x.y * r0i;
        c.y = x.x * r0i + x.y * r0r;
        c.z = x.z * r1r - x.w * r1i;
        c.w = x.z * r1i + x.w * r1r;
        *reinterpret_cast<float4*>(
            out + ((std::size_t(local_row) * b.dwells + d) * b.replicas + j) * b.M + f) =
            c;
        gk += grid_step;
        if (gk >= b.grids)
            gk -= b.grids;
    }
}

/*!
 * powers[row lags + t] = (first ? 0 : powers[row lags + t]) + the batch's power at lag t
 * for every local row and lag t < lags: per integration the largest |c / M|^2 over the
 * replicas (the CPU backend's order: replicas in order, then the sum over integrations
 * in order, float32). \p c: the inverse transforms of the batch. One thread per (row,
 * lag): this is the one pass over the inverse transforms, so it streams them at the
 * memory's bandwidth; what is left (rows x lags floats) stays in L2 for fold_kernel.
 * rows lags < 2^32.
 */
__global__ void __launch_bounds__(elementwise_threads) accumulate_kernel(
    batch_layout b, const float2* __restrict__ c, float* powers, bool first, float scale)
{
    const unsigned int item = blockIdx.x * elementwise_threads + threadIdx.x;
    if (item >= b.rows * b.lags)
        return;
    const unsigned int row = item / b.lags;
    const unsigned int t = item - row * b.lags;
    float s = first ? 0.0f : powers[item];
    for (unsigned int d = 0; d < b.dwells; ++d) {
        float best = 0.0f;
        for (unsigned int j = 0; j < b.replicas; ++j) {
            const float2 v =
                c[((std::size_t(row) * b.dwells + d) * b.replicas + j) * b.M + t];
            const float re = v.x * scale;
            const float im = v.y * scale;
            const float p = re * re + im * im;
            best = j == 0 ? p : (best < p ? p : best);
        }
        s += best;
    }
    powers[item] = s;
}

/*!
 * Per satellite and lag t, what the rows seen so far leave for the peak search: the
 * best cell at t under pcps_better_cell() with its power and its row's powers at t - 1
 * and t + 1 (mod lags), the largest power at t (the second peak's candidates) and the
 * float64 sum of the powers at t. Arrays of satellites x lags, satellite-major.
 */
struct lag_summaries {
    float* best_power;
    std::uint64_t* best_cell;
    float* best_early;
    float* best_late;
    float* max_power;
    double* sum_power;
};

/*!
 * Folds a batch's rows, whose \p powers (accumulate_kernel, all K integrations summed)
 * are complete, into the lag summaries. Grid: x = lag tiles of fold_threads lags, y =
 * the satellites the batch touches, from \p first_sat. Each thread owns one lag t and
 * walks the satellite's rows in increasing cell order, with no barrier; it reads a
 * row's powers at t - 1 and t + 1 (mod lags) only when the row's cell becomes the best
 * at t. A block whose rows begin at its satellite's row 0 starts the summaries, any
 * other continues them.
 */
__global__ void __launch_bounds__(fold_threads)
    fold_kernel(batch_layout b,
                const float* __restrict__ powers,
                unsigned int first_sat,
                lag_summaries sums)
{
    const unsigned int t = blockIdx.x * fold_threads + threadIdx.x;
    if (t >= b.lags)
        return;
    const unsigned int sat = first_sat + blockIdx.y;
    const unsigned int sat_row0 = sat * b.rows_per_sat;
    const unsigned int begin = max(b.first_row, sat_row0);
    const unsigned int end = min(b.first_row + b.rows, sat_row0 + b.rows_per_sat);
    const unsigned int t_early = t == 0 ? b.lags - 1 : t - 1;
    const unsigned int t_late = t + 1 == b.lags ? 0 : t + 1;
    const std::size_t at = std::size_t(sat) * b.lags + t;

    bool started = begin > sat_row0;
    float best = 0.0f, early = 0.0f, late = 0.0f, largest = 0.0f;
    std::uint64_t best_cell = 0;
    double sum = 0.0;
    if (started) {
        best = sums.best_power[at];
        best_cell = sums.best_cell[at];
        early = sums.best_early[at];
        late = sums.best_late[at];
        largest = sums.max_power[at];
        sum = sums.sum_power[at];
    }
    for (unsigned int row = begin; row < end; ++row) {
        const float* row_powers = powers + std::size_t(row - b.first_row) * b.lags;
        const float s = row_powers[t];
        const unsigned int in_sat = row - sat_row0;
        const std::uint64_t cell =
            pcps_cell_index(in_sat / b.bins, in_sat % b.bins, t, b.bins, b.lags);
        if (!started || pcps_better_cell(s, cell, best, best_cell)) {
            best = s;
            best_cell = cell;
            early = row_powers[t_early];
            late = row_powers[t_late];
        }
        largest = !started ? s : (largest < s ? s : largest);
        sum = started ? sum + static_cast<double>(s) : static_cast<double>(s);
        started = true;
    }
    sums.best_power[at] = best;
    sums.best_cell[at] = best_cell;
    sums.best_early[at] = early;
    sums.best_late[at] = late;
    sums.max_power[at] = largest;
    sums.sum_power[at] = sum;
}

//! A candidate of the peak search: a cell and its power.
struct peak_candidate {
    float power;
    std::uint64_t cell;
};

//! The better of two candidates under the rule header's total order.
struct better_candidate {
    __device__ __forceinline__ peak_candidate operator()(const peak_candidate& a,
                                                         const peak_candidate& b) const
    {
        return pcps_better_cell(b.power, b.cell, a.power, a.cell) ? b : a;
    }
};

//! The larger of two powers, as the CPU backend's std::max keeps its first argument.
struct larger_power {
    __device__ __forceinline__ float operator()(float a, float b) const
    {
        return a < b ? b : a;
    }
};

using candidate_reduce = cub::BlockReduce<peak_candidate, peak_threads>;
using sum_reduce = cub::BlockReduce<double, peak_threads>;
using max_reduce = cub::BlockReduce<float, peak_threads>;

/*!
 * One block per satellite: reduces its lag summaries to its pcps_grid_peak. The peak is
 * the best of the per-lag best cells (a total order: the cell a scan over all cells in
 * order finds); the mean is the sum over lags of the per-lag sums over the cell count;
 * the second peak the largest per-lag maximum at lags more than \p exclusion from the
 * peak's (0 when there is none, as on the CPU).
 */
__global__ void __launch_bounds__(peak_threads) peak_kernel(lag_summaries sums,
                                                            unsigned int lags,
                                                            unsigned int bins,
                                                            unsigned int exclusion,
                                                            double cells,
                                                            pcps_grid_peak* peaks)
{
    __shared__ union {
        candidate_reduce::TempStorage candidate;
        sum_reduce::TempStorage sum;
        max_reduce::TempStorage max;
    } storage;
    __shared__ peak_candidate winner;
    __shared__ double total;
    const std::size_t base = std::size_t(blockIdx.x) * lags;

    peak_candidate mine{ 0.0f, 0 };
    bool any = false;
    double sum = 0.0;
    for (unsigned int t = threadIdx.x; t < lags; t += peak_threads) {
        const peak_candidate c{ sums.best_power[base + t], sums.best_cell[base + t] };
        mine = !any ? c : better_candidate{}(mine, c);
        any = true;
        sum += sums.sum_power[base + t];
    }
    // Threads without a lag (lags < peak_threads) offer lag 0's candidate, which the
    // reduction then meets twice: harmless for a total order.
    if (!any)
        mine = peak_candidate{ sums.best_power[base], sums.best_cell[base] };
    const peak_candidate best =
        candidate_reduce(storage.candidate).Reduce(mine, better_candidate{});
    if (threadIdx.x == 0)
        winner = best;
    __syncthreads();
    const double all = sum_reduce(storage.sum).Sum(sum);
    if (threadIdx.x == 0)
        total = all;
    __syncthreads();

    const unsigned int peak_lag = static_cast<unsigned int>(winner.cell % lags);
    float second = 0.0f;
    for (unsigned int t = threadIdx.x; t < lags; t += peak_threads)
        if (pcps_lag_distance(t, peak_lag, lags) > exclusion)
            second = larger_power{}(second, sums.max_power[base + t]);
    const float second_all = max_reduce(storage.max).Reduce(second, larger_power{});

    if (threadIdx.x == 0) {
        pcps_grid_peak p;
        p.peak_power = winner.power;
        p.early_power = sums.best_early[base + peak_lag];
        p.late_power = sums.best_late[base + peak_lag];
        p.mean_power = total / cells;
        p.second_power = second_all;
        p.grid = static_cast<std::size_t>(winner.cell / (std::uint64_t(bins) * lags));
        p.doppler_bin = static_cast<std::size_t>((winner.cell / lags) % bins);
        p.lag = peak_lag;
        peaks[blockIdx.x] = p;
    }
}

//! Grows \p buffer to at least \p count elements (contents not kept).
template <typename T>
void ensure_size(device_buffer<T>& buffer, std::size_t count)
{
    if (buffer.size() < count)
        buffer = device_buffer<T>(count);
}

} // namespace

/*!
 * Device state: the stream, the satellite set's replica bank, the input and its
 * spectra, one batch, the lag summaries, and cuFFT plans of every batch count used so
 * far, all M points, sharing one work area (they run one at a time on the stream).
 */
struct pcps_acquisition_cuda::workspace {
    cuda_stream stream;
    cuda_event start{ true }, uploaded{ true }, computed{ true };

    std::vector<int> satellites; //!< the set the bank holds
    device_buffer<float2> bank;  //!< replica spectra, M points each (not conjugated)
    device_buffer<unsigned int> bin_spectrum; //!< satellites x bins
    device_buffer<unsigned int> bin_shift;    //!< satellites x bins

    staged_device_array<std::complex<float>> input_cf32; //!< K N samples
    staged_device_array<std::int16_t> input_ci16;        //!< 2 K N integers
    device_buffer<float2> spectra;  //!< the integrations of a batch, M points each
    device_buffer<float2> products; //!< one batch, then its inverse transforms in place
    device_buffer<float> powers;    //!< rows x lags: the batch's rows' powers so far

    device_buffer<float> best_power, best_early, best_late, max_power;
    device_buffer<std::uint64_t> best_cell;
    device_buffer<double> sum_power;
    device_buffer<pcps_grid_peak> peaks;
    pinned_buffer<pcps_grid_peak> peaks_host;

    std::size_t points = 0;                  //!< M
    device_buffer<unsigned char> fft_work;   //!< declared before the plans: outlives them
    std::map<std::size_t, cufft_plan> plans; //!< by batch count

    //! The plan of \p count transforms, made on first use. A plan that needs a larger
    //! work area than the shared one replaces it once the stream is idle.
    const cufft_plan& plan(std::size_t count)
    {
        auto found = plans.find(count);
        if (found != plans.end())
            return found->second;
        cufft_plan made(static_cast<int>(points),
                        CUFFT_C2C,
                        static_cast<int>(count),
                        cufft_plan::external_work_area{});
        made.set_stream(stream.get());
        if (made.work_size() > fft_work.size()) {
            stream.synchronize(); // earlier executions may still use the old area
            fft_work = device_buffer<unsigned char>(made.work_size());
            for (const auto& entry : plans)
                if (entry.second.work_size() > 0)
                    entry.second.set_work_area(fft_work.get());
        }
        if (made.work_size() > 0)
            made.set_work_area(fft_work.get());
        return plans.emplace(count, std::move(made)).first->second;
    }

    //! \p count transforms of M points in place at \p data.
    void transform(float2* data, std::size_t count, int direction)
    {
        CUDADSP_CUFFT(cufftExecC2C(plan(count).get(),
                                   reinterpret_cast<cufftComplex*>(data),
                                   reinterpret_cast<cufftComplex*>(data),
                                   direction));
    }

    lag_summaries summaries()
    {
        return { best_power.get(), best_cell.get(), best_early.get(),
                 best_late.get(),  max_power.get(), sum_power.get() };
    }
};

pcps_acquisition_cuda::pcps_acquisition_cuda(const pcps_acquisition_config& config,
                                             const device_selection& device)
    : pcps_acquisition(config, device)
{
    device_guard guard(d_device.cuda_ordinal);
    d_ws = std::make_unique<workspace>();
    d_ws->points = transform_points();
    const std::size_t transform_bytes = d_ws->points * sizeof(float2);
    std::size_t transforms = config.batch_transforms;
    if (transforms == 0) {
        std::size_t free_bytes = 0, total_bytes = 0;
        CUDADSP_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
        transforms = std::min(max_batch_bytes, free_bytes / 4) / transform_bytes;
    }
    // One grid's replicas belong to one batch (each integration keeps their largest).
    d_batch_transforms = std::clamp<std::size_t>(
        transforms,
        replicas_per_grid(),
        std::max(replicas_per_grid(), max_batch_elements / d_ws->points));
}

pcps_acquisition_cuda::~pcps_acquisition_cuda()
{
    try {
        device_guard guard(d_device.cuda_ordinal);
        d_ws.reset();
    } catch (...) {
        // Destructors must not throw; the device is already in an error state.
    }
}

std::size_t pcps_acquisition_cuda::transform_points() const
{
    return 2 * d_config.coherent_samples();
}

pcps_acquisition_cuda::schedule
pcps_acquisition_cuda::schedule_for(std::size_t satellites) const
{
    schedule s;
    s.rows = satellites * grids() * d_config.doppler_bins();
    const std::size_t row_transforms = replicas_per_grid() * d_config.noncoherent_dwells;
    if (row_transforms <= d_batch_transforms) {
        s.dwells_per_batch = d_config.noncoherent_dwells;
        s.rows_per_batch = std::min(s.rows, d_batch_transforms / row_transforms);
    } else {
        s.dwells_per_batch = d_batch_transforms / replicas_per_grid();
        s.rows_per_batch = 1;
    }
    return s;
}

std::vector<pcps_acquisition_cuda::fft_call>
pcps_acquisition_cuda::search_transforms(std::size_t satellites) const
{
    const schedule s = schedule_for(satellites);
    const std::size_t K = d_config.noncoherent_dwells;
    const std::size_t R = replicas_per_grid();
    std::vector<fft_call> calls;
    const bool chunked = s.dwells_per_batch < K;
    if (!chunked)
        calls.push_back({ K, false });
    for (std::size_t r0 = 0; r0 < s.rows; r0 += s.rows_per_batch) {
        const std::size_t rows = std::min(s.rows_per_batch, s.rows - r0);
        for (std::size_t k0 = 0; k0 < K; k0 += s.dwells_per_batch) {
            const std::size_t dwells = std::min(s.dwells_per_batch, K - k0);
            if (chunked)
                calls.push_back({ dwells, false });
            calls.push_back({ rows * dwells * R, true });
        }
    }
    return calls;
}

void pcps_acquisition_cuda::prepare(const std::vector<int>& satellites)
{
    workspace& ws = *d_ws;
    if (ws.bank.get() && ws.satellites == satellites)
        return;
    ws.satellites.clear(); // until the new bank is complete
    const std::size_t M = ws.points;
    const std::size_t G = grids();
    const std::size_t R = replicas_per_grid();
    const std::size_t B = d_config.doppler_bins();
    const std::size_t nsat = satellites.size();

    std::vector<doppler_plan> plans;
    std::vector<std::size_t> first_spectrum(nsat + 1, 0);
    std::vector<unsigned int> bin_spectrum(nsat * B), bin_shift(nsat * B);
    for (std::size_t s = 0; s < nsat; ++s) {
        plans.push_back(replica_plan(satellites[s]));
        const doppler_plan& p = plans.back();
        first_spectrum[s + 1] = first_spectrum[s] + p.residue_hz.size() * G * R;
        for (std::size_t b = 0; b < B; ++b) {
            bin_spectrum[s * B + b] =
                static_cast<unsigned int>(first_spectrum[s] + p.bin_residue[b] * G * R);
            bin_shift[s * B + b] = static_cast<unsigned int>(p.bin_shift[b]);
        }
    }
    // The product kernel indexes the bank with 32 bits per spectrum.
    if (first_spectrum[nsat] > 0xffffffffu)
        throw std::runtime_error("pcps_acquisition: too many replica spectra (" +
                                 std::to_string(first_spectrum[nsat]) + ")");

    cudaStream_t stream = ws.stream.get();
    ws.bank = device_buffer<float2>();
    ws.bank = device_buffer<float2>(first_spectrum[nsat] * M);
    ws.bin_spectrum = device_buffer<unsigned int>(nsat * B);
    ws.bin_shift = device_buffer<unsigned int>(nsat * B);
    CUDADSP_CUDA(cudaMemcpyAsync(ws.bin_spectrum.get(),
                                 bin_spectrum.data(),
                                 nsat * B * sizeof(unsigned int),
                                 cudaMemcpyHostToDevice,
                                 stream));
    CUDADSP_CUDA(cudaMemcpyAsync(ws.bin_shift.get(),
                                 bin_shift.data(),
                                 nsat * B * sizeof(unsigned int),
                                 cudaMemcpyHostToDevice,
                                 stream));

    // One satellite's replicas at a time through one pinned buffer: made on the host
    // by the frontend's make_replica() (the CPU backend's replicas), uploaded and
    // transformed in batches.
    std::size_t largest = 0;
    for (std::size_t s = 0; s < nsat; ++s)
        largest = std::max(largest, first_spectrum[s + 1] - first_spectrum[s]);
    pinned_buffer<std::complex<float>> staging(largest * M);
    for (std::size_t s = 0; s < nsat; ++s) {
        const std::size_t count = first_spectrum[s + 1] - first_spectrum[s];
        const doppler_plan& p = plans[s];
        parallel_ranges(count, count, [&](std::size_t first, std::size_t end) {
            for (std::size_t i = first; i < end; ++i) {
                // i = (residue G + grid) R + replica, the bank's order.
                const std::size_t replica = i % R;
                const std::size_t grid = (i / R) % G;
                const std::size_t residue = i / (R * G);
                make_replica(satellites[s],
                             grid,
                             replica,
                             p.residue_hz[residue],
                             staging.get() + i * M);
            }
        });
        float2* target = ws.bank.get() + first_spectrum[s] * M;
        CUDADSP_CUDA(cudaMemcpyAsync(target,
                                     staging.get(),
                                     count * M * sizeof(float2),
                                     cudaMemcpyHostToDevice,
                                     stream));
        for (std::size_t done = 0; done < count; done += d_batch_transforms)
            ws.transform(target + done * M,
                         std::min(d_batch_transforms, count - done),
                         CUFFT_FORWARD);
        ws.stream.synchronize(); // the staging buffer is refilled for the next one
    }
    ws.satellites = satellites;
}

void pcps_acquisition_cuda::compute_grids(const void* samples,
                                          sample_format format,
                                          const std::vector<int>& satellites,
                                          pcps_grid_peak* peaks)
{
    device_guard guard(d_device.cuda_ordinal);
    workspace& ws = *d_ws;
    cudaStream_t stream = ws.stream.get();
    prepare(satellites);

    const std::size_t nsat = satellites.size();
    const std::size_t N = d_config.coherent_samples();
    const std::size_t M = ws.points;
    const std::size_t K = d_config.noncoherent_dwells;
    const std::size_t R = replicas_per_grid();
    const std::size_t B = d_config.doppler_bins();
    const std::size_t lags = d_config.code_phase_bins();
    const schedule s = schedule_for(nsat);
    const bool chunked = s.dwells_per_batch < K;

    // Every buffer and plan before the first enqueue, so that none is replaced while
    // the stream still uses it.
    ensure_size(ws.spectra, s.dwells_per_batch * M);
    ensure_size(ws.products, s.rows_per_batch * s.dwells_per_batch * R * M);
    ensure_size(ws.powers, s.rows_per_batch * lags);
    for (auto* b : { &ws.best_power, &ws.best_early, &ws.best_late, &ws.max_power })
        ensure_size(*b, nsat * lags);
    ensure_size(ws.best_cell, nsat * lags);
    ensure_size(ws.sum_power, nsat * lags);
    ensure_size(ws.peaks, nsat);
    if (ws.peaks_host.size() < nsat)
        ws.peaks_host = pinned_buffer<pcps_grid_peak>(nsat);
    for (const fft_call& call : search_transforms(nsat))
        ws.plan(call.batch);

    ws.start.record(stream);
    const void* d_samples = nullptr;
    if (format == sample_format::cf32)
        d_samples = ws.input_cf32.upload(
            static_cast<const std::complex<float>*>(samples), K * N, stream);
    else
        d_samples = ws.input_ci16.upload(
            static_cast<const std::int16_t*>(samples), 2 * K * N, stream);
    ws.uploaded.record(stream);

    const auto load = [&](std::size_t k0, std::size_t dwells) {
        (format == sample_format::cf32 ? enqueue_load<float2>
                                       : enqueue_load<short2>)(d_samples,
                                                               k0,
                                                               dwells,
                                                               N,
                                                               M,
                                                               ws.spectra.get(),
                                                               stream);
        ws.transform(ws.spectra.get(), dwells, CUFFT_FORWARD);
    };

    // The inverse transform is unnormalised: 1 / M brings c back to the direct sum.
    const float scale = 1.0f / static_cast<float>(M);
    batch_layout layout;
    layout.M = static_cast<unsigned int>(M);
    layout.replicas = static_cast<unsigned int>(R);
    layout.bins = static_cast<unsigned int>(B);
    layout.rows_per_sat = static_cast<unsigned int>(grids() * B);
    layout.periods = static_cast<unsigned int>(d_config.coherent_periods);
    layout.grids = static_cast<unsigned int>(grids());
    layout.lags = static_cast<unsigned int>(lags);
    if (!chunked)
        load(0, K);
    for (std::size_t r0 = 0; r0 < s.rows; r0 += s.rows_per_batch) {
        const std::size_t rows = std::min(s.rows_per_batch, s.rows - r0);
        layout.first_row = static_cast<unsigned int>(r0);
        layout.rows = static_cast<unsigned int>(rows);
        for (std::size_t k0 = 0; k0 < K; k0 += s.dwells_per_batch) {
            const std::size_t dwells = std::min(s.dwells_per_batch, K - k0);
            const bool last = k0 + dwells == K;
            if (chunked)
                load(k0, dwells);
            layout.dwells = static_cast<unsigned int>(dwells);
            layout.first_dwell = static_cast<unsigned int>(k0);
            products_kernel<<<blocks_for(rows * R * (M / 2), elementwise_threads),
                              elementwise_threads,
                              0,
                              stream>>>(layout,
                                        ws.spectra.get(),
                                        ws.bank.get(),
                                        ws.bin_spectrum.get(),
                                        ws.bin_shift.get(),
                                        ws.products.get());
            CUDADSP_CUDA_LAUNCHED("products_kernel");
            ws.transform(ws.products.get(), rows * dwells * R, CUFFT_INVERSE);
            accumulate_kernel<<<blocks_for(rows * lags, elementwise_threads),
                                elementwise_threads,
                                0,
                                stream>>>(
                layout, ws.products.get(), ws.powers.get(), k0 == 0, scale);
            CUDADSP_CUDA_LAUNCHED("accumulate_kernel");
            if (!last)
                continue;
            const std::size_t first_sat = r0 / layout.rows_per_sat;
            const std::size_t last_sat = (r0 + rows - 1) / layout.rows_per_sat;
            const dim3 grid(blocks_for(lags, fold_threads),
                            static_cast<unsigned int>(last_sat - first_sat + 1));
            fold_kernel<<<grid, fold_threads, 0, stream>>>(
                layout,
                ws.powers.get(),
                static_cast<unsigned int>(first_sat),
                ws.summaries());
            CUDADSP_CUDA_LAUNCHED("fold_kernel");
        }
    }

    const std::size_t exclusion =
        pcps_exclusion_lags(d_config.sample_rate_hz, d_config.chip_rate_cps());
    peak_kernel<<<static_cast<unsigned int>(nsat), peak_threads, 0, stream>>>(
        ws.summaries(),
        static_cast<unsigned int>(lags),
        static_cast<unsigned int>(B),
        static_cast<unsigned int>(std::min<std::size_t>(exclusion, lags)),
        static_cast<double>(cells()),
        ws.peaks.get());
    CUDADSP_CUDA_LAUNCHED("peak_kernel");
    ws.computed.record(stream);
    CUDADSP_CUDA(cudaMemcpyAsync(ws.peaks_host.get(),
                                 ws.peaks.get(),
                                 nsat * sizeof(pcps_grid_peak),
                                 cudaMemcpyDeviceToHost,
                                 stream));
    ws.stream.synchronize();
    std::copy(ws.peaks_host.get(), ws.peaks_host.get() + nsat, peaks);
    d_timing.upload_ms = ws.uploaded.elapsed_ms_since(ws.start);
    d_timing.compute_ms = ws.computed.elapsed_ms_since(ws.uploaded);
}

} // namespace core
} // namespace cudadsp
} // namespace gr
