/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/***********************************************************************************/
/* Written by hand (no pygccxml at build time). The hash is the md5 of the bound   */
/* header: configuration stops when the header changes, until this file is brought */
/* up to date and tools/update-binding-hashes is run.                              */
/* BINDTOOL_GEN_AUTOMATIC(0)                                                       */
/* BINDTOOL_USE_PYGCCXML(0)                                                        */
/* BINDTOOL_HEADER_FILE(multichannel_correlator_cc.h)                              */
/* BINDTOOL_HEADER_FILE_HASH(136240c5a49facf068c21ae366d863ba)                     */
/***********************************************************************************/

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
// pydoc.h is automatically generated in the build directory
#include <multichannel_correlator_cc_pydoc.h>

#include <limits>
#include <string>
#include <vector>

namespace {

using gr::cudadsp::multichannel_correlator_base;

std::string describe(py::handle object) { return py::repr(object).cast<std::string>(); }

/*!
 * A Python value as a PMT, for channel descriptions: a PMT as it is; None -> PMT_NIL;
 * bool; integers (Python or NumPy) -> integer (uint64 above 2^63 - 1); other numbers
 * -> real; str -> symbol; dict (str keys) -> dict; list, tuple or NumPy array ->
 * vector. pmt.to_pmt does most of this but refuses NumPy int8 arrays and scalars.
 */
pmt::pmt_t to_pmt(py::handle value, const std::string& where, std::size_t depth = 0)
{
    // The block's bound (gnss_max_pmt_depth): refused here before the recursion below
    // could exhaust the stack.
    constexpr std::size_t max_depth = 8;
    if (depth > max_depth)
        throw py::value_error(where + ": nested deeper than " +
                              std::to_string(max_depth) +
                              " levels (a channel list is a list of dicts of numbers, "
                              "names and lists of numbers)");
    if (py::isinstance<pmt::pmt_base>(value))
        return value.cast<pmt::pmt_t>();
    if (value.is_none())
        return pmt::PMT_NIL;
    if (py::isinstance<py::bool_>(value))
        return pmt::from_bool(value.cast<bool>());
    if (py::isinstance<py::str>(value))
        return pmt::intern(value.cast<std::string>());
    if (py::isinstance<py::dict>(value)) {
        pmt::pmt_t d = pmt::make_dict();
        for (auto item : py::reinterpret_borrow<py::dict>(value)) {
            if (!py::isinstance<py::str>(item.first))
                throw py::value_error(where + ": dict keys must be strings, got " +
                                      describe(item.first));
            const std::string key = item.first.cast<std::string>();
            d = pmt::dict_add(
                d, pmt::intern(key), to_pmt(item.second, where + "." + key, depth + 1));
        }
        return d;
    }
    if (py::hasattr(value, "__index__") && !py::hasattr(value, "__len__")) {
        const py::int_ i(py::reinterpret_borrow<py::object>(value));
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
        if (overflow > 0)
            return pmt::from_uint64(i.cast<std::uint64_t>());
        if (overflow < 0)
            throw py::value_error(where + ": integer too small, got " + describe(value));
        return pmt::from_long(static_cast<long>(v));
    }
    if (py::hasattr(value, "__float__") && !py::hasattr(value, "__len__"))
        return pmt::from_double(py::float_(py::reinterpret_borrow<py::object>(value)));
    // Codes and tap offsets of many channels: NumPy arrays become uniform vectors at
    // once, not one PMT per element.
    if (py::isinstance<py::array>(value)) {
        const py::array a = py::reinterpret_borrow<py::array>(value);
        if (a.ndim() == 1 && py::isinstance<py::array_t<std::int8_t>>(value)) {
            const auto v = py::array_t<std::int8_t, py::array::c_style>::ensure(value);
            return pmt::init_s8vector(v.size(), v.data());
        }
        if (a.ndim() == 1 && (py::isinstance<py::array_t<double>>(value) ||
                              py::isinstance<py::array_t<float>>(value))) {
            const auto v =
                py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(
                    value);
            return pmt::init_f64vector(v.size(), v.data());
        }
    }
    if (py::isinstance<py::sequence>(value) || py::hasattr(value, "tolist")) {
        const py::object items = py::hasattr(value, "tolist")
                                     ? value.attr("tolist")()
                                     : py::reinterpret_borrow<py::object>(value);
        if (!py::isinstance<py::sequence>(items))
            return to_pmt(items, where, depth); // a 0-d array's tolist() is a scalar
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(items);
        pmt::pmt_t v = pmt::make_vector(seq.size(), pmt::PMT_NIL);
        for (std::size_t i = 0; i < seq.size(); ++i)
            pmt::vector_set(
                v, i, to_pmt(seq[i], where + "[" + std::to_string(i) + "]", depth + 1));
        return v;
    }
    throw py::value_error(where + ": cannot be given to a channel description, got " +
                          describe(value));
}

/*!
 * max_channels as a Python (or NumPy) integer, range-checked here so that a value
 * beyond the C++ int gets a message naming it rather than pybind's generic one.
 */
int max_channels_of(py::handle value)
{
    const std::string rule = "max_channels: must be an integer from 1 to " +
                             std::to_string(std::numeric_limits<int>::max()) + ", got ";
    if (py::isinstance<py::bool_>(value) || !py::hasattr(value, "__index__"))
        throw py::value_error(rule + describe(value));
    const py::int_ i(py::reinterpret_borrow<py::object>(value));
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0 || v < 1 || v > std::numeric_limits<int>::max())
        throw py::value_error(rule + describe(value));
    return static_cast<int>(v);
}

