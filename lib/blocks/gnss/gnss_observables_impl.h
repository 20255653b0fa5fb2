/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_GNSS_OBSERVABLES_IMPL_H
#define INCLUDED_CUDADSP_GNSS_OBSERVABLES_IMPL_H

#include "blocks/common/rate_limited_log.h"
#include "gnss/gnss_observables.h"
#include <gnuradio/cudadsp/gnss_observables.h>
#include <atomic>

namespace gr {
namespace cudadsp {

class gnss_observables_impl : public gnss_observables
{
public:
    gnss_observables_impl(double sample_rate_hz, double rate_hz);

    std::uint64_t epochs() const override { return d_epochs; }
    std::uint64_t refused_states() const override { return d_refused; }

private:
    void handle_navigation(const pmt::pmt_t& message);

    const pmt::pmt_t d_out_port;
    core::gnss_observables d_observables; //!< the message handler's alone
    //! A state refused is logged at most once per 10 s (two channels on one satellite
    //! would refuse a thousand a second).
    rate_limited_log d_refusals;
    std::atomic<std::uint64_t> d_epochs{ 0 };
    std::atomic<std::uint64_t> d_refused{ 0 };
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_GNSS_OBSERVABLES_IMPL_H */
