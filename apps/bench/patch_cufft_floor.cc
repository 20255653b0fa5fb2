/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The cuFFT floor of cudadsp_bench's section patch: the transforms the patch
// correlator's CUDA backend runs, alone, with its layouts and batches.

#include "patch_cufft_floor.h"
#include "runtime/cuda_check.h"
#include "runtime/cuda_resources.h"
#include "runtime/cufft_plan.h"
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bench {
namespace patch_bench {

namespace {

// ---------------------------------------------------------------------------------
// The cuFFT floor
// ---------------------------------------------------------------------------------

//! The four transform kinds of one batch size, with the engine's layouts.
struct floor_plans {
    core::cufft_plan range_forward, range_inverse, forward_2d, inverse_2d;

    std::array<const core::cufft_plan*, 4> all() const
    {
        return { &range_forward, &range_inverse, &forward_2d, &inverse_2d };
    }
};

//! The sizes of one patch's buffers in the floor (elements).
struct floor_layout {
    int N, M, npy;
    std::size_t patch_elements, row_elements, real_elements, bins;
};

floor_layout floor_layout_of(const geometry& g)
{
    floor_layout l;
    l.N = g.npx;
    l.M = g.range_len();
    l.npy = g.npy;
    l.patch_elements = std::size_t(l.npy) * l.N;
    l.row_elements = std::size_t(l.npy) * l.M;
    l.real_elements = std::size_t(l.npy) * (l.N + 2);
    l.bins = std::size_t(l.npy) * (l.N / 2 + 1);
    return l;
}

//! Plans for \p count patches a launch, their work areas left to the caller.
floor_plans make_floor_plans(const geometry& g, const floor_layout& l, int count)
{
    const int N = l.N, M = l.M, npy = l.npy;
    const core::cufft_plan::external_work_area external{};
    floor_plans p;
    if (g.ri > 1) {
        const int n[1] = { N }, in_embed[1] = { N }, out_embed[1] = { M };
        p.range_forward = core::cufft_plan(
            1, n, in_embed, 1, N, out_embed, 1, M, CUFFT_C2C, count * npy, external);
        const int m[1] = { M };
        p.range_inverse = core::cufft_plan(
            1, m, m, 1, M, m, 1, M, CUFFT_C2C, 2 * count * npy, external);
    }
    const int n2[2] = { npy, N };
    const int real_embed[2] = { npy, N + 2 };
    const int complex_embed[2] = { npy, N / 2 + 1 };
    p.forward_2d = core::cufft_plan(2,
                                    n2,
                                    real_embed,
                                    1,
                                    int(l.real_elements),
                                    complex_embed,
                                    1,
                                    int(l.bins),
                                    CUFFT_R2C,
                                    2 * count,
                                    external);
    p.inverse_2d = core::cufft_plan(2,
                                    n2,
                                    complex_embed,
                                    1,
                                    int(l.bins),
                                    real_embed,
                                    1,
                                    int(l.real_elements),
                                    CUFFT_C2R,
                                    count,
                                    external);
    return p;
}

//! One work area, as large as the largest plan needs, shared by all of \p sets (they
//! run one after the other on \p stream), and the plans bound to \p stream.
core::device_buffer<unsigned char> share_work_area(const std::vector<floor_plans>& sets,
                                                   cudaStream_t stream)
{
    std::size_t work = 0;
    for (const auto& s : sets)
        for (const auto* p : s.all())
            work = std::max(work, p->work_size());
    core::device_buffer<unsigned char> work_area(std::max<std::size_t>(work, 1));
    for (const auto& s : sets)
        for (const auto* p : s.all())
            if (p->get()) {
                p->set_stream(stream);
                if (p->work_size())
                    p->set_work_area(work_area.get());
            }
    return work_area;
}

//! Bytes the floor's transforms read and write at least, each its input and its
//! output once.
double floor_bytes(const geometry& g, const floor_layout& l, std::size_t npatches)
{
    const double n = double(npatches);
    double bytes = 0;
    if (g.ri > 1)
        bytes += 2 * n * l.patch_elements * 8 * 2 + 2 * n * l.row_elements * 8 * 2;
    bytes += 2 * n * (l.patch_elements * 4 + l.bins * 8) +
             n * (l.bins * 8 + l.patch_elements * 4);
    return bytes;
}

} // namespace

row cufft_floor(const geometry& g,
                std::size_t npatches,
                std::size_t batch,
                const cfloat* master,
                const cfloat* aligned,
                const void* fill,
                int repeats)
{
    const floor_layout l = floor_layout_of(g);
    const int N = l.N, M = l.M, npy = l.npy;
    batch = std::min(batch, npatches);

    core::cuda_stream stream;
    core::device_buffer<cfloat> own_input;
    if (!master) {
        own_input = core::device_buffer<cfloat>(2 * batch * l.patch_elements);
        CUDADSP_CUDA(cudaMemcpyAsync(own_input.get(),
                                     fill,
                                     own_input.size() * sizeof(cfloat),
                                     cudaMemcpyDeviceToDevice,
                                     stream.get()));
    }
    core::device_buffer<cfloat> rows_in, rows_out;
    if (g.ri > 1) {
        rows_in = core::device_buffer<cfloat>(2 * batch * l.row_elements);
        rows_out = core::device_buffer<cfloat>(2 * batch * l.row_elements);
        CUDADSP_CUDA(cudaMemsetAsync(
            rows_in.get(), 0, rows_in.size() * sizeof(cfloat), stream.get()));
    }
    core::device_buffer<float> real_in(2 * batch * l.real_elements);
    core::device_buffer<cfloat> spectra(2 * batch * l.bins);
    core::device_buffer<float> real_out(batch * l.real_elements);
    // The real input: npx floats of patch data a row, the two padding floats zero.
    CUDADSP_CUDA(
        cudaMemsetAsync(real_in.get(), 0, real_in.size() * sizeof(float), stream.get()));
    CUDADSP_CUDA(cudaMemcpy2DAsync(real_in.get(),
                                   (N + 2) * sizeof(float),
                                   master ? static_cast<const void*>(master)
                                          : static_cast<const void*>(own_input.get()),
                                   N * sizeof(float),
                                   N * sizeof(float),
                                   2 * batch * npy,
                                   cudaMemcpyDeviceToDevice,
                                   stream.get()));

    const std::size_t tail = npatches % batch;
    std::vector<floor_plans> sets;
    sets.push_back(make_floor_plans(g, l, int(batch)));
    if (tail)
        sets.push_back(make_floor_plans(g, l, int(tail)));
    const auto work_area = share_work_area(sets, stream.get());

    auto c = [](const void* p) {
        return const_cast<cufftComplex*>(static_cast<const cufftComplex*>(p));
    };
    auto run_batch = [&](const floor_plans& p, std::size_t first, std::size_t count) {
        if (g.ri > 1) {
            const cfloat* in[2];
            if (master) {
                in[0] = master + first * l.patch_elements;
                in[1] = aligned + first * l.patch_elements;
            } else {
                in[0] = own_input.get();
                in[1] = own_input.get() + batch * l.patch_elements;
            }
            for (int img = 0; img < 2; ++img)
                CUDADSP_CUFFT(
                    cufftExecC2C(p.range_forward.get(),
                                 c(in[img]),
                                 c(rows_in.get() + img * count * l.row_elements),
                                 CUFFT_FORWARD));
            CUDADSP_CUFFT(cufftExecC2C(p.range_inverse.get(),
                                       c(rows_in.get()),
                                       c(rows_out.get()),
                                       CUFFT_INVERSE));
        }
        CUDADSP_CUFFT(cufftExecR2C(p.forward_2d.get(), real_in.get(), c(spectra.get())));
        CUDADSP_CUFFT(cufftExecC2R(p.inverse_2d.get(), c(spectra.get()), real_out.get()));
    };

    row r;
    r.clock = "events";
    r.samples = double(npatches) * 2 * double(l.patch_elements);
    r.bytes = floor_bytes(g, l, npatches);
    r.time = time_cuda(stream.get(), 2, repeats, [&] {
        for (std::size_t f = 0; f < npatches; f += batch) {
            const std::size_t count = std::min(batch, npatches - f);
            run_batch(count == batch ? sets[0] : sets[1], f, count);
        }
    });
    std::ostringstream note;
    note << "per patch pair: ";
    if (g.ri > 1)
        note << 2 * npy << " C2C of " << N << " + " << 2 * npy << " C2C of " << M << ", ";
    note << "2 R2C + 1 C2R of " << npy << " x " << N << "; batches of " << batch;
    r.note = note.str();
    return r;
}

} // namespace patch_bench
} // namespace bench
} // namespace cudadsp
} // namespace gr
