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
/* BINDTOOL_HEADER_FILE_HASH(9b35920f448ed65c1894c7e552d19759)                     */
/***********************************************************************************/

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;

#include <gnuradio/cudadsp/multichannel_correlator_cc.h>
// pydoc.h is automatically generated in the build directory
#include <multichannel_correlator_cc_pydoc.h>

#include "integer_argument.h"
#include "pmt_from_python.h"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace {

using gr::cudadsp::multichannel_correlator_base;

using gr::cudadsp::bindings::describe;
using gr::cudadsp::bindings::int_count;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::to_pmt;

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

/*!
 * The block's configuration from the Python keyword arguments: the one place where
 * they become multichannel_correlator_block_config fields (qa_block_defaults reads
 * these assignments to compare each keyword's default with its field's).
 */
template <class Block>
typename Block::sptr make_from_keywords(double sample_rate_hz,
                                        const std::vector<double>& tap_offsets_chips,
                                        const py::object& max_channels,
                                        const py::object& channels,
                                        double intermediate_frequency_hz,
                                        double batch_ms,
                                        const std::string& device,
                                        const integer_argument& lock_loss_windows,
                                        const integer_argument& lock_timeout_windows,
                                        bool remove_lost)
{
    gr::cudadsp::multichannel_correlator_block_config config;
    config.sample_rate_hz = sample_rate_hz;
    config.tap_offsets_chips = tap_offsets_chips;
    config.max_channels = static_cast<std::size_t>(max_channels_of(max_channels));
    config.channels = to_pmt(channels, "channels");
    config.intermediate_frequency_hz = intermediate_frequency_hz;
    config.batch_ms = batch_ms;
    config.device = device;
    config.lock_loss_windows =
        static_cast<unsigned>(int_count("lock_loss_windows", lock_loss_windows));
    config.lock_timeout_windows =
        static_cast<unsigned>(int_count("lock_timeout_windows", lock_timeout_windows));
    config.remove_lost = remove_lost;
    return Block::make(config);
}

template <class Block>
void bind_variant(py::module& m, const char* name, const char* doc, const char* make_doc)
{
    py::class_<Block,
               multichannel_correlator_base,
               gr::block,
               gr::basic_block,
               std::shared_ptr<Block>>(m, name, doc)
        .def(py::init(&make_from_keywords<Block>),
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

    // gnss_signal_system is the engine's (cudadsp._engines binds it; gnuradio.cudadsp
    // re-exports it).

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
