/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BINDINGS_PMT_FROM_PYTHON_H
#define INCLUDED_CUDADSP_BINDINGS_PMT_FROM_PYTHON_H

// Python values as PMTs for the GNSS blocks' channel descriptions (the correlator's
// channels, the acquisition's channel_parameters): one conversion for both bindings.

#include <pmt/pmt.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <limits>
#include <string>

namespace gr {
namespace cudadsp {
namespace bindings {

namespace py = pybind11;

inline std::string describe(py::handle object)
{
    return py::repr(object).cast<std::string>();
}

/*!
 * A Python value as a PMT, for channel descriptions: a PMT as it is; None -> PMT_NIL;
 * bool; integers (Python or NumPy) -> integer (uint64 above 2^63 - 1); other numbers
 * -> real; str -> symbol; dict (str keys) -> dict; list, tuple or NumPy array ->
 * vector. pmt.to_pmt does most of this but refuses NumPy int8 arrays and scalars.
 */
inline pmt::pmt_t
to_pmt(py::handle value, const std::string& where, std::size_t depth = 0)
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
        if (overflow > 0) {
            // Not i.cast<std::uint64_t>(): beyond 2^64 - 1 that throws pybind11's
            // cast_error, a RuntimeError naming nothing.
            const unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
            if (PyErr_Occurred()) {
                PyErr_Clear();
                throw py::value_error(where +
                                      ": integer too large (above 2^64 - 1), got " +
                                      describe(value));
            }
            return pmt::from_uint64(u);
        }
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

} // namespace bindings
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BINDINGS_PMT_FROM_PYTHON_H */
