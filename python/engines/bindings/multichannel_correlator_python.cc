/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/***********************************************************************************/
/* Written by hand (no pygccxml at build time), docstrings inline. The hash is the */
/* md5 of the bound header: configuration stops when the header changes, until    */
/* this file is brought up to date and tools/update-binding-hashes is run.         */
/* BINDTOOL_GEN_AUTOMATIC(0)                                                       */
/* BINDTOOL_USE_PYGCCXML(0)                                                        */
/* BINDTOOL_HEADER_FILE(core/gnss_channel_description.h)                           */
/* BINDTOOL_HEADER_FILE_HASH(74e130f580a52b2c138e759af172d8fb)                     */
/***********************************************************************************/

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_arguments.h"
#include "engine_handle.h"
#include "gnss/gnss_lock_monitor.h"
#include "integer_argument.h"
#include <gnuradio/cudadsp/core/gnss_channel_description.h>
#include <gnuradio/cudadsp/core/multichannel_correlator.h>
#include <cmath>
#include <complex>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

namespace core = gr::cudadsp::core;
using gr::cudadsp::bindings::integer_argument;
using gr::cudadsp::bindings::narrow;

//! Longest text of a value in an error message.
constexpr std::size_t max_value_text = 80;

//! The repr of \p value, cut to max_value_text characters.
std::string short_repr(const py::handle& value)
{
    std::string text = py::repr(value).cast<std::string>();
    if (text.size() > max_value_text)
        text = text.substr(0, max_value_text - 3) + "...";
    return text;
}

bool is_bool(const py::handle& v)
{
    return py::isinstance<py::bool_>(v) ||
           py::isinstance(v, py::module::import("numpy").attr("bool_"));
}

/*!
 * A channel described by Python keyword arguments or a dict with str keys: the same keys
 * and rules as the blocks' PMT dicts (core::make_gnss_channel()). Numbers are Python or
 * NumPy numbers, never bool or str; integers may be reals with an integral value.
 */
class python_channel_fields : public core::gnss_channel_fields
{
public:
    explicit python_channel_fields(const py::dict& fields)
    {
        for (const auto& item : fields) {
            if (!py::isinstance<py::str>(item.first))
                throw py::type_error("channel: keys must be str, got " +
                                     short_repr(item.first));
            const std::string key = item.first.cast<std::string>();
            if (!core::gnss_channel_keys().count(key))
                throw py::value_error(key + ": unknown channel key (see "
                                            "docs/blocks/multichannel_correlator_cc.md)");
            d_fields.emplace(key, py::reinterpret_borrow<py::object>(item.second));
        }
    }

    bool has(const std::string& key) const override { return d_fields.count(key) != 0; }

    double number(const std::string& key) const override
    {
        return number_of(get(key), key);
    }

    std::int64_t integer(const std::string& key) const override
    {
        const py::object& v = get(key);
        if (is_bool(v))
            bad(key, "an integer");
        if (py::hasattr(v, "__index__")) {
            const py::int_ i(v.attr("__index__")());
            if (i < py::int_(std::numeric_limits<std::int64_t>::min()) ||
                i > py::int_(std::numeric_limits<std::int64_t>::max()))
                bad(key, "an integer of 64 bits");
            return i.cast<std::int64_t>();
        }
        const double d = number_of(v, key);
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.0e15)
            return static_cast<std::int64_t>(d);
        bad(key, "an integer");
    }

    bool is_text(const std::string& key) const override
    {
        return py::isinstance<py::str>(get(key));
    }

    std::string text(const std::string& key) const override
    {
        if (!is_text(key))
            bad(key, "a str");
        return get(key).cast<std::string>();
    }

    bool boolean(const std::string& key) const override
    {
        if (!is_bool(get(key)))
            bad(key, "True or False");
        return get(key).cast<bool>();
    }

    std::vector<double> numbers(const std::string& key) const override
    {
        const py::object& v = get(key);
        if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v) ||
            !py::hasattr(v, "__len__"))
            bad(key, "a sequence of numbers");
        std::vector<double> out;
        std::size_t i = 0;
        for (const py::handle element : v)
            out.push_back(number_of(element, key + "[" + std::to_string(i++) + "]"));
        return out;
    }

    std::string value_text(const std::string& key) const override
    {
        return short_repr(get(key));
    }

