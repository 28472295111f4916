// configs/paper/mia_rmia.yaml at CI size (one seed, 1 and 4 reference models, every setting of
// the paper config): every row runs; LiRA needs 2 reference models, RMIA runs from 1; the rows
// of one setting attack one target; against the unprotected classifier RMIA online beats the
// loss threshold. Fixed seed.
#include "core/source_dir.h"
#include <cmath>
#include <map>
#include <sstream>

#include "experiments/engine/runner.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"
#include "tests/test_run.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

TEST_CASE("configs/paper/mia_rmia.yaml runs at CI size", "[engine][mia][rmia]") {
  const TempDir dir("embpriv_mia_rmia_config_test");
  RunOptions options;
  options.config_path = std::string(embpriv::source_dir()) + "/configs/paper/mia_rmia.yaml";
  options.overrides = {"seeds=1", "sweep.attack.shadows=[1, 4]"};
  options.out = dir / "r.h5";
  options.overwrite = true;
  options.plot = false;
  std::ostringstream log;
  const int status = run_experiment(options, default_experiment_registry(), default_mechanism_registry(), log);
  INFO(log.str());
  REQUIRE(status == 0);
  const ResultsTable t = read_results_h5(options.out);
  REQUIRE(t.rows() == 22);  // (unprotected + 5 mechanisms x 2 eps) x 2 shadow counts
  std::map<std::string, double> accuracy_of_setting;
  const auto& mechanism_column = std::get<std::vector<std::string>>(t.column("mechanism_name").values);
  for (std::size_t row = 0; row < t.rows(); ++row) {
    INFO("row " << row);
    CHECK(text_at_row(t, "status", row) == "ok");
    const bool one = number_at_row(t, "shadows", row) == 1;
    CHECK(std::isnan(number_at_row(t, "auc_lira_online", row)) == one);
    CHECK(std::isfinite(number_at_row(t, "auc_rmia_online", row)));
    CHECK(std::isfinite(number_at_row(t, "auc_rmia_offline", row)));
    // One target per setting, whatever the number of reference models.
    const std::string setting = mechanism_column[row] + "/" + std::to_string(number_at_row(t, "epsilon", row));
    const double accuracy = number_at_row(t, "target_test_accuracy", row);
    if (accuracy_of_setting.count(setting)) CHECK(accuracy_of_setting[setting] == accuracy);
    accuracy_of_setting[setting] = accuracy;
    if (mechanism_column[row] == "none" && !one) {
      CHECK(number_at_row(t, "auc_rmia_online", row) > number_at_row(t, "auc_loss", row));
    }
  }
  CHECK(accuracy_of_setting.size() == 11);
}
