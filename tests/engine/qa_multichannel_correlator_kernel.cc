/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

// The multichannel correlator's CUDA kernel
// (lib/core/gnss/multichannel_correlator_kernel.cuh) compiled as host C++ and run on an
// emulation of the CUDA execution model: one std::thread per CUDA thread, __syncthreads
// and __syncwarp as barriers, warp shuffles through a per-warp exchange with a barrier on
// each side, dynamic shared memory per block. The kernel's logic (tiles, groups, walkers
// and their wraps, pieces between epoch ends and fold points, epochs across calls, passes
// over many taps, the tracking rule at each epoch end) then runs on a machine without a
// GPU, against the CPU backend on the same input: the fields that follow from the integer
// NCOs identical, correlations within 2e-4 of the epoch's scale, tracking outcomes
// the same; and bit-identical results however the stream is cut into calls.
//
// What the emulation cannot check: the CUDA compiler's code, launch configuration,
// memory ordering the hardware relaxes further than these barriers, and the host side
// of the backend (transfers, gathering of records). qa_multichannel_correlator_cuda
// checks those on a GPU.

#define CUDADSP_GNSS_KERNEL_EMULATION 1

#include <cuda_runtime_api.h> // float2, float4 and the CUDA host definitions
#include <vector_functions.h> // make_float2

// The CUDA keywords as plain C++ (cuda_runtime_api.h defines them as attributes).
#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __noinline__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

#include "gnss/multichannel_correlator_internal.h"
#include "qa_support.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/core/gnss_signal_simulator.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <condition_variable>
#include <cppunit/extensions/HelperMacros.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {
namespace gnss_kernel_emulation {

struct index3 {
    unsigned x, y, z;
};
thread_local index3 thread_index, block_index, block_dim;

class barrier
{
public:
    explicit barrier(unsigned n) : d_n(n) {}
    void wait()
    {
        std::unique_lock<std::mutex> lock(d_mutex);
        const unsigned long generation = d_generation;
        if (++d_waiting == d_n) {
            d_waiting = 0;
            ++d_generation;
            d_cv.notify_all();
        } else {
            d_cv.wait(lock, [&] { return d_generation != generation; });
        }
    }

private:
    std::mutex d_mutex;
    std::condition_variable d_cv;
    const unsigned d_n;
    unsigned d_waiting = 0;
    unsigned long d_generation = 0;
};

//! One block's shared memory, barriers and shuffle slots.
struct block_context {
    block_context(unsigned threads, std::size_t shared_bytes)
        : shared((shared_bytes + 15) / 16 + 1), block(threads)
    {
        for (unsigned w = 0; w < threads / 32; ++w)
            warps.push_back(std::make_unique<barrier>(32));
        exchange.resize(threads / 32);
    }
    std::vector<std::array<std::uint64_t, 2>> shared; // 16-byte aligned storage
    barrier block;
    std::vector<std::unique_ptr<barrier>> warps;
    std::vector<std::array<std::uint64_t, 32>> exchange;
};
thread_local block_context* current = nullptr;

unsigned char* shared_memory()
{
    return reinterpret_cast<unsigned char*>(current->shared.data());
}
int shared_s8(std::uint32_t address)
{
    return reinterpret_cast<const signed char*>(shared_memory())[address];
}

template <typename F>
void launch(unsigned grid, unsigned threads, std::size_t shared_bytes, F kernel)
{
    for (unsigned b = 0; b < grid; ++b) {
        block_context context(threads, shared_bytes);
        std::vector<std::thread> team;
        for (unsigned t = 0; t < threads; ++t)
            team.emplace_back([&, t] {
                thread_index = { t, 0, 0 };
                block_index = { b, 0, 0 };
                block_dim = { threads, 1, 1 };
                current = &context;
                kernel();
            });
        for (auto& member : team)
            member.join();
    }
}

} // namespace gnss_kernel_emulation
} // namespace core
} // namespace cudadsp
} // namespace gr

