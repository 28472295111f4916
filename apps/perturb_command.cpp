#include "apps/perturb_command.h"

#include <cmath>

#include "core/error.h"

namespace embpriv {

PerturbCommand::PerturbCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "perturb", "Perturb the rows of your own .npy or HDF5 matrix with a mechanism, into OUT (.npy or .h5) "
                 "with the seed and the privacy claim as attributes");
  command_->add_option("--mechanism", request_.mechanism, "Mechanism name (embpriv mechanisms lists them and their keys)")
      ->required();
  command_->add_option("--epsilon", request_.epsilon, "The mechanism's epsilon")->required();
  command_->add_option("arguments", arguments_,
                       "The mechanism's other keys as KEY=VALUE (beta=1 delta=1e-5), then IN and OUT")
      ->required();
  command_->add_option("--seed", request_.seed, "Run seed: row i draws from Rng(seed, i)")->capture_default_str();
  command_->add_option("--dataset", request_.dataset, "The matrix's dataset in an HDF5 IN (and OUT)")
      ->capture_default_str();
  command_->add_flag("--overwrite", request_.overwrite, "Replace an existing OUT");
}

int PerturbCommand::run(const MechanismRegistry& registry, std::ostream& out) const {
  EMBPRIV_CHECK(arguments_.size() >= 2, "perturb needs IN and OUT after the mechanism's keys, got "
                                            << arguments_.size() << " argument(s)");
  PerturbFileRequest request = request_;
  request.keys.assign(arguments_.begin(), arguments_.end() - 2);
  request.in = arguments_[arguments_.size() - 2];
  request.out = arguments_.back();
  const PerturbFileSummary summary = perturb_vector_file(request, registry);
  out << "perturbed " << summary.rows << " rows of dimension " << summary.dim << " with "
      << perturb_mechanism_yaml(request) << " (seed " << request.seed << ") into " << request.out << "\n"
      << "claim: " << summary.claim.describe() << "\n";
  if (!std::isnan(summary.claim.epsilon_actual)) {
    out << "epsilon_actual: " << summary.claim.epsilon_actual << " (" << summary.claim.epsilon_actual_source << ")\n";
  }
  return 0;
}

}  // namespace embpriv
