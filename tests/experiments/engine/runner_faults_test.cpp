// The runner under faults: a LibTorch error in a row is recorded as its first line (no
// backtrace); data the rows share that cannot be loaded stops the run before any row, with one
// error (exit code 2) instead of the same failure in every row.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <filesystem>
#include <functional>
#include <sstream>

#include "core/error.h"
#include "experiments/engine/runner.h"
#include "experiments/results/results_table.h"
#include "tests/experiments/engine/perturbation_with.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

int run_with(const TempDir& dir, std::unique_ptr<ExperimentType> type, const std::string& out) {
  write_file(dir / "p.yaml", "type: perturbation\ndata: {dim: 8, samples: 100}\n"
                             "mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}\n"
                             "sweep: {mechanism.epsilon: [1, 2, 4]}\n");
  ExperimentRegistry types;
  types.add(std::move(type));
  RunOptions options;
  options.config_path = dir / "p.yaml";
  options.out = out;
  options.plot = false;
  std::ostringstream log;
  return run_experiment(options, types, default_mechanism_registry(), log);
}

}  // namespace

TEST_CASE("a LibTorch error in a row is recorded as one line, without its backtrace", "[engine][faults]") {
  TempDir dir("embpriv_torch_row_error_test");
  const std::string out = dir / "r.h5";
  CHECK(run_with(dir, std::make_unique<PerturbationWith>([](const PointInput& input, const ExperimentType& real) {
                   if (input.config["mechanism"]["epsilon"].as<double>() == 2) at::ones({2, 3}).mm(at::ones({2, 3}));
                   return real.run_point(input);
                 }),
                 out) == 1);
  const ResultsTable table = read_results_h5(out);
  const auto& error = table.values<std::string>("error");
  REQUIRE(error.size() == 3);
  CHECK(error[0].empty());
  CHECK(error[1] == "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)");
  CHECK(error[2].empty());
}

TEST_CASE("shared data that cannot be loaded stops the run with its error, before any row", "[engine][faults]") {
  TempDir dir("embpriv_shared_load_error_test");
  const std::string out = dir / "r.h5";
  int loads = 0;
  const auto failing_load = [&loads](const PointInput& input, const ExperimentType&) -> PointResult {
    input.cache.get_or_make<int>("model", [&loads]() -> int {
      ++loads;
      throw Error("model.bin is truncated");
    });
    return {};
  };
  CHECK_THROWS_MATCHES(run_with(dir, std::make_unique<PerturbationWith>(failing_load), out), SharedValueError,
                       Catch::Matchers::Message("model.bin is truncated"));
  CHECK(loads == 1);           // not once per row
  CHECK(!fs::exists(out));     // no row ran: no file
  CHECK(!fs::exists(out + ".lock"));
}