#define threadIdx (::gr::cudadsp::core::gnss_kernel_emulation::thread_index)
#define blockIdx (::gr::cudadsp::core::gnss_kernel_emulation::block_index)
#define blockDim (::gr::cudadsp::core::gnss_kernel_emulation::block_dim)

namespace {
namespace emu = ::gr::cudadsp::core::gnss_kernel_emulation;

void __syncthreads() { emu::current->block.wait(); }
void __syncwarp(unsigned = 0xffffffffu)
{
    emu::current->warps[emu::thread_index.x / 32]->wait();
}
template <typename T>
T __shfl_xor_sync(unsigned, T value, int lane_mask)
{
    static_assert(sizeof(T) <= 8, "shuffles move at most 64 bits");
    const unsigned lane = emu::thread_index.x % 32, warp = emu::thread_index.x / 32;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    emu::current->exchange[warp][lane] = bits;
    __syncwarp();
    bits = emu::current->exchange[warp][lane ^ static_cast<unsigned>(lane_mask)];
    __syncwarp();
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}
template <typename T>
T __ldg(const T* p)
{
    return *p;
}
std::size_t __cvta_generic_to_shared(const void* p)
{
    return static_cast<std::size_t>(static_cast<const unsigned char*>(p) -
                                    emu::shared_memory());
}
std::uint32_t min(std::uint32_t a, std::uint32_t b) { return a < b ? a : b; }
} // namespace

#include "gnss/multichannel_correlator_kernel.cuh"

namespace gr {
namespace cudadsp {
namespace core {

namespace {

using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

struct shape {
    unsigned warps;
    unsigned tile_samples;
    bool shared_tables;
};

/*!
 * The CUDA backend's device state for a fixed set of channels, in host memory, and the
 * kernel launched on it by the emulation; records gathered per channel in id order as
 * the backend does.
 */
class emulated_backend
{
public:
    emulated_backend(const multichannel_correlator_config& config,
                     std::vector<gnss_channel> channels,
                     shape s)
        : d_taps(config.taps), d_shape(s)
    {
        std::sort(channels.begin(), channels.end(), [](const auto& a, const auto& b) {
            return a.id < b.id;
        });
        gnss_code_table_pool pool;
        std::vector<gnss_channel_setup> setups;
        std::uint64_t max_step = 1;
        for (const auto& c : channels) {
            c.validate(config);
            setups.push_back(make_gnss_channel_setup(c, config, 0, pool));
            const auto& p = setups.back().params;
            max_step =
                std::max({ max_step, p.code_step_max, setups.back().state.code_step });
        }
        const std::size_t C = 2 * d_taps;
        d_shortest = ~std::uint64_t(0);
        for (const auto& setup : setups) {
            const gnss_channel_params& p = setup.params;
            d_params.push_back(p);
            d_states.push_back(setup.state);
            for (std::size_t k = 0; k < d_taps; ++k)
                d_shifts.push_back(
                    gnss_kernel::normalized_tap_shift(setup.tap_shifts[k], p.entries));
            const std::uint64_t own_max =
                std::max(p.code_step_max, setup.state.code_step);
            const std::size_t length =
                gnss_kernel::extended_table_length(p.entries, max_step);
            d_codes.push_back(
                gnss_cuda_code{ static_cast<std::uint32_t>(d_tables.size()),
                                p.entries,
                                gnss_kernel::wrap_groups_for(p.entries, own_max),
                                static_cast<std::uint32_t>(length) });
            for (std::size_t i = 0; i < length; ++i)
                d_tables.push_back((*setup.code)[i % setup.code->size()]);
            d_stride = std::max(d_stride, length);
            const std::uint64_t n = (p.epoch_length + own_max - 1) / own_max;
            d_shortest = std::min<std::uint64_t>(d_shortest, n > 1 ? n - 1 : 1);
        }
        d_epoch_sums.assign(setups.size() * C, 0.0);
        d_lane_partials.assign(setups.size() * C * 32, 0.0f);
        for (std::uint32_t r = 0; r < setups.size(); ++r)
            d_order.push_back(r);
    }

