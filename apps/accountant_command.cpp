#include "apps/accountant_command.h"

#include <cmath>
#include <iomanip>
#include <regex>
#include <sstream>

#include "accounting/rounds_account.h"
#include "core/error.h"

namespace embpriv {
namespace {

// The most rounds the command accounts (beyond, a count is more likely a typo than a plan, and
// 1e23 would not even be an int64).
constexpr double kMaxRounds = 1e9;

// x rounded to 6 significant digits away from the true value: up for an upper bound, down for a
// lower one (printing to nearest could put a bound on the wrong side by 5e-7 relative).
std::string bound_text(double x, bool up) {
  if (x == 0 || !std::isfinite(x)) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  const double unit = std::pow(10.0, std::floor(std::log10(std::abs(x))) - 5);
  double rounded = (up ? std::ceil(x / unit) : std::floor(x / unit)) * unit;
  // The decimal string must itself be on the right side once read back.
  std::ostringstream s;
  s << std::setprecision(6) << rounded;
  if (up ? std::stod(s.str()) < x : std::stod(s.str()) > x) {
    rounded += up ? unit : -unit;
    s.str("");
    s << std::setprecision(6) << rounded;
  }
  return s.str();
}

// JSON has no infinity: a bound that is not finite is null there.
std::string json_bound(double x, bool up) { return std::isfinite(x) ? bound_text(x, up) : "null"; }

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::int64_t parse_rounds(const std::string& text) {
  // Decimal only: digits, an optional fraction and an optional exponent (1e6, 14062, 1.0e4);
  // std::stod alone would also take hexadecimal (0x10), "inf" and leading blanks.
  static const std::regex decimal(R"([0-9]+(\.[0-9]*)?([eE]\+?[0-9]+)?)");
  EMBPRIV_CHECK(std::regex_match(text, decimal), "accountant: --rounds must be a whole number, got '" << text << "'");
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  EMBPRIV_CHECK(used == text.size() && used > 0, "accountant: --rounds must be a whole number, got '" << text << "'");
  EMBPRIV_CHECK(value >= 1, "accountant: rounds must be >= 1, got " << text);
  EMBPRIV_CHECK(value <= kMaxRounds, "accountant: rounds must be <= 1e9, got " << text);
  EMBPRIV_CHECK(value == std::floor(value), "accountant: --rounds must be a whole number, got '" << text << "'");
  return static_cast<std::int64_t>(value);
}

AccountantCommand::AccountantCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "accountant", "Total eps of a Gaussian or Laplace mechanism over rounds (PLD bracket by default, or RDP)");
  command_->add_option("--mechanism", mechanism_, "gaussian or laplace")->required();
  sigma_option_ = command_->add_option("--sigma", sigma_, "Gaussian: noise standard deviation / L2 sensitivity");
  epsilon_option_ = command_->add_option("--epsilon", epsilon_, "Laplace: eps of one round");
  command_->add_option("--rounds", rounds_, "Rounds composed, 1 to 1e9 (default 1)");
  rate_option_ = command_->add_option("--sampling-rate", sampling_rate_,
                                      "Gaussian: Poisson sampling rate q of each record per round (default 1)");
  delta_option_ = command_->add_option("--delta", delta_, "Total delta (Gaussian: required; Laplace: default 0)");
  method_option_ = command_->add_option("--method", method_,
                                        "pld (default: privacy loss distributions, a guaranteed bracket) or rdp "
                                        "(Renyi DP, an upper bound; Gaussian only)");
  command_->add_flag("--json", json_, "Print the account as one JSON object");
}

int AccountantCommand::run(std::ostream& out) const {
  RoundsAccountRequest request;
  request.mechanism = parse_accounted_mechanism(mechanism_);
  request.method = parse_accounting_method(method_);
  request.rounds = parse_rounds(rounds_);
  if (request.mechanism == AccountedMechanism::laplace) {
    EMBPRIV_CHECK(epsilon_option_->count() > 0, "accountant: --mechanism laplace needs --epsilon");
    EMBPRIV_CHECK(sigma_option_->count() == 0 && rate_option_->count() == 0,
                  "accountant: --sigma and --sampling-rate are for --mechanism gaussian");
    request.epsilon = epsilon_;
  } else {
    EMBPRIV_CHECK(sigma_option_->count() > 0, "accountant: --mechanism gaussian needs --sigma");
    EMBPRIV_CHECK(delta_option_->count() > 0, "accountant: --mechanism gaussian needs --delta");
    EMBPRIV_CHECK(epsilon_option_->count() == 0, "accountant: --epsilon is for --mechanism laplace");
    request.noise_multiplier = sigma_;
    request.sampling_rate = sampling_rate_;
  }
  request.delta = delta_;
  // Everything is computed before anything is printed: an error leaves no partial account.
  const RoundsAccount account = account_rounds(request);
  const std::string method = account.epsilon == account.epsilon_lower && request.delta == 0 ? "basic" : to_string(request.method);
  std::ostringstream delta_text;
  delta_text << std::setprecision(6) << request.delta;
  if (json_) {
    out << "{\"epsilon\": " << json_bound(account.epsilon, true)
        << ", \"epsilon_lower\": " << json_bound(account.epsilon_lower, false) << ", \"method\": " << json_string(method)
        << ", \"delta\": " << delta_text.str() << ", \"rounds\": " << request.rounds;
    if (account.has_exact) out << ", \"epsilon_exact\": " << std::setprecision(6) << account.epsilon_exact;
    out << ", \"detail\": " << json_string(account.detail) << "}\n";
    return 0;
  }
  out << "epsilon: " << bound_text(account.epsilon, true) << "\n"
      << "epsilon_lower: " << bound_text(account.epsilon_lower, false) << "\n"
      << "method: " << method << "\n"
      << "delta: " << delta_text.str() << "\n"
      << "rounds: " << request.rounds << "\n";
  if (account.has_exact) {
    // T rounds of sigma compose to one Gaussian of sigma / sqrt(T) (Dong, Roth & Su 2022,
    // Cor. 3.3); its exact eps by Balle & Wang 2018, Thm 8 (accounting/gaussian_composition.h).
    out << "epsilon_exact: " << std::setprecision(6) << account.epsilon_exact << "\n";
  }
  out << "detail: " << account.detail << "\n";
  return 0;
}

}  // namespace embpriv
