#pragma once
// The total privacy of a mechanism run for several rounds, by name: what `embpriv accountant`
// (apps/accountant_command.h) asks, answered here so the command only parses and prints.
// Gaussian: PLD (default, a guaranteed bracket) or RDP (an upper bound); without sampling the
// exact total (gaussian_composition_epsilon) beside it. Laplace: PLD at delta > 0, and the exact
// basic composition T eps at delta = 0. docs/accounting.md.
#include <cstdint>
#include <string>

namespace embpriv {

enum class AccountingMethod { pld, rdp };
// Parses "pld" | "rdp".
AccountingMethod parse_accounting_method(const std::string& name);
const char* to_string(AccountingMethod method);

enum class AccountedMechanism { gaussian, laplace };
// Parses "gaussian" | "laplace".
AccountedMechanism parse_accounted_mechanism(const std::string& name);

struct RoundsAccountRequest {
  AccountedMechanism mechanism = AccountedMechanism::gaussian;
  AccountingMethod method = AccountingMethod::pld;
  double noise_multiplier = 0;  // Gaussian: noise standard deviation / L2 sensitivity
  double sampling_rate = 1;     // Gaussian: Poisson rate q in (0, 1]
  double epsilon = 0;           // Laplace: eps of one round (scale = sensitivity / eps)
  std::int64_t rounds = 1;
  double delta = 0;             // total delta: Gaussian in (0, 1), Laplace in [0, 1)
};

struct RoundsAccount {
  double epsilon = 0;        // guaranteed upper bound on the total eps at delta
  double epsilon_lower = 0;  // guaranteed lower bound (0 where the method gives none: RDP with sampling)
  bool has_exact = false;    // the Gaussian without sampling: the exact total is known
  double epsilon_exact = 0;
  std::string detail;        // how the numbers were obtained
};

// Throws embpriv::Error (one message naming the bad value) on bad input.
RoundsAccount account_rounds(const RoundsAccountRequest& request);

}  // namespace embpriv
