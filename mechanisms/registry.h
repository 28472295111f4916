#pragma once
// Builds mechanisms from YAML maps such as {name: vmf, epsilon: 2, beta: 1}. Unknown names and
// unknown keys are rejected with the list of valid ones.
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mechanisms/mechanism.h"

namespace embpriv {

// Typed access to a mechanism's YAML map; every error names the key and the value (the engine
// prefixes where the map came from: a file line, a sweep value or a command-line override).
class MechanismParams {
 public:
  MechanismParams(std::string mechanism, YAML::Node node);
  double number(const std::string& key) const;  // required
  double number_or(const std::string& key, double fallback) const;
  std::string text_or(const std::string& key, const std::string& fallback) const;

 private:
  std::string mechanism_;
  YAML::Node node_;
};

class MechanismRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Mechanism>(const MechanismParams&)>;
  struct Entry {
    std::vector<std::string> keys;  // accepted keys besides `name`
    std::string summary;
    Factory factory;
  };

  // Adds or replaces the mechanism `name`.
  void add(const std::string& name, Entry entry);
  std::unique_ptr<Mechanism> make(const YAML::Node& node) const;
  std::vector<std::string> names() const;
  const Entry& entry(const std::string& name) const;

 private:
  std::map<std::string, Entry> entries_;
};

// vmf_tangent, vmf, gaussian, laplace, npgaussian.
MechanismRegistry default_mechanism_registry();

// Builds one mechanism from a YAML text such as "{name: vmf, epsilon: 2}".
std::unique_ptr<Mechanism> make_mechanism(const std::string& yaml_text,
                                          const MechanismRegistry& registry);

}  // namespace embpriv
