#pragma once
// Python values as YAML nodes, so that a dict names a mechanism or a config map exactly as the
// same map written in a YAML file would.
#include <pybind11/pybind11.h>
#include <yaml-cpp/yaml.h>

namespace embpriv::python {

// dict -> map (keys as str), list/tuple -> sequence, None -> null, bool -> true/false,
// int -> its digits, float -> its shortest round-trip text (repr), str -> scalar; a str at the
// top level is parsed as YAML text. Anything else throws embpriv::Error naming its type.
YAML::Node yaml_from_python(const pybind11::handle& value);

}  // namespace embpriv::python
