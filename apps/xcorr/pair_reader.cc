/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "pair_reader.h"
#include <algorithm>
#include <exception>

namespace gr {
namespace cudadsp {
namespace xcorr {

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point t0)
{
    return std::chrono::duration<double>(clock_type::now() - t0).count();
}

} // namespace

pair_reader::pair_reader(const std::string& master_prm,
                         const std::string& aligned_prm,
                         const xcorr_options& options)
    : d_options(options),
      d_master_prm(master_prm),
      d_aligned_prm(aligned_prm),
      d_setup(d_setup_done.get_future().share()),
      d_thread([this] { run(); })
{
}

pair_reader::~pair_reader()
{
    if (d_thread.joinable())
        d_thread.join();
}

void pair_reader::run()
{
    const auto t0 = clock_type::now();
    try {
        d_pair = prepare_pair(d_master_prm, d_aligned_prm, d_options);
    } catch (...) {
        d_stats.setup_s = seconds_since(t0);
        d_setup_done.set_exception(std::current_exception());
        return;
    }
    d_stats.setup_s = seconds_since(t0);
    d_setup_done.set_value();

    const auto t_read0 = clock_type::now();
    const std::int64_t npy = 4 * std::int64_t(d_options.ysearch);
    const slc_image& master = *d_pair->master;
    const slc_image& aligned = *d_pair->aligned;
    std::int64_t m_done = 0, a_done = 0;
    for (const auto& p : d_pair->layout.pairs) {
        if (p.master_row + npy > m_done) {
            d_stats.read_bytes +=
                master.touch_rows(std::max(m_done, p.master_row), p.master_row + npy);
            m_done = p.master_row + npy;
        }
        if (p.aligned_row + npy > a_done) {
            d_stats.read_bytes +=
                aligned.touch_rows(std::max(a_done, p.aligned_row), p.aligned_row + npy);
            a_done = p.aligned_row + npy;
        }
    }
    d_stats.read_s = seconds_since(t_read0);
}

const prepared_pair& pair_reader::wait_setup()
{
    d_setup.get();
    return *d_pair;
}

pair_reader::read_stats pair_reader::finish()
{
    if (d_thread.joinable())
        d_thread.join();
    return d_stats;
}

} // namespace xcorr
} // namespace cudadsp
} // namespace gr
