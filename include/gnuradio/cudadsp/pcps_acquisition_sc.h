/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_PCPS_ACQUISITION_SC_H
#define INCLUDED_CUDADSP_PCPS_ACQUISITION_SC_H

#include <gnuradio/cudadsp/pcps_acquisition_cc.h>

namespace gr {
namespace cudadsp {

/*!
 * \brief Continuous PCPS acquisition on interleaved int16 I/Q (item: two shorts, GRC
 * "sc16", as UHD's sc16 output; no scaling). Feed multichannel_correlator_sc with the
 * same stream.
 * \ingroup cudadsp
 *
 * \details Parameters as pcps_acquisition_cc::make().
 */
class CUDADSP_API pcps_acquisition_sc : virtual public pcps_acquisition_base
{
public:
    typedef std::shared_ptr<pcps_acquisition_sc> sptr;
    static sptr make(double sample_rate_hz,
                     const std::string& signal = "gps_l1ca",
                     const std::vector<int>& satellites = {},
                     double doppler_max_hz = 10e3,
                     double doppler_step_hz = 500.0,
                     int coherent_periods = 1,
                     int noncoherent_dwells = 10,
                     double false_alarm = 1e-3,
                     int max_channels = 12,
                     int satellites_per_search = 8,
                     const pmt::pmt_t& channel_parameters = pmt::PMT_NIL,
                     int first_channel_id = 0,
                     double doppler_center_hz = 0.0,
                     double intermediate_frequency_hz = 0.0,
                     bool galileo_pilot = false,
                     const std::string& device = "auto");
};

} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_PCPS_ACQUISITION_SC_H */
