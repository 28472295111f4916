#include "experiments/experiment_type.h"

#include "core/error.h"
#include "data/data_paths.h"
#include "experiments/audit_experiment.h"
#include "experiments/federated_experiment.h"
#include "experiments/inversion_experiment.h"
#include "experiments/mia_experiment.h"
#include "experiments/obfuslm_experiment.h"
#include "experiments/perturbation_experiment.h"

namespace embpriv {

void ExperimentRegistry::add(std::unique_ptr<ExperimentType> type) {
  types_.push_back(std::move(type));
}

const ExperimentType& ExperimentRegistry::find(const std::string& name) const {
  for (const auto& type : types_) {
    if (type->name() == name) return *type;
  }
  std::string valid = "bounds";  // run by its own job (experiments/bounds_job.h)
  for (const auto& type : types_) valid += ", " + type->name();
  throw Error("unknown experiment type '" + name + "'; valid: " + valid);
}

std::vector<std::string> ExperimentRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& type : types_) names.push_back(type->name());
  return names;
}

void require_key(bool ok, const std::string& path, const std::string& problem) {
  if (!ok) throw ConfigError(path, path + " " + problem);
}

void check_data_files(const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [key, path] : files) {
    try {
      resolve_data_path(path);
    } catch (const Error& e) {
      throw ConfigError(key, key + ": " + e.what());
    }
  }
}

std::unique_ptr<Mechanism> point_mechanism(const YAML::Node& config, const MechanismRegistry& registry) {
  try {
    return registry.make(config["mechanism"]);
  } catch (const Error& e) {
    throw ConfigError("mechanism", std::string("mechanism: ") + e.what());
  }
}

const ExperimentRegistry& default_experiment_registry() {
  static const ExperimentRegistry registry = [] {
    ExperimentRegistry r;
    r.add(make_perturbation_experiment());
    r.add(make_inversion_experiment());
    r.add(make_obfuslm_experiment());
    r.add(make_audit_experiment());
    r.add(make_mia_experiment());
    r.add(make_federated_experiment());
    return r;
  }();
  return registry;
}

}  // namespace embpriv
