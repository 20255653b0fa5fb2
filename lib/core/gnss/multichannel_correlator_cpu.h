/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CPU_H
#define INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CPU_H

#include "gnss/multichannel_correlator_internal.h"
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <memory>
#include <vector>

namespace gr {
namespace cudadsp {
namespace core {

/*!
 * CPU backend: channels are shared among the host's cores; each channel walks its
 * epochs over the buffer in blocks of samples, wiping the carrier off a block once and
 * then summing every tap over it (float within a block, float64 across blocks and
 * calls).
 */
class multichannel_correlator_cpu : public multichannel_correlator
{
public:
    multichannel_correlator_cpu(const multichannel_correlator_config& config,
                                const device_selection& device);
    ~multichannel_correlator_cpu() override;

    struct channel; // state, tap sums and this call's output of one channel

protected:
    void do_add_channel(const gnss_channel_setup& setup) override;
    void do_reinit_channel(const gnss_channel_setup& setup) override;
    void do_remove_channel(std::uint32_t id) override;
    void do_process(const void* samples,
                    std::size_t nsamples,
                    gnss_correlator_results& results) override;

private:
    //! Ascending channel id, the order of the records.
    std::vector<std::unique_ptr<channel>> d_channels;
    std::vector<std::unique_ptr<channel>>::iterator find(std::uint32_t id);
};

} // namespace core
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_CORE_MULTICHANNEL_CORRELATOR_CPU_H */
