#include "python/python_values.h"

#include <torch/csrc/autograd/python_variable.h>

#include <cmath>
#include <limits>

#include "core/error.h"

namespace py = pybind11;

namespace embpriv::python {

std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

ParamValue param_value(const py::handle& value) {
  ParamValue out;
  // bool before int: True is an int in Python.
  if (py::isinstance<py::bool_>(value)) {
    out.text = value.cast<bool>() ? "true" : "false";
    out.shown = "'" + *out.text + "'";
    return out;
  }
  if (py::isinstance<py::int_>(value)) {
    out.text = py::str(value).cast<std::string>();
    const double number = PyLong_AsDouble(value.ptr());
    if (number == -1.0 && PyErr_Occurred()) {  // OverflowError: beyond float64's range
      PyErr_Clear();
      out.number = value.cast<py::int_>() < py::int_(0) ? -std::numeric_limits<double>::infinity()
                                                        : std::numeric_limits<double>::infinity();
    } else {
      out.number = number;
    }
    out.shown = "'" + *out.text + "'";
    return out;
  }
  if (py::isinstance<py::float_>(value)) {
    out.number = value.cast<double>();
    out.text = py::repr(value).cast<std::string>();  // the shortest text that reads back the same
    out.shown = "'" + *out.text + "'";
    return out;
  }
  if (py::isinstance<py::str>(value)) {
    out.text = value.cast<std::string>();
    out.shown = "'" + *out.text + "' (a str)";
    return out;
  }
  const std::string type = type_name(value);
  const bool vowel = !type.empty() && std::string("aeiouAEIOU").find(type[0]) != std::string::npos;
  out.shown = value.is_none() ? std::string("None") : (vowel ? "an " : "a ") + type;
  return out;
}

std::uint64_t seed_argument(const py::handle& value, const char* name) {
  const std::string wanted = std::string(name) + " must be an int in [0, 2^64), got ";
  if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr())) {
    throw py::type_error(wanted + py::repr(value).cast<std::string>() + " (a " + type_name(value) + ")");
  }
  const py::int_ number = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
  if (!number) throw py::error_already_set();
  const unsigned long long seed = PyLong_AsUnsignedLongLong(number.ptr());
  if (seed == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {  // negative or >= 2^64
    PyErr_Clear();
    const std::string shown = py::repr(number).cast<std::string>();
    EMBPRIV_CHECK(false, wanted << shown);
  }
  return static_cast<std::uint64_t>(seed);
}

at::Tensor tensor_argument(const py::handle& value, const char* name) {
  if (!THPVariable_Check(value.ptr())) {
    throw py::type_error(std::string(name) + " must be a torch.Tensor, got " + type_name(value));
  }
  return THPVariable_Unpack(value.ptr());
}

}  // namespace embpriv::python
