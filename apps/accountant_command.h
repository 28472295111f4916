#pragma once
// `embpriv accountant`: the total eps of a mechanism run for several rounds (accounting/).
//   embpriv accountant --mechanism gaussian --sigma S --rounds T [--sampling-rate Q] --delta D
//                      [--method pld|rdp] [--json]
//   embpriv accountant --mechanism laplace --epsilon E --rounds T [--delta D] [--json]
// Prints, one per line, `epsilon: X` (a guaranteed upper bound on the total eps at delta),
// `epsilon_lower: Y` (a guaranteed lower bound), `method: pld|rdp|basic`, then `delta`,
// `rounds`, `epsilon_exact` (the Gaussian without sampling) and `detail`; --json prints the same
// keys as one JSON object. X is rounded up and Y down (6 significant digits), so neither is
// ever on the wrong side. The accounting itself is accounting/rounds_account.h. docs/accounting.md.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <ostream>
#include <string>

namespace embpriv {

class AccountantCommand {
 public:
  explicit AccountantCommand(CLI::App& app);
  CLI::App* command() const { return command_; }
  // Prints the account; throws embpriv::Error on bad input (a missing or out-of-range option).
  int run(std::ostream& out) const;

 private:
  CLI::App* command_ = nullptr;
  CLI::Option *sigma_option_ = nullptr, *epsilon_option_ = nullptr, *delta_option_ = nullptr,
              *rate_option_ = nullptr, *method_option_ = nullptr;
  std::string mechanism_, method_ = "pld", rounds_ = "1";
  double sigma_ = 0, epsilon_ = 0, delta_ = 0, sampling_rate_ = 1;
  bool json_ = false;
};

// The --rounds text as a count: an integer (digits or an exact scientific form such as 1e5) in
// [1, 1e9]; anything else is an embpriv::Error naming the text.
std::int64_t parse_rounds(const std::string& text);

}  // namespace embpriv
