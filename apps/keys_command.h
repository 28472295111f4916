#pragma once
// `embpriv keys TYPE`: every key of an experiment type (its own, then the engine's common keys)
// with its kind, default, allowed values and help; `--markdown` prints the type's key table as
// docs/experiments.md holds it (scripts/update_key_docs.sh). TYPE `common` names the engine's
// common keys alone.
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

class KeysCommand {
 public:
  explicit KeysCommand(CLI::App& app);
  // The subcommand, for the command line's dispatch.
  CLI::App* command() const { return command_; }
  // Prints the table; throws embpriv::Error (listing the valid types) for an unknown TYPE.
  int run(const ExperimentRegistry& types, std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  std::string type_;
  bool markdown_ = false;
};

// The markdown key table of a type (or of the common keys, for "common"), as the command and
// docs/experiments.md show it.
std::string key_table_markdown(const ExperimentRegistry& types, const std::string& type);

}  // namespace embpriv
