#include "python/python_yaml.h"

#include <string>

#include "core/error.h"

namespace py = pybind11;

namespace embpriv::python {
namespace {

YAML::Node node_from(const py::handle& value) {
  if (value.is_none()) return YAML::Node(YAML::NodeType::Null);
  // bool before int: True is an int in Python.
  if (py::isinstance<py::bool_>(value)) return YAML::Node(value.cast<bool>() ? "true" : "false");
  if (py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)) {
    // repr() of a float is the shortest text that reads back to the same double.
    return YAML::Node(py::repr(value).cast<std::string>());
  }
  if (py::isinstance<py::str>(value)) return YAML::Node(value.cast<std::string>());
  if (py::isinstance<py::dict>(value)) {
    YAML::Node map(YAML::NodeType::Map);
    for (const auto& item : value.cast<py::dict>()) {
      map[py::str(item.first).cast<std::string>()] = node_from(item.second);
    }
    return map;
  }
  if (py::isinstance<py::list>(value) || py::isinstance<py::tuple>(value)) {
    YAML::Node sequence(YAML::NodeType::Sequence);
    for (const auto& item : value) sequence.push_back(node_from(item));
    return sequence;
  }
  EMBPRIV_CHECK(false, "a config value must be a dict, list, str, number, bool or None, got "
                           << py::str(py::type::of(value).attr("__name__")).cast<std::string>()
                           << " '" << py::repr(value).cast<std::string>() << "'");
  return {};
}

}  // namespace

YAML::Node yaml_from_python(const py::handle& value) {
  if (py::isinstance<py::str>(value)) {
    try {
      return YAML::Load(value.cast<std::string>());
    } catch (const YAML::Exception& e) {
      EMBPRIV_CHECK(false, "malformed YAML: " << e.what());
    }
  }
  return node_from(value);
}

}  // namespace embpriv::python