    void process(const cfloat* x, std::size_t n, gnss_correlator_results& out)
    {
        out.taps = d_taps;
        if (n == 0)
            return;
        const std::size_t ranks = d_params.size();
        const std::size_t capacity = n / d_shortest + 2;
        std::vector<gnss_epoch_record> records(ranks * capacity);
        std::vector<float2> correlations(ranks * capacity * d_taps);
        std::vector<std::uint32_t> counts(ranks, 0xdeadbeefu);
        std::uint32_t overflow = 0;
        gnss_kernel::kernel_args a{};
        a.samples = reinterpret_cast<const float2*>(x);
        a.nsamples = static_cast<std::uint32_t>(n);
        a.align = static_cast<std::uint32_t>(d_next % gnss_kernel::group_samples);
        a.first = d_next;
        a.tile_samples = d_shape.tile_samples;
        a.ranks = static_cast<std::uint32_t>(ranks);
        a.order = d_order.data();
        a.taps = static_cast<std::uint32_t>(d_taps);
        a.params = d_params.data();
        a.states = d_states.data();
        a.codes = d_codes.data();
        a.shifts = d_shifts.data();
        a.tables = d_tables.data();
        a.table_stride = d_shape.shared_tables ? static_cast<std::uint32_t>(d_stride) : 0;
        a.epoch_sums = d_epoch_sums.data();
        a.lane_partials = d_lane_partials.data();
        a.records = records.data();
        a.correlations = correlations.data();
        a.record_counts = counts.data();
        a.capacity = static_cast<std::uint32_t>(capacity);
        a.overflow = &overflow;
        const std::size_t bytes = gnss_kernel::shared_layout_bytes(
            d_shape.tile_samples, d_shape.warps, d_taps, a.table_stride);
        const unsigned blocks =
            static_cast<unsigned>((ranks + d_shape.warps - 1) / d_shape.warps);
        const std::size_t pass_taps =
            std::min<std::size_t>(d_taps, gnss_kernel::max_pass_taps);
        auto run = [&](auto tg) {
            constexpr int TG = decltype(tg)::value;
            emu::launch(blocks, d_shape.warps * 32, bytes, [&] {
                if (d_shape.shared_tables)
                    gnss_kernel::correlate_kernel<TG, true>(a);
                else
                    gnss_kernel::correlate_kernel<TG, false>(a);
            });
        };
        switch (pass_taps) {
        case 1:
            run(std::integral_constant<int, 1>{});
            break;
        case 3:
            run(std::integral_constant<int, 3>{});
            break;
        case 5:
            run(std::integral_constant<int, 5>{});
            break;
        case 8:
            run(std::integral_constant<int, 8>{});
            break;
        default:
            CPPUNIT_FAIL("no emulated kernel for " + std::to_string(pass_taps) + " taps");
        }
        CPPUNIT_ASSERT_EQUAL(0u, overflow);
        for (std::size_t r = 0; r < ranks; ++r) {
            CPPUNIT_ASSERT(counts[r] <= capacity);
            for (std::uint32_t i = 0; i < counts[r]; ++i) {
                out.records.push_back(records[r * capacity + i]);
                for (std::size_t k = 0; k < d_taps; ++k) {
                    const float2 v = correlations[(r * capacity + i) * d_taps + k];
                    out.correlations.emplace_back(v.x, v.y);
                }
            }
        }
        d_next += n;
    }

private:
    std::size_t d_taps;
    shape d_shape;
    std::uint64_t d_next = 0;
    std::uint64_t d_shortest = 1;
    std::vector<gnss_channel_params> d_params;
    std::vector<gnss_channel_state> d_states;
    std::vector<std::uint64_t> d_shifts;
    std::vector<gnss_cuda_code> d_codes;
    std::vector<std::int8_t> d_tables;
    std::size_t d_stride = 16;
    std::vector<double> d_epoch_sums;
    std::vector<float> d_lane_partials;
    std::vector<std::uint32_t> d_order;
};

multichannel_correlator_config make_config(double fs, std::size_t taps)
{
    multichannel_correlator_config config;
    config.device = "cpu";
    config.sample_rate_hz = fs;
    config.taps = taps;
    return config;
}

gnss_channel open_loop(std::uint32_t id, std::vector<std::int8_t> code)
{
    gnss_channel c;
    c.id = id;
    c.code = std::move(code);
    c.mode = gnss_channel_mode::open_loop;
    return c;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

//! Call sizes that cut the stream everywhere: single samples, a few, thousands.
std::vector<std::size_t> cuts(std::size_t n, std::uint64_t seed)
{
    qa::gaussian_source g(seed);
    std::vector<std::size_t> sizes;
    for (std::size_t done = 0; done < n;) {
        const long pick = g.integer(0, 9);
        std::size_t m = pick < 2 ? static_cast<std::size_t>(g.integer(1, 70))
                                 : static_cast<std::size_t>(g.integer(1, 9000));
        m = std::min(m, n - done);
        sizes.push_back(m);
        done += m;
    }
    return sizes;
}

//! Records of one call sequence in channel id order then time order (one call's order).
gnss_correlator_results by_channel(const std::vector<gnss_correlator_results>& parts,
                                   std::size_t taps)
{
    std::vector<std::uint32_t> ids;
    for (const auto& p : parts)
        for (const auto& r : p.records)
            ids.push_back(r.channel_id);
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    gnss_correlator_results out;
    out.taps = taps;
    for (std::uint32_t id : ids)
        for (const auto& p : parts)
            for (std::size_t i = 0; i < p.records.size(); ++i)
                if (p.records[i].channel_id == id) {
                    out.records.push_back(p.records[i]);
                    out.correlations.insert(
                        out.correlations.end(), p.taps_of(i), p.taps_of(i) + taps);
                }
    return out;
}

/*!
 * Emulated kernel against the CPU backend, both fed the same calls. Open loop: every
 * NCO field identical and correlations within 2e-4 of max(|cpu|, sqrt(sum |x|^2) over
 * the epoch). Tracking: the same epochs and lock flags, phases and Dopplers within
 * 0.01 chip and 0.5 Hz.
 */
void compare_with_cpu(const gnss_correlator_results& g,
                      const gnss_correlator_results& c,
                      const std::vector<cfloat>& x,
                      const std::vector<gnss_channel>& channels,
                      const std::string& what)
{
    CPPUNIT_ASSERT_EQUAL(c.records.size(), g.records.size());
    CPPUNIT_ASSERT(!g.records.empty());
    double worst = 0.0;
    for (std::size_t i = 0; i < g.records.size(); ++i) {
        const gnss_epoch_record& a = g.records[i];
        const gnss_epoch_record& b = c.records[i];
        CPPUNIT_ASSERT_EQUAL(b.channel_id, a.channel_id);
        CPPUNIT_ASSERT_EQUAL(b.epoch, a.epoch);
        const bool tracking =
            std::find_if(channels.begin(), channels.end(), [&](const gnss_channel& ch) {
                return ch.id == a.channel_id && ch.mode == gnss_channel_mode::tracking;
            }) != channels.end();
        if (tracking) {
            CPPUNIT_ASSERT_EQUAL(b.flags, a.flags);
            CPPUNIT_ASSERT(std::abs(double(a.start_sample) - double(b.start_sample)) <=
                           1);
            CPPUNIT_ASSERT(std::abs(a.code_phase_chips - b.code_phase_chips) < 0.01);
            CPPUNIT_ASSERT(std::abs(a.doppler_hz - b.doppler_hz) < 0.5);
            continue;
        }
        CPPUNIT_ASSERT_EQUAL(b.start_sample, a.start_sample);
        CPPUNIT_ASSERT_EQUAL(b.sample_count, a.sample_count);
        CPPUNIT_ASSERT(same_bits(a.code_phase_chips, b.code_phase_chips));
        CPPUNIT_ASSERT(same_bits(a.code_rate_cps, b.code_rate_cps));
        CPPUNIT_ASSERT(same_bits(a.doppler_hz, b.doppler_hz));
        CPPUNIT_ASSERT(same_bits(a.carrier_phase_rad, b.carrier_phase_rad));
        CPPUNIT_ASSERT(same_bits(a.carrier_cycles, b.carrier_cycles));
        double power = 0.0;
        for (std::size_t s = 0; s < a.sample_count; ++s)
            power += std::norm(cdouble(x[a.start_sample + s]));
        for (std::size_t t = 0; t < g.taps; ++t) {
            const cdouble u(g.taps_of(i)[t]), v(c.taps_of(i)[t]);
            const double tol = 2e-4 * std::max(std::abs(v), std::sqrt(power));
            worst = std::max(worst, std::abs(u - v) / tol);
            if (!(std::abs(u - v) <= tol)) {
                std::ostringstream msg;
                msg << what << ": channel " << a.channel_id << " epoch " << a.epoch
                    << " tap " << t << ": emulated kernel " << u << ", cpu " << v;
                CPPUNIT_FAIL(msg.str());
            }
        }
    }
    std::cout << "qa_multichannel_correlator_kernel: " << what << ": " << g.records.size()
              << " records, worst correlation difference " << worst << " of tolerance"
              << std::endl;
}

} // namespace

class qa_multichannel_correlator_kernel : public CppUnit::TestCase
{
    CPPUNIT_TEST_SUITE(qa_multichannel_correlator_kernel);
    CPPUNIT_TEST(carrier_replica_is_the_rule);
    CPPUNIT_TEST(open_loop_codes_taps_and_shapes);
    CPPUNIT_TEST(eleven_taps_in_two_passes);
    CPPUNIT_TEST(tracking_against_cpu);
    CPPUNIT_TEST(split_invariance);
    CPPUNIT_TEST_SUITE_END();