template <class Block>
void bind_variant(py::module& m, const char* name, const char* doc, const char* make_doc)
{
    py::class_<Block,
               multichannel_correlator_base,
               gr::block,
               gr::basic_block,
               std::shared_ptr<Block>>(m, name, doc)
        .def(py::init([](double sample_rate_hz,
                         const std::vector<double>& tap_offsets_chips,
                         py::object max_channels,
                         py::object channels,
                         double intermediate_frequency_hz,
                         double batch_ms,
                         const std::string& device) {
                 return Block::make(sample_rate_hz,
                                    tap_offsets_chips,
                                    max_channels_of(max_channels),
                                    to_pmt(channels, "channels"),
                                    intermediate_frequency_hz,
                                    batch_ms,
                                    device);
             }),
             py::arg("sample_rate_hz"),
             py::arg("tap_offsets_chips") = std::vector<double>{ -0.5, 0.0, 0.5 },
             py::arg("max_channels") = 1024,
             py::arg("channels") = py::none(),
             py::arg("intermediate_frequency_hz") = 0.0,
             py::arg("batch_ms") = 10.0,
             py::arg("device") = "auto",
             py::arg("lock_loss_windows") = 4,
             py::arg("lock_timeout_windows") = 20,
             py::arg("remove_lost") = true,
             make_doc);
}

} // namespace

void bind_multichannel_correlator_cc(py::module& m)
{
    using base = multichannel_correlator_base;
    namespace cd = gr::cudadsp;

    py::enum_<cd::gnss_state_field>(m, "gnss_state_field", D(gnss_state_field))
        .value("channel_id", cd::gnss_state_channel_id)
        .value("epoch", cd::gnss_state_epoch)
        .value("start_sample", cd::gnss_state_start_sample)
        .value("sample_count", cd::gnss_state_sample_count)
        .value("flags", cd::gnss_state_flags)
        .value("prompt_sign", cd::gnss_state_prompt_sign)
        .value("code_phase_chips", cd::gnss_state_code_phase_chips)
        .value("code_rate_cps", cd::gnss_state_code_rate_cps)
        .value("doppler_hz", cd::gnss_state_doppler_hz)
        .value("carrier_phase_rad", cd::gnss_state_carrier_phase_rad)
        .value("carrier_cycles", cd::gnss_state_carrier_cycles)
        .value("cn0_dbhz", cd::gnss_state_cn0_dbhz)
        .value("carrier_lock", cd::gnss_state_carrier_lock)
        .value("pll_discriminator_rad", cd::gnss_state_pll_discriminator_rad)
        .value("dll_discriminator_chips", cd::gnss_state_dll_discriminator_chips)
        .value("prn", cd::gnss_state_prn)
        .value("system", cd::gnss_state_system);
    m.attr("gnss_state_field_count") = static_cast<int>(cd::gnss_state_field_count);

    py::enum_<cd::gnss_signal_system>(m, "gnss_signal_system", D(gnss_signal_system))
        .value("explicit_code", cd::gnss_system_explicit_code)
        .value("gps_l1ca", cd::gnss_system_gps_l1ca)
        .value("galileo_e1b", cd::gnss_system_galileo_e1b)
        .value("galileo_e1c", cd::gnss_system_galileo_e1c)
        .value("glonass_l1of", cd::gnss_system_glonass_l1of);

    m.def(
        "gnss_channels_pmt",
        [](py::object channels) { return to_pmt(channels, "channels"); },
        py::arg("channels"),
        D(gnss_channels_pmt));

    py::class_<base, gr::block, gr::basic_block, std::shared_ptr<base>>(
        m, "multichannel_correlator_base", D(multichannel_correlator_base))
        .def(
            "add_channels",
            [](base& self, py::object channels) {
                self.add_channels(to_pmt(channels, "channels"));
            },
            py::arg("channels"),
            D(multichannel_correlator_base, add_channels))
        .def(
            "reinit_channels",
            [](base& self, py::object channels) {
                self.reinit_channels(to_pmt(channels, "channels"));
            },
            py::arg("channels"),
            D(multichannel_correlator_base, reinit_channels))
        .def(
            "remove_channels",
            [](base& self, py::object ids) { self.remove_channels(to_pmt(ids, "ids")); },
            py::arg("ids"),
            D(multichannel_correlator_base, remove_channels))
        .def("channel_ids",
             &base::channel_ids,
             D(multichannel_correlator_base, channel_ids))
        .def("pending_changes",
             &base::pending_changes,
             D(multichannel_correlator_base, pending_changes))
        .def("samples_processed",
             &base::samples_processed,
             D(multichannel_correlator_base, samples_processed))
        .def("sample_rate_hz",
             &base::sample_rate_hz,
             D(multichannel_correlator_base, sample_rate_hz))
        .def("taps", &base::taps, D(multichannel_correlator_base, taps))
        .def("tap_offsets_chips",
             &base::tap_offsets_chips,
             D(multichannel_correlator_base, tap_offsets_chips))
        .def("max_channels",
             &base::max_channels,
             D(multichannel_correlator_base, max_channels))
        .def("input_format",
             &base::input_format,
             D(multichannel_correlator_base, input_format))
        .def("backend", &base::backend, D(multichannel_correlator_base, backend));

    bind_variant<cd::multichannel_correlator_cc>(m,
                                                 "multichannel_correlator_cc",
                                                 D(multichannel_correlator_cc),
                                                 D(multichannel_correlator_cc, make));
    bind_variant<cd::multichannel_correlator_sc>(m,
                                                 "multichannel_correlator_sc",
                                                 D(multichannel_correlator_sc),
                                                 D(multichannel_correlator_sc, make));
    bind_variant<cd::multichannel_correlator_bc>(m,
                                                 "multichannel_correlator_bc",
                                                 D(multichannel_correlator_bc),
                                                 D(multichannel_correlator_bc, make));
}
