#include "apps/accountant_command.h"

#include <cmath>
#include <iomanip>

#include "accounting/pure_dp_composition.h"
#include "accounting/renyi_dp.h"
#include "core/error.h"
#include "mechanisms/gaussian_calibration.h"

namespace embpriv {

AccountantCommand::AccountantCommand(CLI::App& app) {
  command_ = app.add_subcommand("accountant", "Total eps of a Gaussian or Laplace mechanism over rounds (RDP, composition)");
  command_->add_option("--mechanism", mechanism_, "gaussian or laplace")->required();
  sigma_option_ = command_->add_option("--sigma", sigma_, "Gaussian: noise standard deviation / L2 sensitivity");
  epsilon_option_ = command_->add_option("--epsilon", epsilon_, "Laplace: eps of one round");
  command_->add_option("--rounds", rounds_, "Rounds composed (default 1)");
  rate_option_ = command_->add_option("--sampling-rate", sampling_rate_,
                                      "Gaussian: Poisson sampling rate q of each record per round (default 1)");
  delta_option_ = command_->add_option("--delta", delta_, "Total delta (Gaussian: required; Laplace: default 0)");
}

int AccountantCommand::run(std::ostream& out) const {
  EMBPRIV_CHECK(mechanism_ == "gaussian" || mechanism_ == "laplace",
                "accountant: --mechanism must be gaussian or laplace, got '" << mechanism_ << "'");
  out << std::setprecision(6);
  if (mechanism_ == "laplace") {
    EMBPRIV_CHECK(epsilon_option_->count() > 0, "accountant: --mechanism laplace needs --epsilon");
    EMBPRIV_CHECK(sigma_option_->count() == 0 && rate_option_->count() == 0,
                  "accountant: --sigma and --sampling-rate are for --mechanism gaussian");
    const PureDpAccount account = compose_pure_dp(epsilon_, rounds_, delta_);
    out << "eps = " << account.epsilon << " at delta = " << delta_ << " over " << rounds_ << " rounds ("
        << account.method << ")\n";
    return 0;
  }
  EMBPRIV_CHECK(sigma_option_->count() > 0, "accountant: --mechanism gaussian needs --sigma");
  EMBPRIV_CHECK(delta_option_->count() > 0, "accountant: --mechanism gaussian needs --delta");
  EMBPRIV_CHECK(epsilon_option_->count() == 0, "accountant: --epsilon is for --mechanism laplace");
  const RdpAccount account = sampling_rate_ == 1 ? gaussian_rdp_account(sigma_, rounds_, delta_)
                                                 : subsampled_gaussian_rdp_account(sigma_, sampling_rate_, rounds_, delta_);
  out << "eps = " << account.epsilon << " at delta = " << delta_ << " over " << rounds_ << " rounds ("
      << account.method << ", alpha = " << account.alpha << ")\n";
  if (sampling_rate_ == 1) {
    // T rounds of sigma compose to one Gaussian of sigma / sqrt(T) (Dong, Roth & Su 2022,
    // Cor. 3.3: mu-GDP composes to sqrt(T) mu); its exact eps by Balle & Wang 2018, Thm 8.
    const double exact = analytic_gaussian_epsilon(sigma_ / std::sqrt(static_cast<double>(rounds_)), delta_, 1.0);
    out << "exact eps = " << exact << " (analytic Gaussian of sigma / sqrt(rounds); the RDP bound is >= it)\n";
  }
  return 0;
}

}  // namespace embpriv