    /*!
     * The kernel's replica (the special function unit's cosine and sine on a GPU, the
     * host's here) follows the rule's phase convention: within 1e-6 of the float64
     * cos and sin of 2 pi phase / 2^32 and of gnss_carrier_cos_sin(), over every
     * quarter turn and its edges, the wrap from +pi to -pi included.
     */
    void carrier_replica_is_the_rule()
    {
        auto check = [](std::uint32_t phase) {
            float c0, s0, c1, s1;
            gnss_carrier_cos_sin(phase, c0, s0);
            gnss_kernel::carrier_cos_sin(phase, c1, s1);
            const double angle =
                6.283185307179586 * static_cast<double>(phase) / 4294967296.0;
            const double err = std::max({ std::abs(c1 - std::cos(angle)),
                                          std::abs(s1 - std::sin(angle)),
                                          std::abs(double(c1) - double(c0)),
                                          std::abs(double(s1) - double(s0)) });
            if (!(err <= 1e-6))
                CPPUNIT_FAIL("carrier replica off by " + std::to_string(err) +
                             " at phase " + std::to_string(phase));
        };
        for (std::uint64_t p = 0; p < (std::uint64_t(1) << 32); p += 251)
            check(static_cast<std::uint32_t>(p));
        for (std::uint32_t edge : { 0x00000000u,
                                    0x20000000u,
                                    0x40000000u,
                                    0x60000000u,
                                    0x80000000u,
                                    0xa0000000u,
                                    0xc0000000u,
                                    0xe0000000u })
            for (std::uint32_t d = 0; d < 64; ++d) {
                check(edge + d);
                check(edge - d);
            }
    }

