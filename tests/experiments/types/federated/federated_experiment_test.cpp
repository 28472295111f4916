// Experiment type `federated` (PrivateAI) on the real e-mails at CI size, fixed seeds: without
// DP FedAvg learns to flag private units; at eps = 0.01 (the paper's smallest) the clients'
// noise leaves FedAvg at chance and membership inference (loss and LiRA) at chance; the
// teachers' answers exported to JSONL and read back give the same run as the stand-ins; bad
// keys are rejected before any work.
#include "tests/catch.h"

#include <cmath>

#include "tests/test_run.h"

using namespace embpriv;
using Catch::Contains;

namespace {

const char* kSmall = R"(type: federated
data: {candidate_units: 240, proxy_units: 160, public_units: 200, test_units: 200}
clients: 4
alpha: 100
rounds: 5
local: {epochs: 2, learning_rate: 2.0e-3}
)";

}  // namespace

TEST_CASE("federated: learns without DP; at eps = 0.01 PSR and membership inference are at chance", "[engine][privateai]") {
  ExperimentRun run("embpriv_federated_test");
  const ResultsTable t = run(std::string(kSmall) + "method: fedavg\nattack: {shadows: 2}\nsweep:\n  dp.enabled: [false, true]\n"
                                                   "dp: {epsilon: 0.01}\n");
  REQUIRE(t.rows() == 2);
  const double clean = number_at_row(t, "psr", 0), noisy = number_at_row(t, "psr", 1);
  INFO("PSR without DP " << clean << ", at eps = 0.01 " << noisy);
  CHECK(clean > 0.62);  // measured 0.685; chance 0.5 (200 balanced test units: sd 0.035)
  CHECK(std::abs(noisy - 0.5) < 0.1);
  CHECK(text_at_row(t, "clip", 0) == "none");
  CHECK(text_at_row(t, "aggregator", 1) == "fedavg");
  CHECK(number_at_row(t, "delta", 1) == Approx(1.0 / 120));  // 1/|S|: half of the 240 candidates
  CHECK(number_at_row(t, "sigma", 1) == Approx(std::sqrt(8 * std::log(1.25 * 120)) / 0.01));
  // 5 rounds of 3 of the 4 clients: a client takes part in at most 5, 3.75 on average; at
  // delta = 1/120 the noise of eps = 0.01 per round composes to almost nothing.
  CHECK(number_at_row(t, "client_rounds_max", 1) == 5);
  CHECK(number_at_row(t, "client_rounds_mean", 1) == Approx(3.75));
  CHECK(number_at_row(t, "epsilon_composed_exact", 1) <= number_at_row(t, "epsilon_composed_rdp", 1) + 1e-12);
  CHECK(number_at_row(t, "epsilon_composed_rdp", 1) < 5 * 0.01);
  CHECK(std::isinf(number_at_row(t, "epsilon_composed_exact", 0)));  // no DP
  CHECK(std::abs(number_at_row(t, "auc_loss", 1) - 0.5) < 0.12);
  CHECK(std::abs(number_at_row(t, "auc_lira_online", 1) - 0.5) < 0.12);
  REQUIRE(t.curves.size() == 2);
}

TEST_CASE("federated: central training is one client, every round, no DP", "[engine][privateai]") {
  ExperimentRun run("embpriv_federated_central_test");
  // dp stays enabled at eps = 0.01: FedAvg is at chance, central training ignores it.
  const ResultsTable t =
      run(std::string(kSmall) + "attack: {shadows: 0}\ndp: {epsilon: 0.01}\nsweep:\n  method: [central, fedavg]\n");
  REQUIRE(t.rows() == 2);
  const double central = number_at_row(t, "psr", 0), federated = number_at_row(t, "psr", 1);
  INFO("PSR central " << central << ", FedAvg at eps = 0.01 " << federated);
  CHECK(text_at_row(t, "clip", 0) == "none");
  CHECK(text_at_row(t, "aggregator", 0) == "fedavg");
  CHECK(central > 0.75);  // measured 0.82; chance 0.5 (200 balanced test units: sd 0.035)
  CHECK(std::abs(federated - 0.5) < 0.1);
  CHECK(number_at_row(t, "client_rounds_mean", 0) == 5);  // the one client trains in every round
  // The proxy was drawn like the clients' units (no data.proxy_beta): a small distance.
  CHECK(number_at_row(t, "proxy_distance", 0) < 0.2);
}

TEST_CASE("federated: teachers' answers exported to JSONL and read back give the same run", "[engine][privateai]") {
  ExperimentRun run("embpriv_federated_teachers_test");
  const std::string base = std::string(kSmall) + "attack: {shadows: 0}\ndp: {enabled: false}\ndistill: {mu: 0.6, learning_rate: 1.0e-3}\n";
  const std::string prefix = run.dir / "proxy";
  const ResultsTable standin = run(base + "teachers: {export: " + prefix + "}\n");
  const ResultsTable from_file = run(base + "teachers: {file: " + prefix + ".answers.jsonl}\n");
  CHECK(number_at_row(standin, "mean_distilled_units", 0) > 0);
  CHECK(number_at_row(from_file, "psr", 0) == number_at_row(standin, "psr", 0));
  CHECK(number_at_row(from_file, "teachers_proxy_accuracy", 0) == number_at_row(standin, "teachers_proxy_accuracy", 0));
  CHECK(number_at_row(standin, "teacher_labeller_test_psr", 0) > 0.7);  // the rules alone, blind to header names
  CHECK(std::isnan(number_at_row(from_file, "teacher_labeller_test_psr", 0)));
}

TEST_CASE("federated rejects bad keys before any work, naming them", "[engine][privateai]") {
  ExperimentRun run("embpriv_federated_bad_test");
  CHECK_THROWS_WITH(run.dry_run("type: federated\nmethod: fedprox\n"), Contains("method must be privateai, fedavg, fedadam, dp_ftrl, robust_dpfl, fafl or central"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndp: {epsilon: 0}\n"), Contains("dp.epsilon must be > 0"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndp: {clip: weights}\n"), Contains("dp.clip must be published, parameters or update, got 'weights'"));
  // DP-FTRL clips updates by design: clipping its parameters is refused, not silently changed.
  CHECK_THROWS_WITH(run.dry_run("type: federated\nmethod: dp_ftrl\ndp: {clip: parameters}\n"),
                    Contains("dp.clip") && Contains("DP-FTRL clips each client's update by design"));
  CHECK(run.dry_run("type: federated\nmethod: dp_ftrl\ndp: {clip: update}\n") == 0);
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndistill: {mu: 1}\n"), Contains("distill.mu must be in [0.5, 1)"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\nteachers: {standin: []}\n"), Contains("PrivateAI has no teacher"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\nteachers: {file: nowhere.jsonl}\n"),
                    Contains("teachers.file") && Contains("not found"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\nmodel: {heads: 3}\n"), Contains("model.heads must divide"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\nclients: 0\n"), Contains("clients must be >= 1"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\nattack: {shadows: 1}\n"),
                    Contains("attack.shadows must be 0") && Contains("got 1"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndata: {proxy_domain: chats}\n"),
                    Contains("data.proxy_domain must be emails or reviews"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndata: {proxy_domain: reviews, proxy_beta: 1}\n"),
                    Contains("data.proxy_beta") && Contains("proxy_domain: reviews"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndata: {proxy_beta: -1}\n"), Contains("data.proxy_beta must be >= 0"));
  CHECK_THROWS_WITH(run.dry_run("type: federated\ndata: {proxy_domain: reviews, reviews: [no/such.json]}\n"),
                    Contains("data.reviews") && Contains("not found"));
}