private:
    const py::object& get(const std::string& key) const { return d_fields.at(key); }

    [[noreturn]] void bad(const std::string& key, const std::string& rule) const
    {
        throw py::type_error(key + ": must be " + rule + ", got " + value_text(key));
    }

    //! A real number: int, float or a NumPy one; never bool, str or complex.
    static double number_of(const py::handle& v, const std::string& key)
    {
        const py::module numpy = py::module::import("numpy");
        if (is_bool(v) || !PyNumber_Check(v.ptr()) || PyComplex_Check(v.ptr()) ||
            py::isinstance(v, numpy.attr("complexfloating")) ||
            py::isinstance(v, numpy.attr("ndarray")))
            throw py::type_error(key + ": must be a real number, got " + short_repr(v));
        return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
    }

    std::map<std::string, py::object> d_fields;
};

//! The correlator as Python holds it, with what its records report of each channel.
class correlator_handle
    : public cudadsp_engines::engine_handle<core::multichannel_correlator>
{
public:
    correlator_handle(const core::multichannel_correlator_config& config,
                      const core::gnss_channel_defaults& defaults)
        : engine_handle(config), d_defaults(defaults)
    {
    }

    //! Reads a description (std::invalid_argument / TypeError naming its key).
    core::gnss_channel_request read(const py::dict& fields) const
    {
        return core::make_gnss_channel(
            python_channel_fields(fields), d_defaults, config());
    }

    const core::gnss_channel_defaults& defaults() const { return d_defaults; }
    //! Each channel's (system, prn), kept for the records.
    std::map<std::uint32_t, std::pair<core::gnss_signal_system, int>> signals;
    //! Each channel as last added or re-initialised, for gnss_lock_monitor.watch.
    std::map<std::uint32_t, core::gnss_channel> channels;

private:
    const core::gnss_channel_defaults d_defaults;
};

//! kwargs and an optional dict of the same keys, merged (a key in both is an error).
py::dict description_of(const py::object& channel, const py::kwargs& fields)
{
    py::dict all;
    if (!channel.is_none()) {
        if (!py::isinstance<py::dict>(channel))
            throw py::type_error("channel: must be a dict of channel keys, got " +
                                 short_repr(channel));
        all = py::dict(channel);
    }
    for (const auto& item : fields) {
        if (all.contains(item.first))
            throw py::value_error(item.first.cast<std::string>() +
                                  ": given in the dict and as a keyword");
        all[item.first] = item.second;
    }
    return all;
}

void add_channel(correlator_handle& self,
                 const py::object& channel,
                 const py::kwargs& fields)
{
    const core::gnss_channel_request request = self.read(description_of(channel, fields));
    self.locked(
        [&](core::multichannel_correlator& e) { e.add_channel(request.channel); });
    self.signals[request.channel.id] = { request.system, request.prn };
    self.channels[request.channel.id] = request.channel;
}

void reinit_channel(correlator_handle& self,
                    const py::object& channel,
                    const py::kwargs& fields)
{
    const core::gnss_channel_request request = self.read(description_of(channel, fields));
    self.locked(
        [&](core::multichannel_correlator& e) { e.reinit_channel(request.channel); });
    self.signals[request.channel.id] = { request.system, request.prn };
    self.channels[request.channel.id] = request.channel;
}

void remove_channel(correlator_handle& self, integer_argument id)
{
    const auto channel = narrow<std::uint32_t>("id", id);
    self.locked([&](core::multichannel_correlator& e) { e.remove_channel(channel); });
    self.signals.erase(channel);
    self.channels.erase(channel);
}

/*!
 * \p samples as the bytes of \p format: complex64 for cf32 (any real or complex array,
 * converted), int16 or int8 interleaved I/Q for ci16 and ci8 (the exact dtype, an even
 * number of values: (n, 2) or 2n). Sets \p count to the complex samples.
 */