    static std::vector<cfloat> signal(double fs, std::size_t n, std::uint64_t seed)
    {
        gnss_simulator_config config;
        config.sample_rate_hz = fs;
        config.seed = seed;
        gnss_simulated_satellite sat;
        sat.code = gps_l1ca_code(5);
        sat.code_phase_chips = 612.3;
        sat.doppler_hz = -2345.0;
        sat.cn0_dbhz = 55.0;
        gnss_signal_simulator sim(config, { sat });
        std::vector<cfloat> x(n);
        sim.generate(x.data(), n);
        return x;
    }

    static std::vector<gnss_channel> mixed_channels(std::size_t taps)
    {
        auto offsets = [&](std::vector<double> o) {
            while (o.size() < taps)
                o.push_back(-2.0 + 0.37 * o.size());
            o.resize(taps);
            return o;
        };
        std::vector<gnss_channel> channels;
        gnss_channel a = open_loop(7, gps_l1ca_code(5));
        a.code_phase_chips = 612.25;
        a.carrier_frequency_hz = -2345.0;
        a.tap_offsets_chips = offsets({ -0.5, 0.0, 0.5 });
        channels.push_back(a);
        gnss_channel b = open_loop(3, gps_l1ca_code(9));
        b.code_phase_chips = 3000.5;
        b.periods_per_integration = 4;
        b.carrier_frequency_hz = 1000.0;
        b.carrier_phase_rad = 1.0;
        b.tap_offsets_chips = offsets({ -1.0, 0.0, 1.0 });
        channels.push_back(b);
        gnss_channel e =
            open_loop(12, boc11_expand(galileo_e1_code(11, galileo_e1_component::b)));
        e.code_entries_per_chip = 2;
        e.code_rate_cps = 1.023e6 + 3.7;
        e.code_phase_chips = 4091.99;
        e.carrier_frequency_hz = 812.5;
        e.tap_offsets_chips = offsets({ -0.15, 0.0, 0.15 });
        channels.push_back(e);
        gnss_channel g = open_loop(1, glonass_l1of_code());
        g.code_rate_cps = 0.511e6;
        g.carrier_frequency_hz = 1.2e6;
        g.carrier_phase_rad = -4.0;
        g.tap_offsets_chips = offsets({ -510.5, 0.3, 510.9 });
        channels.push_back(g);
        gnss_channel s = open_loop(20, gps_l1ca_code(30));
        s.code_rate_cps = 1.6e6; // 1.6 chips per sample: a group spans 100 chips
        s.code_phase_chips = 1022.9;
        s.tap_offsets_chips = offsets({ -0.5, 0.0, 0.5 });
        channels.push_back(s);
        return channels;
    }

