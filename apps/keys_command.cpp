#include "apps/keys_command.h"

#include <algorithm>

#include "core/error.h"
#include "experiments/engine/run_plan.h"

namespace embpriv {
namespace {

constexpr const char* kCommon = "common";

// The declared keys of a type, or the common keys for "common".
ConfigKeys keys_of(const ExperimentRegistry& types, const std::string& type) {
  if (type == kCommon) return common_keys();
  const std::vector<std::string> names = types.names();
  if (std::find(names.begin(), names.end(), type) == names.end()) {
    std::string valid = kCommon;
    for (const std::string& name : names) valid += ", " + name;
    throw Error("unknown experiment type '" + type + "'; valid: " + valid);
  }
  return types.find(type).keys();
}

}  // namespace

KeysCommand::KeysCommand(CLI::App& app) {
  command_ = app.add_subcommand("keys", "List the config keys of an experiment type: kind, default, allowed values, help");
  command_->add_option("type", type_, "Experiment type (or common: the keys every type has)")->required();
  command_->add_flag("--markdown", markdown_, "Print the type's key table in markdown (docs/experiments.md)");
}

int KeysCommand::run(const ExperimentRegistry& types, std::ostream& out) const {
  const ConfigKeys keys = keys_of(types, type_);
  if (markdown_) {
    out << keys_table_markdown(keys);
    return 0;
  }
  if (type_ == kCommon) {
    out << "common keys (every experiment type)\n\n" << keys_table_text(keys);
    return 0;
  }
  out << type_ << ": " << types.find(type_).summary() << "\n\n"
      << keys_table_text(keys) << "\ncommon keys (every experiment type)\n\n" << keys_table_text(common_keys());
  return 0;
}

std::string key_table_markdown(const ExperimentRegistry& types, const std::string& type) {
  return keys_table_markdown(keys_of(types, type));
}

}  // namespace embpriv
