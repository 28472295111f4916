#pragma once
// Python values as the library's types, with the one error model (docs/python.md): a value of
// the wrong kind inside a config is bad input (ValueError, the command line's message), an
// argument of the wrong Python type is a TypeError.
#include <torch/csrc/utils/pybind.h>

#include <cstdint>
#include <string>

#include "mechanisms/param_spec.h"

namespace embpriv::python {

// "int", "list", "NoneType": the name of a value's Python type.
std::string type_name(const pybind11::handle& value);

// One value of a mechanism dict as the mechanisms layer reads it (mechanisms/param_spec.h): an
// int or float is a number (an int beyond float64's range is +-inf, which the range checks
// refuse), a str is text (never a number: "1" is refused where a number is wanted, as a quoted
// "1" is in YAML), a bool is the text true/false as YAML reads it; anything else (None, a list,
// a dict) has neither, and messages show its type. Containers are never walked into.
ParamValue param_value(const pybind11::handle& value);

// A seed argument: an integer (an int, or anything with __index__) in [0, 2^64). A bool is a
// TypeError (True is an int in Python, but no one means it as a seed: embpriv.wrap refuses it
// too), and so is any other type; a value out of range is bad input (ValueError). Either way the
// message names the argument and the value only (pybind11's own error would print every
// argument, the tensor included).
std::uint64_t seed_argument(const pybind11::handle& value, const char* name);

// A tensor argument; anything else raises TypeError naming the argument.
at::Tensor tensor_argument(const pybind11::handle& value, const char* name);

}  // namespace embpriv::python