    void run_open_loop(std::size_t taps, shape s, const std::string& what)
    {
        const double fs = 3.1e6;
        const std::size_t n = 40017;
        const auto x = signal(fs, n, 41);
        const auto channels = mixed_channels(taps);
        emulated_backend g(make_config(fs, taps), channels, s);
        auto cpu = multichannel_correlator::make(make_config(fs, taps));
        for (const auto& c : channels)
            cpu->add_channel(c);
        std::vector<gnss_correlator_results> gp, cp;
        std::size_t done = 0;
        for (std::size_t m : cuts(n, 3)) {
            gp.emplace_back();
            cp.emplace_back();
            g.process(x.data() + done, m, gp.back());
            cpu->process(x.data() + done, m, cp.back());
            done += m;
        }
        compare_with_cpu(by_channel(gp, taps), by_channel(cp, taps), x, channels, what);
    }

    void open_loop_codes_taps_and_shapes()
    {
        run_open_loop(3, { 2, 512, true }, "3 taps, 2 warps, 512-sample tiles");
        run_open_loop(3, { 3, 1024, false }, "3 taps, 3 warps, global tables");
        run_open_loop(5, { 1, 2048, true }, "5 taps, 1 warp, 2048-sample tiles");
    }

    void eleven_taps_in_two_passes()
    {
        run_open_loop(11, { 2, 512, true }, "11 taps (two passes)");
    }

