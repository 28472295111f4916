#include "python/python_values.h"

#include <torch/csrc/autograd/python_variable.h>

#include <cmath>
#include <limits>

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

at::Tensor tensor_argument(const py::handle& value, const char* name) {
  if (!THPVariable_Check(value.ptr())) {
    throw py::type_error(std::string(name) + " must be a torch.Tensor, got " + type_name(value));
  }
  return THPVariable_Unpack(value.ptr());
}

}  // namespace embpriv::python
