#include "experiments/engine/experiment_type.h"

#include "core/error.h"
#include "data/tables/data_paths.h"
#include "experiments/engine/input_files.h"
#include "experiments/engine/mechanism_yaml.h"

namespace embpriv {

void ExperimentRegistry::add(std::unique_ptr<ExperimentType> type) {
  types_.push_back(std::move(type));
}

const ExperimentType& ExperimentRegistry::find(const std::string& name) const {
  for (const auto& type : types_) {
    if (type->name() == name) return *type;
  }
  std::string valid;
  for (const auto& type : types_) valid += (valid.empty() ? "" : ", ") + type->name();
  throw Error("unknown experiment type '" + name + "'; valid: " + valid);
}

std::vector<std::string> ExperimentRegistry::names() const {
  std::vector<std::string> names;
  for (const auto& type : types_) names.push_back(type->name());
  return names;
}

void PointResult::set(const std::string& column, double value) {
  EMBPRIV_ASSERT(numbers.emplace(column, value).second, "column " << column << " is set twice");
}

void PointResult::set(const std::string& column, std::string value) {
  EMBPRIV_ASSERT(strings.emplace(column, std::move(value)).second, "column " << column << " is set twice");
}

void require_key(bool ok, const std::string& path, const std::string& problem) {
  if (!ok) throw ConfigError(path, path + " " + problem);
}

void check_data_files(const std::vector<std::pair<std::string, std::string>>& files) {
  for (const auto& [key, path] : files) {
    std::string resolved;
    try {
      resolved = resolve_data_path(path);
    } catch (const Error& e) {
      throw ConfigError(key, key + ": " + e.what());
    }
    record_input_file({key, path, resolved});  // the run fingerprints what it reads (input_files.h)
  }
}

std::unique_ptr<Mechanism> point_mechanism(const YAML::Node& config, const MechanismRegistry& registry) {
  try {
    return make_mechanism(config["mechanism"], registry);
  } catch (const Error& e) {
    throw ConfigError("mechanism", std::string("mechanism: ") + e.what());
  }
}

}  // namespace embpriv
