/* -*- c++ -*- */
/*
 * Copyright 2026 gr-cudadsp authors.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#ifndef INCLUDED_CUDADSP_BINDINGS_INTEGER_ARGUMENT_H
#define INCLUDED_CUDADSP_BINDINGS_INTEGER_ARGUMENT_H

#include <pybind11/pybind11.h>
#include <type_traits>
#include <array>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

namespace gr {
namespace cudadsp {
namespace bindings {

/*!
 * A Python integer argument, taken whole so that the binding can name it when it does
 * not fit the C++ type. Bound as `int` directly, a value such as 2**32 or -1 for an
 * unsigned size fails in pybind11's dispatcher with "incompatible function arguments",
 * which names no parameter. Declare the parameter as integer_argument instead (its
 * Python signature still reads `int`) and pass it to narrow<T>(name, argument), which
 * raises ValueError naming the parameter and the range it broke; checked_integers()
 * below does that for every integer parameter of a function. The C++ API keeps its
 * types; make() then checks the parameter's own rule as before.
 *
 * It accepts what pybind11's int caster accepts: any object with __index__ (int, bool,
 * NumPy integers), never a float.
 */
struct integer_argument {
    pybind11::int_ value;
};

/*! \p argument as a T, else ValueError naming the parameter \p name ("vlen", or an
 *  element of a structure: "hypotheses[2].transitions[0].source") and the bound of T
 *  that it broke. */
template <typename T>
T narrow(const std::string& name, const integer_argument& argument)
{
    static_assert(std::is_integral<T>::value && sizeof(T) <= sizeof(long long),
                  "narrow<T>: T must be an integer type of at most 64 bits");
    using limits = std::numeric_limits<T>;
    // Compared as Python ints: exact for any size, so 2**64 + 1 never wraps to 1.
    const pybind11::int_ lowest(static_cast<long long>(limits::lowest()));
    const pybind11::int_ highest(limits::max());
    const char* type = std::is_signed<T>::value ? "a C++ signed integer of "
                                                : "a C++ unsigned integer of ";
    const std::string bits = std::to_string(8 * sizeof(T)) + " bits";
    auto got = [&]() {
        // Python refuses str() of an int longer than sys.get_int_max_str_digits().
        try {
            return pybind11::str(pybind11::handle(argument.value)).cast<std::string>();
        } catch (const pybind11::error_already_set&) {
            return std::string("an integer too long to print");
        }
    };
    if (argument.value < lowest)
        throw pybind11::value_error(name + ": must be at least " +
                                    std::to_string(limits::lowest()) + " (" + type +
                                    bits + "; the block may require more), got " + got());
    if (argument.value > highest)
        throw pybind11::value_error(name + ": must be at most " +
                                    std::to_string(limits::max()) + " (" + type + bits +
                                    "; the block may allow less), got " + got());
    return argument.value.cast<T>();
}

/*!
 * \p argument as a count of a block's configuration (a std::size_t) that is also a
 * C++ int, as the block's item sizes and getters are, and not negative: ValueError
 * naming \p name otherwise. The configuration's own rule (>= 1, a range) follows in
 * make().
 */
inline std::size_t int_count(const std::string& name, const integer_argument& argument)
{
    const int count = narrow<int>(name, argument);
    return narrow<std::size_t>(name, integer_argument{ pybind11::int_(count) });
}

namespace detail {

//! Parameters taken as integer_argument: integers other than bool.
template <typename T>
constexpr bool is_integer_parameter = std::is_integral<std::decay_t<T>>::value &&
                                      !std::is_same<std::decay_t<T>, bool>::value;

template <typename T>
using python_parameter = std::conditional_t<is_integer_parameter<T>, integer_argument, T>;

//! For each parameter, how many integer parameters precede it: the index of its name.
template <typename... Args>
constexpr std::array<std::size_t, sizeof...(Args)> integer_ordinals()
{
    constexpr bool integer[] = { is_integer_parameter<Args>..., false };
    std::array<std::size_t, sizeof...(Args)> ordinals{};
    std::size_t count = 0;
    for (std::size_t i = 0; i < sizeof...(Args); ++i) {
        ordinals[i] = count;
        count += integer[i] ? 1 : 0;
    }
    return ordinals;
}

template <typename T, typename A>
decltype(auto) to_parameter(const char* name, A& argument)
{
    if constexpr (is_integer_parameter<T>)
        return narrow<std::decay_t<T>>(name, argument);
    else
        return static_cast<A&>(argument);
}

template <typename R, typename... Args, std::size_t N, std::size_t... I>
R call_checked(R (*function)(Args...),
               const std::array<const char*, N>& names,
               std::index_sequence<I...>,
               python_parameter<Args>&... arguments)
{
    constexpr std::array<std::size_t, sizeof...(Args)> ordinals =
        integer_ordinals<Args...>();
    // A parameter after the last integer has ordinal N: it has no name and needs none.
    return function(
        to_parameter<Args>(ordinals[I] < N ? names[ordinals[I]] : "", arguments)...);
}

} // namespace detail

/*!
 * \p function (a block's make(), a static helper) with every integer parameter taken as
 * integer_argument and narrowed under its name: \p names are the integer parameters'
 * names in order, one each (the count is checked when compiled), e.g.
 * checked_integers(&phase_unwrap_ff::make, "vlen", "batch_samples"). The result goes
 * to py::init() or def_static() with the same py::arg list as \p function would.
 */
template <typename R, typename... Args, typename... Names>
auto checked_integers(R (*function)(Args...), Names... names)
{
    static_assert(sizeof...(Names) ==
                      (0 + ... + (detail::is_integer_parameter<Args> ? 1 : 0)),
                  "checked_integers: give one name per integer parameter, in order");
    const std::array<const char*, sizeof...(Names)> named{ names... };
    return [function, named](detail::python_parameter<Args>... arguments) -> R {
        return detail::call_checked(
            function, named, std::index_sequence_for<Args...>{}, arguments...);
    };
}

} // namespace bindings
} // namespace cudadsp
} // namespace gr

namespace pybind11 {
namespace detail {

template <>
struct type_caster<gr::cudadsp::bindings::integer_argument> {
    PYBIND11_TYPE_CASTER(gr::cudadsp::bindings::integer_argument, const_name("int"));

    bool load(handle source, bool)
    {
        // As pybind11's int caster: floats are refused even when they hold an integer.
        if (!source || PyFloat_Check(source.ptr()) || !PyIndex_Check(source.ptr()))
            return false;
        object index = reinterpret_steal<object>(PyNumber_Index(source.ptr()));
        if (!index) {
            PyErr_Clear();
            return false;
        }
        value.value = reinterpret_borrow<int_>(index);
        return true;
    }

    static handle cast(const gr::cudadsp::bindings::integer_argument& source,
                       return_value_policy,
                       handle)
    {
        return source.value.inc_ref();
    }
};

} // namespace detail
} // namespace pybind11

#endif /* INCLUDED_CUDADSP_BINDINGS_INTEGER_ARGUMENT_H */
