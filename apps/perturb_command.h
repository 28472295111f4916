#pragma once
// `embpriv perturb --mechanism NAME --epsilon E [KEY=VALUE ...] IN OUT`: a user's own vectors (an
// .npy or HDF5 matrix, one vector per row) through one mechanism, into OUT (.npy or .h5 by its
// extension) with the seed, the privacy claim and epsilon_actual as attributes
// (experiments/engine/perturb_file.h).
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "experiments/engine/perturb_file.h"
#include "mechanisms/registry.h"

namespace embpriv {

class PerturbCommand {
 public:
  explicit PerturbCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  int run(const MechanismRegistry& registry, std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  PerturbFileRequest request_;
  std::vector<std::string> arguments_;  // KEY=VALUE ... IN OUT
};

}  // namespace embpriv
