/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H
#define INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H

// NumPy arguments of the engines' bindings, checked and converted once, with errors
// that name the argument, and the NumPy results they return.
//
// NumPy 2 moved PyArray_Descr's elsize field. pybind11 before 2.12 (Debian 12 has 2.10)
// still reads it where it was, so two of its calls go wrong under NumPy 2:
// dtype::itemsize() and array::itemsize() return a wrong size, and the one-dimensional
// constructors array_t<T>(count) and array(count, ptr) take their stride from it (0:
// every element is the first). The bindings use item_size() and new_vector() below
// instead.

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <complex>
#include <string>
#include <vector>

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

//! The size in bytes of one element of \p dtype, from NumPy itself (the comment above).
inline py::ssize_t item_size(const py::dtype& dtype)
{
    return dtype.attr("itemsize").cast<py::ssize_t>();
}

/*!
 * A new one-dimensional array of \p count elements, copied from \p data when it is given.
 * Its stride is sizeof(T), where py::array_t<T>(count) would read it from the dtype (the
 * comment above).
 */
template <typename T>
py::array_t<T> new_vector(py::ssize_t count, const T* data = nullptr)
{
    return py::array_t<T>(std::vector<py::ssize_t>{ count }, data);
}

//! \p values as a new one-dimensional array (a copy).
template <typename T>
py::array_t<T> array_of(const std::vector<T>& values)
{
    return new_vector(static_cast<py::ssize_t>(values.size()), values.data());
}

//! A one-dimensional array as a vector (a copy); another shape is a ValueError naming
//! \p name.
template <typename T>
std::vector<T> vector_of(const py::array_t<T, py::array::forcecast>& array,
                         const char* name)
{
    if (array.ndim() != 1)
        throw py::value_error(std::string(name) + ": must be one-dimensional, got " +
                              std::to_string(array.ndim()) + " dimensions");
    return std::vector<T>(array.data(), array.data() + array.size());
}

} // namespace cudadsp_engines

#endif /* INCLUDED_CUDADSP_ENGINES_ARRAY_ARGUMENTS_H */
