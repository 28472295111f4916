#include "experiments/engine/mechanism_yaml.h"

#include <set>

#include "core/error.h"

namespace embpriv {
namespace {

// A quoted scalar ("1") has the tag "!" and stays text, never a number (config_keys.cpp).
bool quoted(const YAML::Node& node) { return node.Tag() == "!"; }

ParamValue value_of(const YAML::Node& node) {
  ParamValue value;
  if (node.IsScalar()) {
    value.text = node.Scalar();
    if (quoted(node)) {
      value.shown = "'" + node.Scalar() + "' (quoted: text)";
      return value;
    }
    double number = 0;
    if (YAML::convert<double>::decode(node, number)) value.number = number;
  }
  value.shown = "'" + YAML::Dump(node) + "'";
  return value;
}

}  // namespace

MechanismConfig mechanism_config(const YAML::Node& node) {
  EMBPRIV_CHECK(node.IsMap(), "a mechanism must be a map such as {name: vmf, epsilon: 2}, got '"
                                  << YAML::Dump(node) << "'");
  MechanismConfig config;
  std::set<std::string> seen;
  for (const auto& item : node) {
    EMBPRIV_CHECK(item.first.IsScalar(),
                  "a mechanism key must be a plain name, got '" << YAML::Dump(item.first) << "'");
    const std::string key = item.first.Scalar();
    EMBPRIV_CHECK(seen.insert(key).second, "duplicate key '" << key << "' in the mechanism; give each key once");
    if (key == "name") {
      if (item.second.IsScalar()) config.name = item.second.Scalar();
      continue;
    }
    config.values.emplace_back(key, value_of(item.second));
  }
  return config;
}

std::unique_ptr<Mechanism> make_mechanism(const YAML::Node& node, const MechanismRegistry& registry) {
  return registry.make(mechanism_config(node));
}

std::unique_ptr<Mechanism> make_mechanism(const std::string& yaml_text, const MechanismRegistry& registry) {
  YAML::Node node;
  try {
    node = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    EMBPRIV_CHECK(false, "malformed mechanism YAML: " << e.what());
  }
  return make_mechanism(node, registry);
}

}  // namespace embpriv
