#pragma once
// The YAML side of building mechanisms: a config's mechanism map ({name: vmf, epsilon: 2}) as the
// mechanisms layer's MechanismConfig (mechanisms/param_spec.h). The mechanisms layer reads no
// YAML; this is the one place that turns YAML into mechanism keys.
#include <yaml-cpp/yaml.h>

#include <memory>
#include <string>

#include "mechanisms/registry.h"

namespace embpriv {

// A YAML map as a MechanismConfig. A plain scalar that reads as a number is a number; a quoted
// one ("1") is text, as for every other config key (experiments/engine/config_keys.cpp). Refuses
// a value that is not a map, a key that is not a plain name and a key given twice.
MechanismConfig mechanism_config(const YAML::Node& node);

// Builds the mechanism a YAML map names.
std::unique_ptr<Mechanism> make_mechanism(const YAML::Node& node, const MechanismRegistry& registry);

// Builds one mechanism from a YAML text such as "{name: vmf, epsilon: 2}".
std::unique_ptr<Mechanism> make_mechanism(const std::string& yaml_text, const MechanismRegistry& registry);

}  // namespace embpriv
