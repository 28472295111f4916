#pragma once
// `embpriv accountant`: the total eps of a mechanism run for several rounds (accounting/).
//   embpriv accountant --mechanism gaussian --sigma S --rounds T [--sampling-rate Q] --delta D
//   embpriv accountant --mechanism laplace --epsilon E --rounds T [--delta D]
// Gaussian: sigma is the noise multiplier (noise standard deviation / L2 sensitivity); the
// total comes from Renyi DP with the tight conversion, and without sampling the exact eps of
// the composed Gaussian (analytic Gaussian of sigma / sqrt(T)) is printed beside it. Laplace:
// the best of basic and advanced composition. docs/accounting.md.
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
              *rate_option_ = nullptr;
  std::string mechanism_;
  double sigma_ = 0, epsilon_ = 0, delta_ = 0, sampling_rate_ = 1;
  std::int64_t rounds_ = 1;
};

}  // namespace embpriv
