#pragma once
// The perturbation experiment with another run_point, for tests of how the engine handles what
// a type does at run time (a row that throws, a shared load that fails, ...). `run` gets the
// point and the real perturbation type (to run the real point where it wants to).
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "experiments/engine/experiment_type.h"
#include "experiments/types/perturbation/perturbation_experiment.h"

namespace embpriv {

class PerturbationWith final : public ExperimentType {
 public:
  using Run = std::function<PointResult(const PointInput&, const ExperimentType&)>;
  explicit PerturbationWith(Run run) : run_(std::move(run)) {}
  std::string name() const override { return real_->name(); }
  std::string summary() const override { return real_->summary(); }
  ConfigKeys keys() const override { return real_->keys(); }
  void check_point(const YAML::Node& c, const MechanismRegistry& m) const override { real_->check_point(c, m); }
  std::vector<std::string> number_columns() const override { return real_->number_columns(); }
  std::vector<std::string> string_columns() const override { return real_->string_columns(); }
  double estimate_seconds(const YAML::Node& c) const override { return real_->estimate_seconds(c); }
  MemoryEstimate estimate_memory(const YAML::Node& c) const override { return real_->estimate_memory(c); }
  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& s) const override {
    return real_->standard_plots(s);
  }
  PointResult run_point(const PointInput& input) const override { return run_(input, *real_); }

 private:
  std::unique_ptr<ExperimentType> real_ = make_perturbation_experiment();
  Run run_;
};

}  // namespace embpriv
