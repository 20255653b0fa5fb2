/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_navigation_pmt.h"
#include "blocks/gnss/gnss_observables_impl.h"
#include <gnuradio/io_signature.h>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

core::gnss_observables_config observables_config(double sample_rate_hz, double rate_hz)
{
    if (!(rate_hz > 0.0) || !std::isfinite(rate_hz))
        throw std::invalid_argument("rate_hz: must be above 0");
    const double interval_ms = 1000.0 / rate_hz;
    if (std::fabs(interval_ms - std::round(interval_ms)) > 1e-9 * interval_ms)
        throw std::invalid_argument(
            "rate_hz: 1000 / rate_hz must be a whole number of milliseconds, got " +
            std::to_string(rate_hz));
    core::gnss_observables_config config;
    config.sample_rate_hz = sample_rate_hz;
    config.interval_ms = static_cast<int>(std::lround(interval_ms));
    return config; // core::gnss_observables checks the rest, naming the field
}

} // namespace

gnss_observables::sptr gnss_observables::make(double sample_rate_hz, double rate_hz)
{
    return gnuradio::make_block_sptr<gnss_observables_impl>(sample_rate_hz, rate_hz);
}

gnss_observables_impl::gnss_observables_impl(double sample_rate_hz, double rate_hz)
    : gr::block("gnss_observables",
                gr::io_signature::make(0, 0, 0),
                gr::io_signature::make(0, 0, 0)),
      d_out_port(pmt::mp("observables")),
      d_observables(observables_config(sample_rate_hz, rate_hz)),
      d_refusals(rate_limited_log::level::warn, "refused states")
{
    const pmt::pmt_t in = pmt::mp("navigation");
    message_port_register_in(in);
    message_port_register_out(d_out_port);
    set_msg_handler(in, [this](const pmt::pmt_t& m) { handle_navigation(m); });
}

void gnss_observables_impl::handle_navigation(const pmt::pmt_t& message)
{
    const std::string type = gnss_message_type_of(message);
    if (is_navigation_data(type)) {
        message_port_pub(d_out_port, message); // in its place among the epochs
        return;
    }
    if (type != gnss_message_type::states)
        return; // subframes and the rest are for other readers
    std::uint64_t through = 0;
    std::vector<core::gnss_channel_epoch> states;
    try {
        states = states_of(message, through);
    } catch (const std::invalid_argument& e) {
        ++d_refused;
        d_logger->error("a states message refused: {}", e.what());
        return;
    }
    for (const core::gnss_channel_epoch& s : states) {
        try {
            d_observables.add(s);
        } catch (const std::invalid_argument& e) {
            // Two channels on one satellite, or a state out of time order: this one is
            // left out, the satellite's earlier states stand.
            ++d_refused;
            d_refusals.log(d_logger,
                           "a state of " + core::gnss_satellite_id(s.system, s.prn) +
                               " refused: " + e.what());
        }
    }
    for (const core::gnss_observation_epoch& e : d_observables.epochs_through(through)) {
        ++d_epochs;
        message_port_pub(d_out_port, epoch_message(e));
    }
}

} // namespace cudadsp
} // namespace gr
