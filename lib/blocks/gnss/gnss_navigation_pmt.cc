/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_navigation_pmt.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace gr {
namespace cudadsp {

namespace {

const pmt::pmt_t type_key = pmt::mp("type");

pmt::pmt_t typed_dict(const char* type)
{
    return pmt::dict_add(pmt::make_dict(), type_key, pmt::mp(type));
}

pmt::pmt_t value_of(const pmt::pmt_t& message, const char* key)
{
    const pmt::pmt_t v = pmt::dict_ref(message, pmt::mp(key), pmt::PMT_NIL);
    if (pmt::is_null(v))
        throw std::invalid_argument(std::string(key) + ": missing from the message");
    return v;
}

double number_of(const pmt::pmt_t& message, const char* key)
{
    const pmt::pmt_t v = value_of(message, key);
    if (!pmt::is_number(v) || pmt::is_complex(v))
        throw std::invalid_argument(std::string(key) + ": must be a number");
    return pmt::to_double(v);
}

//! The rows of a float64 vector of \p fields columns.
std::vector<double> rows_of(const pmt::pmt_t& v, int fields, const char* key)
{
    if (!pmt::is_f64vector(v))
        throw std::invalid_argument(std::string(key) + ": must be a float64 vector");
    std::vector<double> rows = pmt::f64vector_elements(v);
    if (rows.size() % static_cast<std::size_t>(fields) != 0)
        throw std::invalid_argument(std::string(key) +
                                    ": not a whole number of rows of " +
                                    std::to_string(fields));
    return rows;
}

//! The fields of a struct by name, one table for both directions: doubles and ints.
template <class S>
struct field_table {
    std::vector<std::pair<const char*, double S::*>> reals;
    std::vector<std::pair<const char*, int S::*>> integers;
};

const field_table<core::gps_ephemeris>& ephemeris_fields()
{
    using E = core::gps_ephemeris;
    static const field_table<E> table{
        { { "tgd", &E::tgd },         { "toc", &E::toc },
          { "af2", &E::af2 },         { "af1", &E::af1 },
          { "af0", &E::af0 },         { "crs", &E::crs },
          { "delta_n", &E::delta_n }, { "m0", &E::m0 },
          { "cuc", &E::cuc },         { "e", &E::e },
          { "cus", &E::cus },         { "sqrt_a", &E::sqrt_a },
          { "toe", &E::toe },         { "cic", &E::cic },
          { "omega0", &E::omega0 },   { "cis", &E::cis },
          { "i0", &E::i0 },           { "crc", &E::crc },
          { "omega", &E::omega },     { "omega_dot", &E::omega_dot },
          { "idot", &E::idot } },
        { { "prn", &E::prn },
          { "week", &E::week },
          { "code_on_l2", &E::code_on_l2 },
          { "ura_index", &E::ura_index },
          { "health", &E::health },
          { "iodc", &E::iodc },
          { "l2p_data_flag", &E::l2p_data_flag },
          { "iode", &E::iode },
          { "fit_interval_flag", &E::fit_interval_flag },
          { "aodo", &E::aodo } }
    };
    return table;
}

const field_table<core::gps_iono_utc>& iono_utc_fields()
{
    using U = core::gps_iono_utc;
    static const field_table<U> table{
        { { "a0", &U::a0 }, { "a1", &U::a1 }, { "tot", &U::tot } },
        { { "wnt", &U::wnt },
          { "dt_ls", &U::dt_ls },
          { "wn_lsf", &U::wn_lsf },
          { "dn", &U::dn },
          { "dt_lsf", &U::dt_lsf } }
    };
    return table;
}

const field_table<core::galileo_ephemeris>& galileo_ephemeris_fields()
{
    using E = core::galileo_ephemeris;
    static const field_table<E> table{
        { { "t0e", &E::t0e },
          { "m0", &E::m0 },
          { "e", &E::e },
          { "sqrt_a", &E::sqrt_a },
          { "omega0", &E::omega0 },
          { "i0", &E::i0 },
          { "omega", &E::omega },
          { "idot", &E::idot },
          { "omega_dot", &E::omega_dot },
          { "delta_n", &E::delta_n },
          { "cuc", &E::cuc },
          { "cus", &E::cus },
          { "crc", &E::crc },
          { "crs", &E::crs },
          { "cic", &E::cic },
          { "cis", &E::cis },
          { "t0c", &E::t0c },
          { "af0", &E::af0 },
          { "af1", &E::af1 },
          { "af2", &E::af2 } },
        { { "svid", &E::svid }, { "iodnav", &E::iodnav }, { "sisa", &E::sisa } }
    };
    return table;
}

const field_table<core::galileo_iono_health>& galileo_iono_health_fields()
{
    using H = core::galileo_iono_health;
    static const field_table<H> table{ { { "ai0", &H::ai0 },
                                         { "ai1", &H::ai1 },
                                         { "ai2", &H::ai2 },
                                         { "bgd_e1_e5a", &H::bgd_e1_e5a },
                                         { "bgd_e1_e5b", &H::bgd_e1_e5b } },
                                       { { "e5b_hs", &H::e5b_hs },
                                         { "e1b_hs", &H::e1b_hs },
                                         { "e5b_dvs", &H::e5b_dvs },
                                         { "e1b_dvs", &H::e1b_dvs },
                                         { "wn", &H::wn },
                                         { "tow", &H::tow } } };
    return table;
}

const field_table<core::galileo_gst_utc>& galileo_gst_utc_fields()
{
    using U = core::galileo_gst_utc;
    static const field_table<U> table{
        { { "a0", &U::a0 }, { "a1", &U::a1 }, { "t0t", &U::t0t } },
        { { "wn0t", &U::wn0t },
          { "dt_ls", &U::dt_ls },
          { "wn_lsf", &U::wn_lsf },
          { "dn", &U::dn },
          { "dt_lsf", &U::dt_lsf },
          { "tow", &U::tow } }
    };
    return table;
}

//! The "prn" of a Galileo message: 1..50, or std::invalid_argument.
int galileo_prn_of(const pmt::pmt_t& message)
{
    const double prn = number_of(message, "prn");
    if (!(prn >= 1 && prn <= 50) || prn != std::floor(prn))
        throw std::invalid_argument("prn: must be a Galileo PRN, 1 to 50");
    return static_cast<int>(prn);
}

template <class S>
pmt::pmt_t put_fields(pmt::pmt_t dict, const field_table<S>& table, const S& s)
{
    for (const auto& f : table.reals)
        dict = pmt::dict_add(dict, pmt::mp(f.first), pmt::from_double(s.*(f.second)));
    for (const auto& f : table.integers)
        dict = pmt::dict_add(dict, pmt::mp(f.first), pmt::from_long(s.*(f.second)));
    return dict;
}

template <class S>
void get_fields(const pmt::pmt_t& dict, const field_table<S>& table, S& s)
{
    for (const auto& f : table.reals)
        s.*(f.second) = number_of(dict, f.first);
    for (const auto& f : table.integers)
        s.*(f.second) = static_cast<int>(std::lround(number_of(dict, f.first)));
}

//! {type, prn, the fields of \p table}: a Galileo satellite's navigation data.
template <class S>
pmt::pmt_t
galileo_message(const char* type, int prn, const field_table<S>& table, const S& s)
{
    return put_fields(
        pmt::dict_add(typed_dict(type), pmt::mp("prn"), pmt::from_long(prn)), table, s);
}

//! The fields of \p table and the satellite (\p prn) of a galileo_message().
template <class S>
S galileo_fields_of(const pmt::pmt_t& message, const field_table<S>& table, int& prn)
{
    prn = galileo_prn_of(message);
    S s;
    get_fields(message, table, s);
    return s;
}

} // namespace

std::string gnss_message_type_of(const pmt::pmt_t& message)
{
    if (!pmt::is_dict(message))
        return "";
    const pmt::pmt_t t = pmt::dict_ref(message, type_key, pmt::PMT_NIL);
    return pmt::is_symbol(t) ? pmt::symbol_to_string(t) : "";
}

pmt::pmt_t states_message(const std::vector<core::gnss_channel_epoch>& states,
                          std::uint64_t complete_through_sample)
{
    std::vector<double> rows;
    rows.reserve(states.size() * gnss_state_row_fields);
    for (const core::gnss_channel_epoch& s : states) {
        const double row[gnss_state_row_fields] = {
            static_cast<double>(s.system),
            static_cast<double>(s.prn),
            static_cast<double>(s.sample_index),
            static_cast<double>(s.subframe_start_tow_s),
            static_cast<double>(s.code_periods_since_subframe_start),
            s.code_phase_chips,
            s.carrier_cycles,
            s.doppler_hz,
            s.cn0_dbhz,
            s.carrier_lock ? 1.0 : 0.0,
            static_cast<double>(s.bit_polarity)
        };
        rows.insert(rows.end(), row, row + gnss_state_row_fields);
    }
    pmt::pmt_t d = typed_dict(gnss_message_type::states);
    d = pmt::dict_add(d, pmt::mp("states"), pmt::init_f64vector(rows.size(), rows));
    return pmt::dict_add(
        d, pmt::mp("complete_through_sample"), pmt::from_uint64(complete_through_sample));
}

std::vector<core::gnss_channel_epoch> states_of(const pmt::pmt_t& message,
                                                std::uint64_t& complete_through_sample)
{
    const pmt::pmt_t through = value_of(message, "complete_through_sample");
    if (!pmt::is_uint64(through))
        throw std::invalid_argument("complete_through_sample: must be a uint64");
    complete_through_sample = pmt::to_uint64(through);
    const std::vector<double> rows =
        rows_of(value_of(message, "states"), gnss_state_row_fields, "states");
    std::vector<core::gnss_channel_epoch> states(rows.size() / gnss_state_row_fields);
    for (std::size_t i = 0; i < states.size(); ++i) {
        const double* r = rows.data() + i * gnss_state_row_fields;
        core::gnss_channel_epoch& s = states[i];
        s.system = static_cast<core::gnss_system>(static_cast<int>(r[0]));
        s.prn = static_cast<int>(r[gnss_state_row_prn]);
        s.sample_index = static_cast<std::uint64_t>(r[gnss_state_row_sample_index]);
        s.subframe_start_tow_s = static_cast<int>(r[gnss_state_row_subframe_start_tow_s]);
        s.code_periods_since_subframe_start = static_cast<std::uint64_t>(
            r[gnss_state_row_code_periods_since_subframe_start]);
        s.code_phase_chips = r[gnss_state_row_code_phase_chips];
        s.carrier_cycles = r[gnss_state_row_carrier_cycles];
        s.doppler_hz = r[gnss_state_row_doppler_hz];
        s.cn0_dbhz = r[gnss_state_row_cn0_dbhz];
        s.carrier_lock = r[gnss_state_row_carrier_lock] != 0.0;
        s.bit_polarity = static_cast<int>(r[gnss_state_row_bit_polarity]);
    }
    return states;
}

pmt::pmt_t epoch_message(const core::gnss_observation_epoch& epoch)
{
    std::vector<double> rows;
    rows.reserve(epoch.observations.size() * gnss_observation_row_fields);
    for (const core::gnss_observation& o : epoch.observations) {
        const double row[gnss_observation_row_fields] = { static_cast<double>(o.system),
                                                          static_cast<double>(o.prn),
                                                          o.pseudorange_m,
                                                          o.carrier_phase_cycles,
                                                          o.doppler_hz,
                                                          o.cn0_dbhz,
                                                          static_cast<double>(o.lli) };
        rows.insert(rows.end(), row, row + gnss_observation_row_fields);
    }
    pmt::pmt_t d = typed_dict(gnss_message_type::epoch);
    d = pmt::dict_add(
        d, pmt::mp("receiver_time_ms"), pmt::from_long(epoch.receiver_time_ms));
    d = pmt::dict_add(d, pmt::mp("sample_index"), pmt::from_double(epoch.sample_index));
    return pmt::dict_add(
        d, pmt::mp("observations"), pmt::init_f64vector(rows.size(), rows));
}

core::gnss_observation_epoch epoch_of(const pmt::pmt_t& message)
{
    core::gnss_observation_epoch epoch;
    const pmt::pmt_t time = value_of(message, "receiver_time_ms");
    if (!pmt::is_integer(time))
        throw std::invalid_argument("receiver_time_ms: must be an integer");
    epoch.receiver_time_ms = pmt::to_long(time);
    epoch.sample_index = number_of(message, "sample_index");
    const std::vector<double> rows = rows_of(
        value_of(message, "observations"), gnss_observation_row_fields, "observations");
    for (std::size_t i = 0; i < rows.size(); i += gnss_observation_row_fields) {
        const double* r = rows.data() + i;
        core::gnss_observation o;
        o.system = static_cast<core::gnss_system>(static_cast<int>(r[0]));
        o.prn = static_cast<int>(r[gnss_observation_row_prn]);
        o.pseudorange_m = r[gnss_observation_row_pseudorange_m];
        o.carrier_phase_cycles = r[gnss_observation_row_carrier_phase_cycles];
        o.doppler_hz = r[gnss_observation_row_doppler_hz];
        o.cn0_dbhz = r[gnss_observation_row_cn0_dbhz];
        o.lli = static_cast<int>(r[gnss_observation_row_lli]);
        epoch.observations.push_back(o);
    }
    return epoch;
}

pmt::pmt_t ephemeris_message(const core::gps_ephemeris& ephemeris)
{
    return put_fields(
        typed_dict(gnss_message_type::ephemeris), ephemeris_fields(), ephemeris);
}

core::gps_ephemeris ephemeris_of(const pmt::pmt_t& message)
{
    core::gps_ephemeris e;
    get_fields(message, ephemeris_fields(), e);
    return e;
}

pmt::pmt_t iono_utc_message(const core::gps_iono_utc& iono_utc)
{
    pmt::pmt_t d =
        put_fields(typed_dict(gnss_message_type::iono_utc), iono_utc_fields(), iono_utc);
    d = pmt::dict_add(d, pmt::mp("alpha"), pmt::init_f64vector(4, iono_utc.alpha));
    return pmt::dict_add(d, pmt::mp("beta"), pmt::init_f64vector(4, iono_utc.beta));
}

core::gps_iono_utc iono_utc_of(const pmt::pmt_t& message)
{
    core::gps_iono_utc u;
    get_fields(message, iono_utc_fields(), u);
    for (const char* key : { "alpha", "beta" }) {
        const std::vector<double> v = rows_of(value_of(message, key), 4, key);
        if (v.size() != 4)
            throw std::invalid_argument(std::string(key) + ": must hold 4 values");
        double* out = std::string(key) == "alpha" ? u.alpha : u.beta;
        for (int k = 0; k < 4; ++k)
            out[k] = v[k];
    }
    return u;
}

bool is_navigation_data(const std::string& type)
{
    return type == gnss_message_type::ephemeris || type == gnss_message_type::iono_utc ||
           type == gnss_message_type::galileo_ephemeris ||
           type == gnss_message_type::galileo_iono_health ||
           type == gnss_message_type::galileo_gst_utc;
}

pmt::pmt_t galileo_ephemeris_message(int prn, const core::galileo_ephemeris& ephemeris)
{
    return galileo_message(
        gnss_message_type::galileo_ephemeris, prn, galileo_ephemeris_fields(), ephemeris);
}

core::galileo_ephemeris galileo_ephemeris_of(const pmt::pmt_t& message, int& prn)
{
    return galileo_fields_of(message, galileo_ephemeris_fields(), prn);
}

pmt::pmt_t galileo_iono_health_message(int prn,
                                       const core::galileo_iono_health& iono_health)
{
    const pmt::pmt_t d = galileo_message(gnss_message_type::galileo_iono_health,
                                         prn,
                                         galileo_iono_health_fields(),
                                         iono_health);
    const std::vector<std::int32_t> flags(iono_health.region_flags.begin(),
                                          iono_health.region_flags.end());
    return pmt::dict_add(
        d, pmt::mp("region_flags"), pmt::init_s32vector(flags.size(), flags));
}

core::galileo_iono_health galileo_iono_health_of(const pmt::pmt_t& message, int& prn)
{
    core::galileo_iono_health h =
        galileo_fields_of(message, galileo_iono_health_fields(), prn);
    const pmt::pmt_t flags = value_of(message, "region_flags");
    if (!pmt::is_s32vector(flags) || pmt::length(flags) != h.region_flags.size())
        throw std::invalid_argument("region_flags: must be an int32 vector of 5");
    const std::vector<std::int32_t> v = pmt::s32vector_elements(flags);
    std::copy(v.begin(), v.end(), h.region_flags.begin());
    return h;
}

pmt::pmt_t galileo_gst_utc_message(int prn, const core::galileo_gst_utc& gst_utc)
{
    return galileo_message(
        gnss_message_type::galileo_gst_utc, prn, galileo_gst_utc_fields(), gst_utc);
}

core::galileo_gst_utc galileo_gst_utc_of(const pmt::pmt_t& message, int& prn)
{
    return galileo_fields_of(message, galileo_gst_utc_fields(), prn);
}

} // namespace cudadsp
} // namespace gr
