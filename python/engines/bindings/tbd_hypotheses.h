/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BINDINGS_TBD_HYPOTHESES_H
#define INCLUDED_CUDADSP_BINDINGS_TBD_HYPOTHESES_H

// Track-before-detect motion hypotheses between Python and C++, for both the engine's
// binding (cudadsp._engines, st_tbd) and the block's (st_tbd_ff): the form is
// [(vx, vy, [(source, dx, dy, weight), ...]), ...].

#include "integer_argument.h"
#include <gnuradio/cudadsp/core/st_tbd.h>
#include <pybind11/pybind11.h>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace gr {
namespace cudadsp {
namespace bindings {

namespace py = pybind11;
using core::tbd_hypothesis;
using core::tbd_transition;

inline std::string describe(py::handle object)
{
    return py::repr(object).cast<std::string>();
}

//! A Python sequence (not a string) as a list of its items, else ValueError naming it.
inline std::vector<py::object> items_of(py::handle object, const std::string& name)
{
    if (!py::isinstance<py::sequence>(object) || py::isinstance<py::str>(object))
        throw py::value_error(name + ": must be a sequence, got " + describe(object));
    std::vector<py::object> items;
    for (py::handle item : py::reinterpret_borrow<py::sequence>(object))
        items.push_back(py::reinterpret_borrow<py::object>(item));
    return items;
}

inline float float_of(py::handle object, const std::string& name)
{
    if (!py::isinstance<py::float_>(object) && !py::isinstance<py::int_>(object) &&
        !py::hasattr(object, "__float__"))
        throw py::value_error(name + ": must be a number, got " + describe(object));
    // A number beyond float32's range would become inf (10**400 raises OverflowError),
    // and the engine's message would no longer show the value given: refused here.
    // NaN and inf pass, for the engine to name.
    const std::string beyond = name +
                               ": must be within float32's range (magnitude at most "
                               "3.4028235e38), got " +
                               describe(object);
    double value = 0.0;
    try {
        value = py::float_(py::reinterpret_borrow<py::object>(object));
    } catch (const py::error_already_set&) {
        throw py::value_error(beyond);
    }
    if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max())
        throw py::value_error(beyond);
    return static_cast<float>(value);
}

inline int int_of(py::handle object, const std::string& name)
{
    // An index: Python int or NumPy integer, never a float (2.5 is no hypothesis).
    if (!py::hasattr(object, "__index__"))
        throw py::value_error(name + ": must be an integer, got " + describe(object));
    return narrow<int>(
        name, integer_argument{ py::int_(py::reinterpret_borrow<py::object>(object)) });
}

/*!
 * [(vx, vy, [(source, dx, dy, weight), ...]), ...] -> hypotheses. Shapes and types
 * are checked here (ValueError naming the element); the values are the engine's to
 * validate (weights finite, sources in range, ...).
 */
inline std::vector<tbd_hypothesis> hypotheses_from_python(py::handle object)
{
    std::vector<tbd_hypothesis> hypotheses;
    const std::vector<py::object> items = items_of(object, "hypotheses");
    for (std::size_t m = 0; m < items.size(); ++m) {
        const std::string h = "hypotheses[" + std::to_string(m) + "]";
        const std::vector<py::object> fields = items_of(items[m], h);
        if (fields.size() != 3)
            throw py::value_error(h +
                                  ": must be (vx, vy, [(source, dx, dy, weight), "
                                  "...]), got " +
                                  describe(items[m]));
        tbd_hypothesis hyp;
        hyp.vx = float_of(fields[0], h + ".vx");
        hyp.vy = float_of(fields[1], h + ".vy");
        const std::vector<py::object> transitions =
            items_of(fields[2], h + ".transitions");
        for (std::size_t k = 0; k < transitions.size(); ++k) {
            const std::string t = h + ".transitions[" + std::to_string(k) + "]";
            const std::vector<py::object> terms = items_of(transitions[k], t);
            if (terms.size() != 4)
                throw py::value_error(t + ": must be (source, dx, dy, weight), got " +
                                      describe(transitions[k]));
            tbd_transition tr;
            tr.source = int_of(terms[0], t + ".source");
            tr.dx = float_of(terms[1], t + ".dx");
            tr.dy = float_of(terms[2], t + ".dy");
            tr.weight = float_of(terms[3], t + ".weight");
            hyp.transitions.push_back(tr);
        }
        hypotheses.push_back(std::move(hyp));
    }
    return hypotheses;
}

/*! The shortest decimal that reads back as the same float: 0.9f prints as 0.9, not
 *  0.8999999761581421, and converts back to the very same float32. */
inline py::float_ shortest(float value)
{
    char text[64];
    const auto end = std::to_chars(text, text + sizeof(text), value).ptr;
    return py::float_(std::strtod(std::string(text, end).c_str(), nullptr));
}

inline py::list hypotheses_to_python(const std::vector<tbd_hypothesis>& hypotheses)
{
    py::list result;
    for (const tbd_hypothesis& hyp : hypotheses) {
        py::list transitions;
        for (const tbd_transition& tr : hyp.transitions)
            transitions.append(py::make_tuple(
                tr.source, shortest(tr.dx), shortest(tr.dy), shortest(tr.weight)));
        result.append(py::make_tuple(shortest(hyp.vx), shortest(hyp.vy), transitions));
    }
    return result;
}

} // namespace bindings
} // namespace cudadsp
} // namespace gr

#endif /* INCLUDED_CUDADSP_BINDINGS_TBD_HYPOTHESES_H */