    void tracking_against_cpu()
    {
        const double fs = 4e6;
        const std::size_t n = static_cast<std::size_t>(0.25 * fs);
        const auto x = signal(fs, n, 7);
        std::vector<gnss_channel> channels;
        gnss_channel t;
        t.id = 2;
        t.code = gps_l1ca_code(5);
        t.code_phase_chips = 612.45;
        t.carrier_frequency_hz = -2320.0;
        t.code_rate_cps = 1.023e6 * (1.0 - 2320.0 / gps_l1_frequency_hz);
        t.loop.fll_bandwidth_hz = 10.0;
        t.loop.cn0_epochs = 20;
        channels.push_back(t);
        gnss_channel noise = t;
        noise.id = 9;
        noise.code = gps_l1ca_code(6);
        noise.loop.pll_order = 2;
        noise.loop.dll_order = 2;
        channels.push_back(noise);
        gnss_channel open = open_loop(4, gps_l1ca_code(5));
        open.code_phase_chips = 612.3;
        open.carrier_frequency_hz = -2345.0;
        channels.push_back(open);
        emulated_backend g(make_config(fs, 3), channels, { 2, 1024, true });
        auto cpu = multichannel_correlator::make(make_config(fs, 3));
        for (const auto& c : channels)
            cpu->add_channel(c);
        std::vector<gnss_correlator_results> gp, cp;
        std::size_t done = 0;
        for (std::size_t m : cuts(n, 5)) {
            gp.emplace_back();
            cp.emplace_back();
            g.process(x.data() + done, m, gp.back());
            cpu->process(x.data() + done, m, cp.back());
            done += m;
        }
        const auto gr = by_channel(gp, 3);
        compare_with_cpu(gr, by_channel(cp, 3), x, channels, "tracking");
        // The matched channel is locked at the end.
        const std::uint32_t lock = gnss_flag_code_lock | gnss_flag_carrier_lock;
        for (auto it = gr.records.rbegin(); it != gr.records.rend(); ++it)
            if (it->channel_id == 2) {
                CPPUNIT_ASSERT_EQUAL(lock, it->flags & lock);
                break;
            }
    }

    void split_invariance()
    {
        const double fs = 3.1e6;
        const std::size_t n = 30011;
        const auto x = signal(fs, n, 13);
        auto channels = mixed_channels(3);
        gnss_channel t;
        t.id = 40;
        t.code = gps_l1ca_code(5);
        t.code_phase_chips = 612.4;
        t.carrier_frequency_hz = -2330.0;
        channels.push_back(t);
        for (const shape s : { shape{ 2, 512, true }, shape{ 1, 1024, false } }) {
            emulated_backend whole(make_config(fs, 3), channels, s);
            emulated_backend split(make_config(fs, 3), channels, s);
            gnss_correlator_results a;
            whole.process(x.data(), n, a);
            std::vector<gnss_correlator_results> parts;
            std::size_t done = 0;
            for (std::size_t m : cuts(n, 17)) {
                parts.emplace_back();
                split.process(x.data() + done, m, parts.back());
                done += m;
            }
            const auto b = by_channel(parts, 3);
            CPPUNIT_ASSERT_EQUAL(a.records.size(), b.records.size());
            CPPUNIT_ASSERT(std::memcmp(a.records.data(),
                                       b.records.data(),
                                       a.records.size() * sizeof(gnss_epoch_record)) ==
                           0);
            CPPUNIT_ASSERT(std::memcmp(a.correlations.data(),
                                       b.correlations.data(),
                                       a.correlations.size() * sizeof(cfloat)) == 0);
        }
    }
};

CPPUNIT_TEST_SUITE_REGISTRATION(qa_multichannel_correlator_kernel);

} // namespace core
} // namespace cudadsp
} // namespace gr
