/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_navigation_pmt.h"
#include "blocks/gnss/gps_telemetry_decoder_impl.h"
#include <gnuradio/cudadsp/core/gnss_codes.h>
#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
#include <gnuradio/io_signature.h>
#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace gr {
namespace cudadsp {

namespace {

/*! How long a channel may stay silent while newer records come before it counts as
 *  removed by the correlator: 1000 GPS epochs, 250 Galileo ones, the same time for
 *  both systems. */
constexpr double silent_channel_timeout_s = 1.0;

//! A record's nominal length: one period of its system's code (GPS 1 ms, Galileo 4 ms).
double epoch_duration_s(core::gnss_system system)
{
    return system == core::gnss_system::galileo
               ? core::galileo_e1_code_length / core::galileo_e1_chip_rate_cps
               : core::gps_l1ca_code_length / core::gps_l1ca_chip_rate_cps;
}

core::gps_navigation_channel_config navigation_config(int bit_sync_ms)
{
    core::gps_navigation_channel_config config;
    config.bit_sync_ms = bit_sync_ms;
    return config;
}

core::gnss_epoch_record record_of(const double* s)
{
    core::gnss_epoch_record r{};
    r.channel_id = static_cast<std::uint32_t>(s[gnss_state_channel_id]);
    r.flags = static_cast<std::uint32_t>(s[gnss_state_flags]);
    r.epoch = static_cast<std::uint64_t>(s[gnss_state_epoch]);
    r.start_sample = static_cast<std::uint64_t>(s[gnss_state_start_sample]);
    r.sample_count = static_cast<std::uint32_t>(s[gnss_state_sample_count]);
    r.prompt_sign = static_cast<std::int32_t>(s[gnss_state_prompt_sign]);
    r.code_phase_chips = s[gnss_state_code_phase_chips];
    r.code_rate_cps = s[gnss_state_code_rate_cps];
    r.doppler_hz = s[gnss_state_doppler_hz];
    r.carrier_phase_rad = s[gnss_state_carrier_phase_rad];
    r.carrier_cycles = s[gnss_state_carrier_cycles];
    r.cn0_dbhz = static_cast<float>(s[gnss_state_cn0_dbhz]);
    r.carrier_lock = static_cast<float>(s[gnss_state_carrier_lock]);
    r.pll_discriminator_rad = static_cast<float>(s[gnss_state_pll_discriminator_rad]);
    r.dll_discriminator_chips = static_cast<float>(s[gnss_state_dll_discriminator_chips]);
    return r;
}

/*! The navigation system of a correlator channel: GPS L1 C/A, or Galileo on the E1-B
 *  (data) code. False for the others (the E1-C pilot carries no data). */
bool navigation_system_of(int signal_system, core::gnss_system& system)
{
    if (signal_system == gnss_system_gps_l1ca) {
        system = core::gnss_system::gps;
        return true;
    }
    if (signal_system == gnss_system_galileo_e1b) {
        system = core::gnss_system::galileo;
        return true;
    }
    return false;
}

//! The 128 bits of an I/NAV word (0/1 each) in 16 bytes, the first bit the first
//! byte's most significant.
std::vector<std::uint8_t>
packed_word(const std::array<std::uint8_t, core::galileo_inav_word_bits>& bits)
{
    std::vector<std::uint8_t> bytes(bits.size() / 8, 0);
    for (std::size_t i = 0; i < bits.size(); ++i)
        bytes[i / 8] |= static_cast<std::uint8_t>((bits[i] & 1u) << (7 - i % 8));
    return bytes;
}

} // namespace

gps_telemetry_decoder::sptr
gps_telemetry_decoder::make(int taps, int prompt_tap, int bit_sync_ms)
{
    return gnuradio::make_block_sptr<gps_telemetry_decoder_impl>(
        taps, prompt_tap, bit_sync_ms);
}

gps_telemetry_decoder_impl::gps_telemetry_decoder_impl(int taps,
                                                       int prompt_tap,
                                                       int bit_sync_ms)
    : gr::sync_block("gps_telemetry_decoder",
                     gr::io_signature::make2(2,
                                             2,
                                             sizeof(gr_complex) * std::max(taps, 1),
                                             sizeof(double) * gnss_state_field_count),
                     gr::io_signature::make(0, 0, 0)),
      d_taps(taps),
      d_prompt_tap(prompt_tap),
      d_port(pmt::mp("navigation")),
      d_decoder(navigation_config(bit_sync_ms))
{
    if (taps < 1 || taps > 64)
        throw std::invalid_argument("taps: must be 1 to 64, got " + std::to_string(taps));
    if (prompt_tap < 0 || prompt_tap >= taps)
        throw std::invalid_argument("prompt_tap: must be below taps (" +
                                    std::to_string(taps) + "), got " +
                                    std::to_string(prompt_tap));
    message_port_register_out(d_port);
}

core::gps_lnav_counters gps_telemetry_decoder_impl::lnav_sum() const
{
    core::gps_lnav_counters sum = d_released_lnav;
    for (const auto& entry : d_decoder.channels())
        sum += entry.second.lnav_counters();
    return sum;
}

core::galileo_inav_counters gps_telemetry_decoder_impl::inav_sum() const
{
    core::galileo_inav_counters sum = d_released_inav;
    for (const auto& entry : d_decoder.galileo_channels())
        sum += entry.second.inav_counters();
    return sum;
}

gps_telemetry_decoder_impl::channel_counters
gps_telemetry_decoder_impl::counters_of(std::uint32_t channel_id) const
{
    channel_counters c;
    if (const core::gps_navigation_channel* n = d_decoder.channel(channel_id))
        c.lnav = n->lnav_counters();
    if (const core::galileo_navigation_channel* n = d_decoder.galileo_channel(channel_id))
        c.inav = n->inav_counters();
    return c;
}

void gps_telemetry_decoder_impl::keep_counters(const channel_counters& counters)
{
    d_released_lnav += counters.lnav;
    d_released_inav += counters.inav;
}

void gps_telemetry_decoder_impl::reassign_channel(std::uint32_t channel_id,
                                                  core::gnss_system system,
                                                  int prn)
{
    // Kept only once assign_channel replaced the channel: a PRN it refuses throws and
    // leaves the channel, so its counters must stay out of the released ones.
    const channel_counters counters = counters_of(channel_id);
    d_decoder.assign_channel(channel_id, system, prn);
    keep_counters(counters);
}

std::uint64_t gps_telemetry_decoder_impl::parity_failures() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return lnav_sum().parity_failures;
}

