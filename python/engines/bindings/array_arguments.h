/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H
#define INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H

// NumPy arguments of the engines' bindings, checked and converted once, with errors
// that name the argument.

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <complex>
#include <string>

namespace cudadsp_engines {

namespace py = pybind11;

/*!
 * \p array as a C-contiguous float32 array (a copy only where the dtype or the layout
 * needs one). Only real numbers: integers ('i', 'u') and floats ('f') are accepted, a
 * complex or boolean array is a TypeError naming \p name, as is an object array that
 * cannot be converted.
 */
inline py::array_t<float, py::array::c_style> float32_array(const py::array& array,
                                                            const char* name)
{
    const char kind = array.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'f')
        throw py::type_error(std::string(name) + ": dtype " +
                             py::str(array.dtype()).cast<std::string>() +
                             " is not accepted here (real numbers only)");
    auto converted =
        py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(array);
    if (!converted)
        throw py::type_error(std::string(name) + ": cannot be converted to float32");
    return converted;
}

/*!
 * \p array as a C-contiguous complex64 array (a copy only where needed). Real and complex
 * numbers are accepted; a boolean or object array is a TypeError naming \p name.
 */
inline py::array_t<std::complex<float>, py::array::c_style>
complex64_array(const py::array& array, const char* name)
{
    const char kind = array.dtype().kind();
    if (kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c')
        throw py::type_error(std::string(name) + ": dtype " +
                             py::str(array.dtype()).cast<std::string>() +
                             " is not accepted here (numbers only)");
    auto converted =
        py::array_t<std::complex<float>,
                    py::array::c_style | py::array::forcecast>::ensure(array);
    if (!converted)
        throw py::type_error(std::string(name) + ": cannot be converted to complex64");
    return converted;
}

//! The shape of \p array as a Python tuple's text, "(3, 4)", for error messages.
inline std::string shape_text(const py::array& array)
{
    return py::str(array.attr("shape")).cast<std::string>();
}

} // namespace cudadsp_engines

#endif /* INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H */
