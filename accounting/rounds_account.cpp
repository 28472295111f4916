#include "accounting/rounds_account.h"

#include <cmath>
#include <sstream>

#include "accounting/gaussian_composition.h"
#include "accounting/pld_accountant.h"
#include "accounting/renyi_dp.h"
#include "core/error.h"

namespace embpriv {

AccountingMethod parse_accounting_method(const std::string& name) {
  if (name == "pld") return AccountingMethod::pld;
  if (name == "rdp") return AccountingMethod::rdp;
  EMBPRIV_CHECK(false, "accountant: --method must be pld or rdp, got '" << name << "'");
  return AccountingMethod::pld;
}

const char* to_string(AccountingMethod method) { return method == AccountingMethod::pld ? "pld" : "rdp"; }

AccountedMechanism parse_accounted_mechanism(const std::string& name) {
  if (name == "gaussian") return AccountedMechanism::gaussian;
  if (name == "laplace") return AccountedMechanism::laplace;
  EMBPRIV_CHECK(false, "accountant: --mechanism must be gaussian or laplace, got '" << name << "'");
  return AccountedMechanism::gaussian;
}

namespace {

RoundsAccount account_laplace(const RoundsAccountRequest& r) {
  EMBPRIV_CHECK(std::isfinite(r.epsilon) && r.epsilon > 0, "accountant: the Laplace eps must be finite and > 0, got " << r.epsilon);
  EMBPRIV_CHECK(r.rounds >= 1, "accountant: rounds must be >= 1, got " << r.rounds);
  EMBPRIV_CHECK(r.delta >= 0 && r.delta < 1, "accountant: delta must be in [0, 1), got " << r.delta);
  EMBPRIV_CHECK(r.method == AccountingMethod::pld,
                "accountant: --method rdp accounts the Gaussian only; the Laplace mechanism uses pld");
  // One rule at every delta: the PLD accountant refuses a round whose loss (eps, for Laplace)
  // exceeds kMaxAccountedLoss, and so does basic composition at delta = 0.
  EMBPRIV_CHECK(r.epsilon <= kMaxAccountedLoss, "accountant: one round of Laplace(eps " << r.epsilon << ") has privacy loss up to "
                                                    << r.epsilon << " (beyond " << kMaxAccountedLoss
                                                    << "): the noise is too small to account for");
  RoundsAccount account;
  if (r.delta == 0) {
    // At delta = 0 the total is exactly T eps: the loss T eps has probability 2^-T > 0 (each
    // round's loss is eps with probability 1/2), so no smaller eps holds with delta = 0.
    account.epsilon = account.epsilon_lower = static_cast<double>(r.rounds) * r.epsilon;
    account.detail = "basic composition, exact at delta = 0";
    return account;
  }
  const PldAccount pld = laplace_pld_account(r.epsilon, r.rounds, r.delta);
  account.epsilon = pld.epsilon;
  account.epsilon_lower = pld.epsilon_lower;
  account.detail = pld.method;
  return account;
}

RoundsAccount account_gaussian(const RoundsAccountRequest& r) {
  EMBPRIV_CHECK(std::isfinite(r.noise_multiplier) && r.noise_multiplier > 0,
                "accountant: sigma must be finite and > 0, got " << r.noise_multiplier);
  EMBPRIV_CHECK(r.sampling_rate > 0 && r.sampling_rate <= 1,
                "accountant: the sampling rate must be in (0, 1], got " << r.sampling_rate);
  EMBPRIV_CHECK(r.rounds >= 1, "accountant: rounds must be >= 1, got " << r.rounds);
  EMBPRIV_CHECK(r.delta > 0 && r.delta < 1, "accountant: delta must be in (0, 1), got " << r.delta);
  RoundsAccount account;
  const bool sampled = r.sampling_rate < 1;
  if (!sampled) {
    account.has_exact = true;
    account.epsilon_exact = gaussian_composition_epsilon(r.noise_multiplier, r.rounds, r.delta);
  }
  if (r.method == AccountingMethod::pld) {
    const PldAccount pld = subsampled_gaussian_pld_account(r.noise_multiplier, r.sampling_rate, r.rounds, r.delta);
    account.epsilon = pld.epsilon;
    account.epsilon_lower = pld.epsilon_lower;
    account.detail = pld.method;
    return account;
  }
  const RdpAccount rdp = sampled ? subsampled_gaussian_rdp_account(r.noise_multiplier, r.sampling_rate, r.rounds, r.delta)
                                 : gaussian_rdp_account(r.noise_multiplier, r.rounds, r.delta);
  std::ostringstream detail;
  detail << rdp.method << ", alpha = " << rdp.alpha;
  account.epsilon = rdp.epsilon;
  // RDP bounds from above only; without sampling the exact total is the lower bound.
  account.epsilon_lower = sampled ? 0.0 : account.epsilon_exact;
  if (sampled) detail << "; no lower bound (RDP bounds eps from above only)";
  account.detail = detail.str();
  return account;
}

}  // namespace

RoundsAccount account_rounds(const RoundsAccountRequest& request) {
  return request.mechanism == AccountedMechanism::laplace ? account_laplace(request) : account_gaussian(request);
}

}  // namespace embpriv
