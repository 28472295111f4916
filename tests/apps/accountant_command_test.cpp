// `embpriv accountant` (apps/accountant_command.h), run as a user would: the totals printed for
// the Gaussian (RDP and the exact analytic value; reference values from
// tests/accounting/rdp_reference.py), the subsampled Gaussian of Abadi et al.'s example and the
// Laplace mechanism, and one clear error (exit 2) for each bad input.
#include "tests/catch.h"
#include "tests/test_binary.h"

using namespace embpriv;
using Catch::Contains;

TEST_CASE("accountant command: Gaussian, subsampled Gaussian and Laplace totals", "[apps][accounting]") {
  const Outcome plain = run_binary("accountant --mechanism gaussian --sigma 1 --rounds 100 --delta 1e-5");
  INFO(plain.output);
  CHECK(plain.code == 0);
  CHECK_THAT(plain.output, Contains("eps = 96.0353 at delta = 1e-05 over 100 rounds (RDP of the Gaussian"));
  CHECK_THAT(plain.output, Contains("exact eps = 91.8173 (analytic Gaussian"));
  const Outcome sampled = run_binary("accountant --mechanism gaussian --sigma 4 --rounds 10000 --sampling-rate 0.01 --delta 1e-5");
  INFO(sampled.output);
  CHECK(sampled.code == 0);
  CHECK_THAT(sampled.output, Contains("eps = 1.03549 at delta = 1e-05 over 10000 rounds (RDP of the Poisson-subsampled"));
  CHECK_THAT(sampled.output, Contains("alpha = 17"));
  const Outcome laplace = run_binary("accountant --mechanism laplace --epsilon 0.1 --rounds 100 --delta 1e-5");
  INFO(laplace.output);
  CHECK(laplace.code == 0);
  CHECK_THAT(laplace.output, Contains("eps = 5.29811 at delta = 1e-05 over 100 rounds (advanced composition (Kairouz"));
  CHECK_THAT(run_binary("accountant --mechanism laplace --epsilon 0.1 --rounds 100").output,
             Contains("eps = 10 at delta = 0 over 100 rounds (basic composition"));
}

TEST_CASE("accountant command: bad input is one error line, exit 2", "[apps][accounting]") {
  const auto error_of = [](const std::string& args) {
    const Outcome o = run_binary("accountant " + args, Capture::errors);
    CHECK(o.code == 2);
    return o.output;
  };
  CHECK_THAT(error_of("--mechanism vmf --sigma 1 --delta 1e-5"), Contains("embpriv: error: accountant: --mechanism must be gaussian or laplace, got 'vmf'"));
  CHECK_THAT(error_of("--mechanism gaussian --delta 1e-5"), Contains("needs --sigma"));
  CHECK_THAT(error_of("--mechanism gaussian --sigma 1"), Contains("needs --delta"));
  CHECK_THAT(error_of("--mechanism gaussian --sigma -1 --delta 1e-5"), Contains("sigma must be finite and > 0, got -1"));
  CHECK_THAT(error_of("--mechanism gaussian --sigma 1 --rounds 0 --delta 1e-5"), Contains("rounds must be >= 1, got 0"));
  CHECK_THAT(error_of("--mechanism gaussian --sigma 1 --sampling-rate 2 --delta 1e-5"), Contains("sampling rate must be in (0, 1], got 2"));
  CHECK_THAT(error_of("--mechanism gaussian --sigma 1 --delta 1"), Contains("delta must be in (0, 1), got 1"));
  CHECK_THAT(error_of("--mechanism laplace --delta 1e-5"), Contains("needs --epsilon"));
  CHECK_THAT(error_of("--mechanism laplace --epsilon 1 --sigma 2"), Contains("--sigma and --sampling-rate are for --mechanism gaussian"));
}
