// Experiment type `accountant`: PrivateAI's per-client totals over 10 rounds at delta = 0.0025,
// both calibrations, against tests/experiments/types/accountant/accountant_reference.py (the
// papers' formulas with numpy/scipy, through tests/accounting/rdp_reference.py).
#include <cmath>

#include "tests/catch.h"
#include "tests/test_run.h"

using namespace embpriv;

TEST_CASE("accountant: PrivateAI's totals per client, against accountant_reference.py", "[engine][accounting]") {
  ExperimentRun run("embpriv_accountant_test");
  const ResultsTable t = run("type: accountant\ndp: {delta: 0.0025}\nsweep:\n  dp.epsilon: [0.1, 1, 10]\n");
  REQUIRE(t.rows() == 3);
  struct Expected {
    double multiplier, one_release, exact, rdp;
  };
  // Printed by `/usr/bin/python3 tests/experiments/types/accountant/accountant_reference.py`.
  const Expected classic[] = {{35.255094, 0.027729472, 0.13918971, 0.17455101},
                              {3.5255094, 0.593537, 2.4718655, 2.8383314},
                              {0.35255094, 11.295412, 64.53799, 69.141939}};
  const Expected analytic[] = {{14.329084, 0.1, 0.43513169, 0.52204109},
                               {2.3087812, 1, 4.2449162, 4.8197238},
                               {0.38478324, 10, 55.981591, 60.156457}};
  for (std::size_t row = 0; row < 3; ++row) {
    INFO("row " << row);
    for (const auto& [suffix, e] : {std::make_pair("classic", classic[row]), std::make_pair("analytic", analytic[row])}) {
      INFO(suffix);
      const std::string s = suffix;
      CHECK(number_at_row(t, "noise_multiplier_" + s, row) == Approx(e.multiplier).epsilon(1e-6));
      CHECK(number_at_row(t, "epsilon_one_release_exact_" + s, row) == Approx(e.one_release).epsilon(1e-6));
      CHECK(number_at_row(t, "epsilon_composed_exact_" + s, row) == Approx(e.exact).epsilon(1e-6));
      CHECK(number_at_row(t, "epsilon_composed_rdp_" + s, row) == Approx(e.rdp).epsilon(1e-6));
    }
    CHECK(number_at_row(t, "client_rounds_max", row) == 10);
    CHECK(number_at_row(t, "client_rounds_mean", row) == 8);  // 8 of 10 clients a round
    CHECK(number_at_row(t, "epsilon_basic_composition", row) == Approx(10 * number_at_row(t, "epsilon", row)));
  }
}

TEST_CASE("accountant: participation moves the mean, never the worst-case total", "[engine][accounting]") {
  ExperimentRun run("embpriv_accountant_fraction_test");
  const ResultsTable all = run("type: accountant\nclient_fraction: 1\n");
  const ResultsTable some = run("type: accountant\nclient_fraction: 0.25\n");  // round(2.5) = 3 of 10
  CHECK(number_at_row(some, "client_rounds_mean", 0) == Approx(3.0));
  CHECK(number_at_row(all, "client_rounds_mean", 0) == Approx(10.0));
  CHECK(number_at_row(some, "epsilon_composed_exact_analytic", 0) ==
        number_at_row(all, "epsilon_composed_exact_analytic", 0));
  CHECK_THROWS_WITH(run.dry_run("type: accountant\ndp: {delta: 0}\n"), Catch::Contains("dp.delta must be in (0, 1), got 0"));
}

TEST_CASE("accountant: rounds, clients and client_fraction can be swept (no column repeats a key)", "[engine][accounting]") {
  // Issue 33, item 7: the result columns rounds/clients/client_fraction collided with the swept
  // keys' columns, and the results file could not be written.
  ExperimentRun run("embpriv_accountant_sweep_test");
  const ResultsTable t = run("type: accountant\nsweep:\n  rounds: [5, 10]\n  clients: [4, 10]\n  client_fraction: [0.5, 1]\n");
  REQUIRE(t.rows() == 8);
  for (std::size_t row = 0; row < 8; ++row) {
    INFO("row " << row);
    // Swept integer keys are integer columns.
    const auto integer_at = [&](const char* column) {
      return static_cast<double>(std::get<std::vector<std::int64_t>>(t.column(column).values)[row]);
    };
    const double rounds = integer_at("rounds"), clients = integer_at("clients");
    const double fraction = number_at_row(t, "client_fraction", row);
    CHECK(number_at_row(t, "client_rounds_max", row) == rounds);
    CHECK(number_at_row(t, "client_rounds_mean", row) ==
          Approx(rounds * std::max(1.0, std::round(fraction * clients)) / clients));
  }
}
