/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "blocks/gnss/gnss_navigation_pmt.h"
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

} // namespace cudadsp
} // namespace gr