py::array
input_of(const py::array& samples, core::gnss_sample_format format, std::size_t& count)
{
    if (format == core::gnss_sample_format::cf32) {
        auto converted = cudadsp_engines::complex64_array(samples, "samples");
        count = static_cast<std::size_t>(converted.size());
        return std::move(converted);
    }
    const bool int16 = format == core::gnss_sample_format::ci16;
    if (samples.dtype().kind() != 'i' ||
        cudadsp_engines::item_size(samples.dtype()) != (int16 ? 2 : 1))
        throw py::type_error(
            std::string("samples: input_format ") + core::to_string(format) + " takes " +
            (int16 ? "int16" : "int8") + " interleaved I/Q values, got dtype " +
            py::str(samples.dtype()).cast<std::string>());
    if (samples.size() % 2 != 0)
        throw py::value_error("samples: interleaved I/Q needs an even number of values, "
                              "got shape " +
                              cudadsp_engines::shape_text(samples));
    count = static_cast<std::size_t>(samples.size()) / 2;
    return py::array::ensure(samples, py::array::c_style);
}

/*! Correlates \p samples for every channel: (records, correlations), the records a
 *  structured array of the engine's gnss_epoch_record fields plus system and prn,
 *  the correlations complex64 of shape (records, taps). */
py::tuple process(correlator_handle& self, const py::array& samples)
{
    std::size_t count = 0;
    const py::array input = input_of(samples, self.config().input_format, count);
    core::gnss_correlator_results results;
    {
        py::gil_scoped_release release;
        self.locked([&](core::multichannel_correlator& e) {
            e.process(input.data(), count, results);
        });
    }
    const auto n = static_cast<py::ssize_t>(results.records.size());
    auto records = cudadsp_engines::new_vector(n, results.records.data());
    auto system = cudadsp_engines::new_vector<std::int32_t>(n);
    auto prn = cudadsp_engines::new_vector<std::int32_t>(n);
    for (py::ssize_t i = 0; i < n; ++i) {
        const auto& signal = self.signals.at(results.records[i].channel_id);
        system.mutable_at(i) = signal.first;
        prn.mutable_at(i) = signal.second;
    }
    const auto taps = static_cast<py::ssize_t>(self.config().taps);
    py::array_t<std::complex<float>> correlations({ n, taps });
    std::copy(results.correlations.begin(),
              results.correlations.end(),
              correlations.mutable_data());
    return py::make_tuple(records, system, prn, correlations);
}

/*! The lock monitor's verdicts on \p records (process()'s structured array, in its
 *  order): (channel_id, reason, sample after the deciding epoch) per channel lost. */
py::list observe_records(core::gnss_lock_monitor& monitor, const py::array& records)
{
    const auto typed =
        py::array_t<core::gnss_epoch_record, py::array::c_style>::ensure(records);
    if (!typed || typed.ndim() != 1)
        throw py::type_error("records: must be multichannel_correlator.process()'s "
                             "records, got " +
                             short_repr(records));
    py::list lost;
    for (py::ssize_t i = 0; i < typed.size(); ++i) {
        const core::gnss_epoch_record& r = typed.at(i);
        const core::gnss_lock_monitor::verdict v = monitor.observe(r);
        if (v != core::gnss_lock_monitor::verdict::none)
            lost.append(py::make_tuple(r.channel_id,
                                       core::gnss_lock_monitor::reason(v),
                                       r.start_sample + r.sample_count));
    }
    return lost;
}

