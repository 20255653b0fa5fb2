/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/pcps_acquisition_cpu.h"
#include "gnss/pcps_acquisition_rule.h"
#include "runtime/fftw_support.h"
#include "runtime/parallel_ranges.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace gr {
namespace cudadsp {
namespace core {

struct pcps_acquisition_cpu::fftw_plans {
    explicit fftw_plans(std::size_t m)
    {
        const auto lock = fftw_planner_lock();
        // ESTIMATE plans do not touch the array; they fix its alignment, which
        // fftwf_malloc gives every buffer the plans later run on.
        auto buffer = fftw_allocate<fftwf_complex>(m);
        const int n = static_cast<int>(m);
        forward =
            fftwf_plan_dft_1d(n, buffer.get(), buffer.get(), FFTW_FORWARD, FFTW_ESTIMATE);
        inverse = fftwf_plan_dft_1d(
            n, buffer.get(), buffer.get(), FFTW_BACKWARD, FFTW_ESTIMATE);
        if (!forward || !inverse) {
            destroy();
            throw std::runtime_error("pcps_acquisition: FFTW could not plan " +
                                     std::to_string(m) + "-point transforms");
        }
    }
    ~fftw_plans()
    {
        const auto lock = fftw_planner_lock();
        destroy();
    }
    void destroy()
    {
        for (fftwf_plan* p : { &forward, &inverse }) {
            if (*p)
                fftwf_destroy_plan(*p);
            *p = nullptr;
        }
    }
    fftwf_plan forward = nullptr; //!< 2N points, in place
    fftwf_plan inverse = nullptr; //!< 2N points, in place
};

/*!
 * The conjugate replica spectra of one satellite set: spectra[s][(r G + g) R + j] is
 * satellite s's residue r, grid g, replica j (G grids, R replicas per grid), 2N points.
 */
struct pcps_acquisition_cpu::replica_bank {
    std::vector<int> satellites;
    std::vector<doppler_plan> plans;
    std::vector<std::vector<fftw_array<fftwf_complex>>> spectra;
};

pcps_acquisition_cpu::pcps_acquisition_cpu(const pcps_acquisition_config& config,
                                           const device_selection& device)
    : pcps_acquisition(config, device),
      d_plans(std::make_unique<fftw_plans>(2 * config.coherent_samples()))
{
}

pcps_acquisition_cpu::~pcps_acquisition_cpu() = default;

void pcps_acquisition_cpu::prepare(const std::vector<int>& satellites)
{
    if (d_bank && d_bank->satellites == satellites)
        return;
    auto bank = std::make_unique<replica_bank>();
    bank->satellites = satellites;
    const std::size_t m = 2 * d_config.coherent_samples();
    const std::size_t per_residue = grids() * replicas_per_grid();
    struct job {
        std::size_t sat, residue, grid, replica;
    };
    std::vector<job> jobs;
    for (std::size_t s = 0; s < satellites.size(); ++s) {
        bank->plans.push_back(replica_plan(satellites[s]));
        const std::size_t residues = bank->plans.back().residue_hz.size();
        bank->spectra.emplace_back(residues * per_residue);
        for (std::size_t r = 0; r < residues; ++r)
            for (std::size_t g = 0; g < grids(); ++g)
                for (std::size_t j = 0; j < replicas_per_grid(); ++j)
                    jobs.push_back({ s, r, g, j });
    }
    for (auto& list : bank->spectra)
        for (auto& spectrum : list)
            spectrum = fftw_allocate<fftwf_complex>(m);
    parallel_ranges(jobs.size(), jobs.size(), [&](std::size_t first, std::size_t end) {
        for (std::size_t i = first; i < end; ++i) {
            const job& jb = jobs[i];
            fftwf_complex* out = bank->spectra[jb.sat][(jb.residue * grids() + jb.grid) *
                                                           replicas_per_grid() +
                                                       jb.replica]
                                     .get();
            make_replica(satellites[jb.sat],
                         jb.grid,
                         jb.replica,
                         bank->plans[jb.sat].residue_hz[jb.residue],
                         reinterpret_cast<std::complex<float>*>(out));
            fftwf_execute_dft(d_plans->forward, out, out);
            for (std::size_t k = 0; k < m; ++k)
                out[k][1] = -out[k][1];
        }
    });
    d_bank = std::move(bank);
}

void pcps_acquisition_cpu::compute_grids(const void* samples,
                                         sample_format format,
                                         const std::vector<int>& satellites,
                                         pcps_grid_peak* peaks)
{
    prepare(satellites);
    const std::size_t n = d_config.coherent_samples();
    const std::size_t m = 2 * n;
    const std::size_t k_dwells = d_config.noncoherent_dwells;
    const std::size_t bins = d_config.doppler_bins();
    const std::size_t lags = d_config.code_phase_bins();
    const std::size_t ngrids = grids();
    const std::size_t replicas = replicas_per_grid();
    const std::size_t nsat = satellites.size();

    // The K integrations, zero-padded to 2N and transformed.
    std::vector<fftw_array<fftwf_complex>> input(k_dwells);
    for (auto& spectrum : input)
        spectrum = fftw_allocate<fftwf_complex>(m);
    parallel_ranges(k_dwells, k_dwells, [&](std::size_t first, std::size_t end) {
        for (std::size_t k = first; k < end; ++k) {
            fftwf_complex* x = input[k].get();
            if (format == sample_format::cf32) {
                const auto* in = static_cast<const std::complex<float>*>(samples) + k * n;
                for (std::size_t i = 0; i < n; ++i) {
                    x[i][0] = in[i].real();
                    x[i][1] = in[i].imag();
                }
            } else {
                const auto* in = static_cast<const std::int16_t*>(samples) + 2 * k * n;
                for (std::size_t i = 0; i < n; ++i) {
                    x[i][0] = in[2 * i];
                    x[i][1] = in[2 * i + 1];
                }
            }
            std::fill(x[n], x[n] + 2 * (m - n), 0.0f);
            fftwf_execute_dft(d_plans->forward, x, x);
        }
    });

    // S of every (satellite, grid, bin): K products and inverse transforms each.
    const std::size_t rows = nsat * ngrids * bins;
    d_power.assign(rows * lags, 0.0f);
    // The inverse transform is unnormalised: 1 / 2N brings c back to the direct sum.
    const float scale = 1.0f / static_cast<float>(m);
    parallel_ranges(rows, rows, [&](std::size_t first, std::size_t end) {
        auto work = fftw_allocate<fftwf_complex>(m);
        std::vector<float> best(lags);
        fftwf_complex* c = work.get();
        for (std::size_t row = first; row < end; ++row) {
            const std::size_t s = row / (ngrids * bins);
            const std::size_t g = (row / bins) % ngrids;
            const std::size_t b = row % bins;
            const doppler_plan& plan = d_bank->plans[s];
            const std::size_t shift = plan.bin_shift[b];
            float* power = d_power.data() + row * lags;
            for (std::size_t k = 0; k < k_dwells; ++k) {
                const fftwf_complex* x = input[k].get();
                for (std::size_t j = 0; j < replicas; ++j) {
                    const fftwf_complex* r =
                        d_bank
                            ->spectra[s]
                                     [(plan.bin_residue[b] * ngrids + g) * replicas + j]
                            .get();
                    // c[i] = x[i] conj(R[(i - shift) mod 2N]) (r holds conj(R)).
                    for (std::size_t i = 0; i < m; ++i) {
                        const std::size_t e = i >= shift ? i - shift : i + m - shift;
                        const float xr = x[i][0], xi = x[i][1];
                        const float rr = r[e][0], ri = r[e][1];
                        c[i][0] = xr * rr - xi * ri;
                        c[i][1] = xr * ri + xi * rr;
                    }
                    fftwf_execute_dft(d_plans->inverse, c, c);
                    for (std::size_t t = 0; t < lags; ++t) {
                        const float re = c[t][0] * scale, im = c[t][1] * scale;
                        const float p = re * re + im * im;
                        best[t] = j == 0 ? p : std::max(best[t], p);
                    }
                }
                for (std::size_t t = 0; t < lags; ++t)
                    power[t] += best[t];
            }
        }
    });

    // Each satellite's peak, neighbours, mean and second peak (rule header order).
    const std::size_t exclusion =
        pcps_exclusion_lags(d_config.sample_rate_hz, d_config.chip_rate_cps());
    parallel_ranges(nsat, nsat, [&](std::size_t first, std::size_t end) {
        for (std::size_t s = first; s < end; ++s) {
            const float* grid = d_power.data() + s * ngrids * bins * lags;
            const std::size_t cells = ngrids * bins * lags;
            std::size_t best = 0;
            double sum = 0.0;
            for (std::size_t i = 0; i < cells; ++i) {
                sum += grid[i];
                if (pcps_better_cell(grid[i], i, grid[best], best))
                    best = i;
            }
            pcps_grid_peak& p = peaks[s];
            p.grid = best / (bins * lags);
            p.doppler_bin = (best / lags) % bins;
            p.lag = best % lags;
            const float* row = grid + (best - p.lag);
            p.peak_power = grid[best];
            p.early_power = row[(p.lag + lags - 1) % lags];
            p.late_power = row[(p.lag + 1) % lags];
            p.mean_power = sum / static_cast<double>(cells);
            float second = 0.0f;
            for (std::size_t i = 0; i < cells; ++i)
                if (pcps_lag_distance(i % lags, p.lag, lags) > exclusion)
                    second = std::max(second, grid[i]);
            p.second_power = second;
        }
    });
}

} // namespace core
} // namespace cudadsp
} // namespace gr