std::uint64_t gps_telemetry_decoder_impl::subframes() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return lnav_sum().subframes;
}

std::uint64_t gps_telemetry_decoder_impl::crc_failures() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return inav_sum().crc_failures;
}

std::uint64_t gps_telemetry_decoder_impl::pages() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return inav_sum().pages;
}

std::uint64_t gps_telemetry_decoder_impl::ephemerides() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return lnav_sum().ephemerides + inav_sum().ephemerides;
}

std::string gps_telemetry_decoder_impl::channel_stages() const
{
    std::lock_guard<std::mutex> lock(d_mutex);
    return d_decoder.stages();
}

std::uint64_t gps_telemetry_decoder_impl::complete_through()
{
    const auto silent_samples =
        static_cast<std::uint64_t>(silent_channel_timeout_s * d_newest_sample_rate_hz);
    std::uint64_t through = d_newest_end;
    for (auto it = d_progress.begin(); it != d_progress.end();) {
        if (it->second.last_end + silent_samples < d_newest_end) {
            keep_counters(counters_of(it->first));
            d_decoder.release_channel(it->first);
            it = d_progress.erase(it);
            continue;
        }
        through = std::min(through, it->second.last_end);
        ++it;
    }
    return std::max(through, d_published_through);
}

void gps_telemetry_decoder_impl::publish_states()
{
    const std::uint64_t through = complete_through();
    if (d_states.empty() && through == d_published_through)
        return;
    d_published_through = through;
    message_port_pub(d_port, states_message(d_states, through));
    d_states.clear();
}