void bind_lock_monitor(py::module& m)
{
    m.attr("gnss_default_cn0_epochs") = core::gnss_loop_parameters{}.cn0_epochs;
    py::class_<core::gnss_lock_monitor>(
        m,
        "gnss_lock_monitor",
        "Loss of lock of the correlator's tracking channels, from their records: the "
        "rule of multichannel_correlator_cc's \"lost\" events (lib/core/gnss/"
        "gnss_lock_monitor.h). A channel is lost when its code lock has been off "
        "loss_windows C/N0 windows after having been on, or has not come on within "
        "timeout_windows windows of its start; 0 turns a rule off. Reported once.")
        .def(
            py::init([](integer_argument loss_windows, integer_argument timeout_windows) {
                return core::gnss_lock_monitor(
                    narrow<unsigned>("loss_windows", loss_windows),
                    narrow<unsigned>("timeout_windows", timeout_windows));
            }),
            py::arg("loss_windows"),
            py::arg("timeout_windows"))
        .def(
            "watch",
            [](core::gnss_lock_monitor& monitor,
               const correlator_handle& correlator,
               integer_argument id) {
                const auto wanted = narrow<std::uint32_t>("id", id);
                const auto channel = correlator.channels.find(wanted);
                if (channel == correlator.channels.end())
                    throw py::value_error("id: no channel " + std::to_string(wanted) +
                                          " in the correlator");
                monitor.watch(channel->second);
            },
            py::arg("correlator"),
            py::arg("id"),
            "Start (or restart) watching the correlator's channel id as it was last "
            "added or re-initialised.")
        .def(
            "forget",
            [](core::gnss_lock_monitor& monitor, integer_argument id) {
                monitor.forget(narrow<std::uint32_t>("id", id));
            },
            py::arg("id"),
            "Stop watching channel id (removed).")
        .def("observe",
             &observe_records,
             py::arg("records"),
             "The verdicts on multichannel_correlator.process()'s records: a list of "
             "(channel_id, reason, sample) for each channel lost, reason \"lock_lost\" "
             "or \"never_locked\", sample the one after the deciding epoch.")
        .def_property_readonly("loss_windows", &core::gnss_lock_monitor::loss_windows)
        .def_property_readonly("timeout_windows",
                               &core::gnss_lock_monitor::timeout_windows);
}

} // namespace

