#pragma once
// `embpriv report [--scale ci|paper] [--claims DIR] [--results DIR] [--out FILE] [--html FILE]
// [--check]`: the papers' claims (configs/claims/*.yaml) decided on the results files, into
// docs/reproduction.md (experiments/report/reproduction_report.h). --check: exit 1 when a verdict
// at CI size differs from the one its claims file expects. --html: the same report as one
// self-contained HTML page, with the figures beside each results file
// (experiments/report/report_html.h).
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

namespace embpriv {

class MechanismRegistry;

class ReportCommand {
 public:
  explicit ReportCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  // `mechanisms` plans each paper config to check its results file's config_hash.
  int run(const MechanismRegistry& mechanisms, std::ostream& out, std::ostream& errors) const;

 private:
  CLI::App* command_ = nullptr;
  std::string scale_ = "ci", claims_ = "configs/claims", results_, out_, html_, root_ = ".";
  bool check_ = false;
};

}  // namespace embpriv