int gps_telemetry_decoder_impl::work_body(int noutput_items,
                                          gr_vector_const_void_star& input_items,
                                          gr_vector_void_star&)
{
    const auto* taps = static_cast<const gr_complex*>(input_items[0]);
    const auto* fields = static_cast<const double*>(input_items[1]);
    const auto state = [fields](int i) {
        return fields + static_cast<std::size_t>(i) * gnss_state_field_count;
    };
    const auto end_of = [&state](int i) {
        return static_cast<std::uint64_t>(state(i)[gnss_state_start_sample] +
                                          state(i)[gnss_state_sample_count]);
    };
    // A correlator call's records come by channel; taken in order of their end across
    // channels (as core::gps_receiver does), each piece of navigation data goes out
    // after exactly the states recorded before it.
    d_order.resize(static_cast<std::size_t>(noutput_items));
    std::iota(d_order.begin(), d_order.end(), 0);
    std::stable_sort(d_order.begin(), d_order.end(), [&end_of](int a, int b) {
        return end_of(a) < end_of(b);
    });

    std::lock_guard<std::mutex> lock(d_mutex);
    for (int i : d_order) {
        const double* s = state(i);
        core::gnss_system system;
        if (!navigation_system_of(static_cast<int>(s[gnss_state_system]), system))
            continue;
        const core::gnss_epoch_record record = record_of(s);
        const int prn = static_cast<int>(s[gnss_state_prn]);
        channel_progress& progress = d_progress[record.channel_id];
        if (progress.prn != prn || progress.system != system) {
            reassign_channel(record.channel_id, system, prn);
            progress.system = system;
            progress.prn = prn;
        }
        const std::uint64_t end = record.start_sample + record.sample_count;
        progress.last_end = end;
        if (end >= d_newest_end) {
            d_newest_end = end;
            d_newest_sample_rate_hz = record.sample_count / epoch_duration_s(system);
        }
        const core::gps_navigation_update update = d_decoder.push(
            record, taps[static_cast<std::size_t>(i) * d_taps + d_prompt_tap]);
        if (update.has_state)
            d_states.push_back(update.state);
        if (update.has_subframe || update.has_galileo_page)
            publish_navigation(update, record.channel_id);
    }
    publish_states();
    return noutput_items;
}

void gps_telemetry_decoder_impl::publish_navigation(
    const core::gps_navigation_update& update, std::uint32_t channel_id)
{
    pmt::pmt_t d = pmt::make_dict();
    const auto put = [&d](const char* key, const pmt::pmt_t& value) {
        d = pmt::dict_add(d, pmt::mp(key), value);
    };
    // Read before publish_states(), which may release silent channels.
    if (update.has_subframe) {
        const core::gps_navigation_channel& channel = *d_decoder.channel(channel_id);
        const core::gps_lnav_counters counters = channel.lnav_counters();
        const auto words = channel.decoder().last_words();
        put("type", pmt::mp(gnss_message_type::subframe));
        put("prn", pmt::from_long(update.prn));
        put("channel", pmt::from_long(channel_id));
        put("subframe_id", pmt::from_long(update.subframe.subframe_id));
        put("tow_count", pmt::from_long(update.subframe.tow_count));
        put("page", pmt::from_long(update.subframe.page));
        put("words", pmt::init_u32vector(words.size(), words.data()));
        put("parity_failures", pmt::from_uint64(counters.parity_failures));
        put("discarded_subframes", pmt::from_uint64(counters.discarded_subframes));
    } else {
        const core::galileo_navigation_channel& channel =
            *d_decoder.galileo_channel(channel_id);
        const std::vector<std::uint8_t> word = packed_word(channel.decoder().last_word());
        put("type", pmt::mp(gnss_message_type::page));
        put("prn", pmt::from_long(update.prn));
        put("channel", pmt::from_long(channel_id));
        put("word_type", pmt::from_long(channel.decoder().last_word_type()));
        put("word", pmt::init_u8vector(word.size(), word));
        put("crc_failures", pmt::from_uint64(channel.inav_counters().crc_failures));
    }
    publish_states();
    message_port_pub(d_port, d);
    if (update.has_ephemeris)
        message_port_pub(d_port, ephemeris_message(update.ephemeris));
    if (update.has_iono_utc)
        message_port_pub(d_port, iono_utc_message(update.iono_utc));
    if (update.has_galileo_ephemeris)
        message_port_pub(
            d_port, galileo_ephemeris_message(update.prn, update.galileo_ephemeris_data));
    if (update.has_galileo_iono_health)
        message_port_pub(
            d_port,
            galileo_iono_health_message(update.prn, update.galileo_iono_health_data));
    if (update.has_galileo_gst_utc)
        message_port_pub(
            d_port, galileo_gst_utc_message(update.prn, update.galileo_gst_utc_data));
}

} // namespace cudadsp
} // namespace gr