void bind_multichannel_correlator(py::module& m)
{
    PYBIND11_NUMPY_DTYPE(core::gnss_epoch_record,
                         channel_id,
                         flags,
                         epoch,
                         start_sample,
                         sample_count,
                         prompt_sign,
                         code_phase_chips,
                         code_rate_cps,
                         doppler_hz,
                         carrier_phase_rad,
                         carrier_cycles,
                         cn0_dbhz,
                         carrier_lock,
                         pll_discriminator_rad,
                         dll_discriminator_chips);

    py::enum_<core::gnss_signal_system>(
        m,
        "gnss_signal_system",
        "Code family of a channel, the records' \"system\" field: explicit_code (0), "
        "gps_l1ca (1), galileo_e1b (2), galileo_e1c (3), glonass_l1of (4).")
        .value("explicit_code", core::gnss_system_explicit_code)
        .value("gps_l1ca", core::gnss_system_gps_l1ca)
        .value("galileo_e1b", core::gnss_system_galileo_e1b)
        .value("galileo_e1c", core::gnss_system_galileo_e1c)
        .value("glonass_l1of", core::gnss_system_glonass_l1of);

    m.attr("gnss_record_flag_tracking") = static_cast<int>(core::gnss_flag_tracking);
    m.attr("gnss_record_flag_cn0_valid") = static_cast<int>(core::gnss_flag_cn0_valid);
    m.attr("gnss_record_flag_code_lock") = static_cast<int>(core::gnss_flag_code_lock);
    m.attr("gnss_record_flag_carrier_lock") =
        static_cast<int>(core::gnss_flag_carrier_lock);
    m.attr("gnss_record_flag_invalid_sums") =
        static_cast<int>(core::gnss_flag_invalid_sums);

    m.def(
        "gnss_receiver_tap_offsets",
        [](const std::string& signal) {
            return core::gnss_receiver_tap_offsets(
                core::parse_acquisition_signal(signal, "signal"));
        },
        py::arg("signal"),
        "The tap offsets (chips) a receiver tracks signal (\"gps_l1ca\", "
        "\"galileo_e1\", \"glonass_l1of\") with: early, prompt, late, 0.5 chip apart "
        "(0.15 for Galileo E1's narrow BOC(1,1) peak). ValueError naming signal.");

    py::class_<correlator_handle>(
        m,
        "multichannel_correlator",
        R"doc(N channels x T taps of GNSS carrier and code wipe-off over one input stream, each channel open-loop or steered by its own PLL/FLL/DLL: the engine of multichannel_correlator_cc, on the CPU or a CUDA GPU.

Channels are described by the keys of docs/blocks/multichannel_correlator_cc.md, given as keywords or a dict: "id" and "prn" with "system" ("gps_l1ca", "galileo_e1b", "galileo_e1c", "glonass_l1of") or an explicit "code", "doppler_hz", "code_phase_chips", "start_sample", loop settings, ... A detection of cudadsp.gnss.acquire() gives doppler_hz, code_phase_chips and start_sample as they are. process() takes samples in time order; epochs that run past a call's end continue in the next. Most users want cudadsp.gnss.track().)doc")
        .def(py::init([](double sample_rate_hz,
                         const std::string& input_format,
                         std::vector<double> tap_offsets_chips,
                         integer_argument max_channels,
                         double intermediate_frequency_hz,
                         const std::string& device) {
                 core::gnss_channel_defaults defaults;
                 defaults.tap_offsets_chips = std::move(tap_offsets_chips);
                 defaults.intermediate_frequency_hz = intermediate_frequency_hz;
                 const auto config = core::make_correlator_config(
                     sample_rate_hz,
                     core::parse_gnss_sample_format(input_format, "input_format"),
                     narrow<std::size_t>("max_channels", max_channels),
                     device,
                     defaults);
                 return std::make_unique<correlator_handle>(config, defaults);
             }),
             py::arg("sample_rate_hz"),
             py::arg("input_format") = "cf32",
             py::arg("tap_offsets_chips") = std::vector<double>{ -0.5, 0.0, 0.5 },
             py::arg("max_channels") = 4096,
             py::arg("intermediate_frequency_hz") = 0.0,
             py::arg("device") = "auto",
             "Make a correlator: input_format \"cf32\" (complex64), \"ci16\" or \"ci8\" "
             "(interleaved integers, correlations in their units); tap_offsets_chips the "
             "taps every channel has unless its description says otherwise (early, "
             "prompt and late by default). ValueError naming a bad argument.")
        .def("add_channel",
             &add_channel,
             py::arg("channel") = py::none(),
             "Add a channel described by keywords (and/or a dict): "
             "add_channel(id=1, prn=7, doppler_hz=1250.0, code_phase_chips=311.2). "
             "ValueError or TypeError naming the key; ValueError for an id in use.")
        .def("reinit_channel",
             &reinit_channel,
             py::arg("channel") = py::none(),
             "Replace channel id with a fresh one from its new description.")
        .def("remove_channel", &remove_channel, py::arg("id"), "Drop a channel.")
        .def("process",
             &process,
             py::arg("samples"),
             "Correlate samples (complex for cf32; int16 / int8 interleaved I/Q for "
             "ci16 / ci8) for every channel: (records, system, prn, correlations). "
             "records: a structured array, one per completed epoch (fields channel_id, "
             "flags, epoch, start_sample, sample_count, prompt_sign, code_phase_chips, "
             "code_rate_cps, doppler_hz, carrier_phase_rad, carrier_cycles, cn0_dbhz, "
             "carrier_lock, pll_discriminator_rad, dll_discriminator_chips), in "
             "ascending channel id, each channel's epochs in time order; system and prn "
             "of each record's channel; correlations complex64 (records, taps).")
        .def(
            "channel_ids",
            [](correlator_handle& self) {
                return self.locked(
                    [](core::multichannel_correlator& e) { return e.channel_ids(); });
            },
            "The ids of the channels, ascending.")
        .def(
            "samples_processed",
            [](correlator_handle& self) {
                return self.locked([](core::multichannel_correlator& e) {
                    return e.samples_processed();
                });
            },
            "Samples consumed so far: the absolute index of the next sample.")
        .def_property_readonly(
            "taps",
            [](const correlator_handle& self) { return self.config().taps; },
            "Taps per channel.")
        .def_property_readonly(
            "sample_rate_hz",
            [](const correlator_handle& self) { return self.config().sample_rate_hz; },
            "Samples per second.")
        .def("backend",
             &correlator_handle::backend,
             "The device the engine runs on: \"cpu\" or \"cuda:N\".");

    bind_lock_monitor(m);
}
