// The Python module embpriv (docs/python.md): the compiled part, _embpriv, which the package's
// __init__.py imports after torch (whose types the at::Tensor conversions need).
#include <pybind11/pybind11.h>

#include "core/error.h"
#include "python/bindings.h"

namespace py = pybind11;

PYBIND11_MODULE(_embpriv, m) {
  m.doc() = "embpriv: privacy mechanisms on language-model embeddings (docs/python.md)";
  // The one error model (core/error.h): bad input raises ValueError and an internal fault
  // RuntimeError, with the message the command line prints after `embpriv: error: `.
  py::register_exception_translator([](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const embpriv::Error& e) {
      if (e.kind() == embpriv::ErrorKind::bad_input) {
        PyErr_SetString(PyExc_ValueError, e.what());
      } else {
        PyErr_SetString(PyExc_RuntimeError, e.what());
      }
    }
  });
  embpriv::python::bind_mechanisms(m);
  embpriv::python::bind_attacks(m);
  embpriv::python::bind_theory(m);
  embpriv::python::bind_seeds(m);
  embpriv::python::bind_run(m);
  embpriv::python::bind_models(m);
}
