#pragma once
// Builds mechanisms from a MechanismConfig ({name: vmf, epsilon: 2, beta: 1} once an adapter
// has read it: experiments/engine/mechanism_yaml.h for YAML, python/mechanisms.cpp for a dict).
// Unknown names and unknown keys are rejected with the list of valid ones; each key is checked
// against its spec (mechanisms/param_spec.h) before the mechanism is built.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mechanisms/mechanism.h"
#include "mechanisms/param_spec.h"

namespace embpriv {

class MechanismRegistry {
 public:
  using Factory = std::function<std::unique_ptr<Mechanism>(const MechanismParams&)>;
  struct Entry {
    std::vector<ParamSpec> keys;  // accepted keys besides `name`, each with its spec
    std::string summary;
    Factory factory;
  };

  // Adds or replaces the mechanism `name`.
  void add(const std::string& name, Entry entry);
  std::unique_ptr<Mechanism> make(const MechanismConfig& config) const;
  std::vector<std::string> names() const;
  const Entry& entry(const std::string& name) const;

 private:
  std::map<std::string, Entry> entries_;
};

// vmf_tangent, vmf, gaussian, laplace, npgaussian.
MechanismRegistry default_mechanism_registry();

}  // namespace embpriv
