/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "gnss/gps_receiver.h"
#include "runtime/parameter_checks.h"
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace gr {
namespace cudadsp {
namespace core {

void gps_receiver_config::validate() const
{
    // The observables and the solver check their own configurations when built / run.
    gnss_observables check_observables(observables);
    navigation.validate();
    if (prompt_tap >= gnss_max_taps) {
        parameter_error("prompt_tap",
                        "a tap index below " + std::to_string(gnss_max_taps),
                        static_cast<double>(prompt_tap));
    }
}

namespace {

gps_fix_solver_config solver_config(const gps_receiver_config& config)
{
    gps_fix_solver_config solver;
    solver.pvt = config.pvt;
    solver.has_iono_utc = config.has_iono_utc;
    solver.iono_utc = config.iono_utc;
    return solver;
}

} // namespace

gps_receiver::gps_receiver(const gps_receiver_config& config)
    : d_config(config),
      d_decoder(config.navigation),
      d_observables(config.observables),
      d_solver(solver_config(config))
{
    config.validate();
}

void gps_receiver::assign_channel(std::uint32_t channel_id, gnss_system system, int prn)
{
    d_decoder.assign_channel(channel_id, system, prn);
}

void gps_receiver::release_channel(std::uint32_t channel_id)
{
    d_decoder.release_channel(channel_id);
}

const gps_navigation_channel* gps_receiver::channel(std::uint32_t channel_id) const
{
    return d_decoder.channel(channel_id);
}

std::vector<gps_receiver_epoch>
gps_receiver::process(const gnss_correlator_results& results,
                      std::uint64_t complete_through_sample)
{
    if (!results.records.empty() && results.taps <= d_config.prompt_tap) {
        throw std::invalid_argument(
            "gps_receiver: results have " + std::to_string(results.taps) +
            " taps, the prompt is tap " + std::to_string(d_config.prompt_tap));
    }
    // A call's records come by channel; taken in order of their end across channels,
    // each epoch is formed as soon as every channel's states around it are in, and it
    // sees only the navigation data decoded by then.
    std::vector<std::size_t> order(results.records.size());
    std::iota(order.begin(), order.end(), std::size_t{ 0 });
    const auto end_of = [&results](std::size_t i) {
        return results.records[i].start_sample + results.records[i].sample_count;
    };
    std::stable_sort(order.begin(), order.end(), [&end_of](std::size_t a, std::size_t b) {
        return end_of(a) < end_of(b);
    });

    std::vector<gps_receiver_epoch> epochs;
    const auto form_epochs = [this, &epochs](std::uint64_t through) {
        for (gnss_observation_epoch& e : d_observables.epochs_through(through)) {
            d_epochs_formed = true;
            epochs.push_back(d_solver.solve(std::move(e)));
        }
    };
    for (std::size_t i : order) {
        const gnss_epoch_record& record = results.records[i];
        if (!d_decoder.has_channel(record.channel_id)) {
            throw std::invalid_argument("gps_receiver: a record of channel " +
                                        std::to_string(record.channel_id) +
                                        ", which has no PRN assigned");
        }
        const gps_navigation_update update =
            d_decoder.push(record, results.taps_of(i)[d_config.prompt_tap]);
        if (update.has_state) {
            d_observables.add(update.state);
        }
        if (update.has_ephemeris) {
            d_solver.take_ephemeris(update.ephemeris);
        }
        if (update.has_iono_utc) {
            d_solver.take_iono_utc(update.iono_utc);
        }
        if (update.has_galileo_ephemeris) {
            d_solver.take_galileo_ephemeris(update.prn, update.galileo_ephemeris_data);
        }
        if (update.has_galileo_iono_health) {
            d_solver.take_galileo_iono_health(update.prn,
                                              update.galileo_iono_health_data);
        }
        if (update.has_galileo_gst_utc) {
            d_has_galileo_gst_utc = true;
            d_galileo_gst_utc = update.galileo_gst_utc_data;
        }
        form_epochs(end_of(i));
    }
    form_epochs(complete_through_sample);
    return epochs;
}

std::string gps_receiver::waiting_for() const
{
    if (d_epochs_formed) {
        return "";
    }
    return d_decoder.stages();
}

} // namespace core
} // namespace cudadsp
} // namespace gr
