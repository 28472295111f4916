// The engine's runner: shards merge into the one-run file, resume continues a cut-off file to
// the uninterrupted result, failing rows are recorded without losing the others.
#include "tests/catch.h"
#include <ATen/Parallel.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "experiments/results/merge.h"
#include "experiments/results/results_info.h"
#include "tests/experiments/engine/perturbation_with.h"
#include "experiments/engine/runner.h"
#include "experiments/types/registry.h"
#include "tests/test_tables.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// The perturbation experiment, except that every row at epsilon 3 throws (a row that fails
// at run time, after the config checks passed).
std::unique_ptr<ExperimentType> fails_at_epsilon_three() {
  return std::make_unique<PerturbationWith>([](const PointInput& input, const ExperimentType& real) {
    if (input.config["mechanism"]["epsilon"].as<double>() == 3) throw embpriv::Error("out of luck at eps 3");
    return real.run_point(input);
  });
}

struct Fixture {
  fs::path dir = fs::temp_directory_path() / ("embpriv_runner_test_" + std::to_string(getpid()));
  MechanismRegistry mechanisms = default_mechanism_registry();
  std::ostringstream log;
  Fixture() {
    fs::create_directories(dir);
    std::ofstream(dir / "sweep.yaml") << R"(type: perturbation
seeds: 3
data: {dim: 24, samples: 300, text_fraction: 0.25}
mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}
sweep:
  mechanism:
    - {name: vmf_tangent, beta: 1, alpha: 0.5}
    - {name: vmf, beta: 1}
    - {name: laplace, clip_norm: 1}
  mechanism.epsilon: [0.5, 1, 2, 4, 8, 16]
)";
  }
  ~Fixture() { fs::remove_all(dir); }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  int run(RunOptions options, const ExperimentRegistry& types = default_experiment_registry()) {
    options.config_path = path("sweep.yaml");
    options.plot = false;
    return run_experiment(options, types, mechanisms, log);
  }
};

}  // namespace

TEST_CASE("4 shards merged give the file of one run", "[engine]") {
  Fixture f;
  RunOptions whole;
  whole.out = f.path("whole.h5");
  REQUIRE(f.run(whole) == 0);
  const ResultsTable one = read_results_h5(whole.out);
  REQUIRE(one.rows() == 54);
  CHECK(one.attributes.at("complete") == "true");
  CHECK(one.curves.size() == 54);
  std::vector<std::string> parts;
  for (int i = 1; i <= 4; ++i) {
    RunOptions shard;
    shard.shard = parse_shard(std::to_string(i) + "/4");
    shard.out = f.path("part" + std::to_string(i) + ".h5");
    REQUIRE(f.run(shard) == 0);
    CHECK(read_results_h5(shard.out).rows() == (i <= 2 ? 14u : 13u));
    parts.push_back(shard.out);
  }
  const ResultsTable merged = merge_results_files(f.path("merged.h5"), parts);
  CHECK(table_difference(merged, read_results_h5(f.path("merged.h5"))) == "");
  CHECK(table_difference(merged, one) == "");
  CHECK(merged.attributes.at("complete") == "true");
  // Overlapping shards and shards of another config are refused.
  CHECK_THROWS_WITH(merge_results({parts[0], parts[1], parts[0]}), Contains("is in both"));
  RunOptions other;
  other.overrides = {"data.samples=200"};
  other.shard = parse_shard("2/4");
  other.out = f.path("other.h5");
  REQUIRE(f.run(other) == 0);
  CHECK_THROWS_WITH(merge_results({parts[0], other.out}), Contains("written by another config"));
}

TEST_CASE("each row's phases are timed under /timing, with the BLAS in the root attributes", "[engine]") {
  Fixture f;
  RunOptions whole;
  whole.out = f.path("timed.h5");
  REQUIRE(f.run(whole) == 0);
  const ResultsTable table = read_results_h5(whole.out);
  REQUIRE(table.rows() == 54);
  // The perturbation type's phases: draw the inputs, perturb them, sum the statistics.
  REQUIRE(table.phase_seconds.size() == 3);
  for (const char* phase : {"inputs", "perturb", "statistics"}) {
    REQUIRE(table.phase_seconds.count(phase) == 1);
    CHECK(table.phase_seconds.at(phase).size() == 54);
  }
  for (std::size_t i = 0; i < table.rows(); ++i) {
    double phases = 0;
    for (const auto& [phase, values] : table.phase_seconds) {
      CHECK(values[i] >= 0);
      phases += values[i];
    }
    CHECK(phases > 0);
    CHECK(phases <= table.seconds[i]);  // the phases lie within the row's wall time
  }
  CHECK(table.attributes.at("blas").find(table.attributes.at("blas_kernel")) != std::string::npos);
  CHECK_FALSE(table.attributes.at("blas_kernel_origin").empty());
  // `embpriv info` shows the total of each phase and what no phase covers.
  std::ostringstream info;
  print_results_info(whole.out, info);
  for (const char* line : {"/timing: ", "    inputs ", "    perturb ", "    statistics ", "    other "}) {
    CHECK_THAT(info.str(), Contains(line));
  }
  // Merged shards keep every row's phases.
  std::vector<std::string> parts;
  for (int i = 1; i <= 2; ++i) {
    RunOptions shard;
    shard.shard = parse_shard(std::to_string(i) + "/2");
    shard.out = f.path("timed" + std::to_string(i) + ".h5");
    REQUIRE(f.run(shard) == 0);
    parts.push_back(shard.out);
  }
  const ResultsTable merged = merge_results(parts);
  CHECK(merged.phase_seconds.size() == 3);
  for (const auto& [phase, values] : merged.phase_seconds) CHECK(values.size() == 54);
}

TEST_CASE("resume completes a cut-off file to exactly the uninterrupted one", "[engine]") {
  Fixture f;
  RunOptions whole;
  whole.out = f.path("whole.h5");
  REQUIRE(f.run(whole) == 0);
  const ResultsTable one = read_results_h5(whole.out);
  // What an interrupted run leaves: every third row missing.
  ResultsTable cut = one;
  std::vector<std::size_t> keep;
  for (std::size_t i = 0; i < one.rows(); ++i) {
    if (i % 3 != 1) keep.push_back(i);
  }
  for (Column& c : cut.columns) {
    std::visit(
        [&](auto& values) {
          auto copy = values;
          values.clear();
          for (std::size_t i : keep) values.push_back(copy[i]);
        },
        c.values);
  }
  std::vector<double> seconds;
  for (std::size_t i : keep) seconds.push_back(cut.seconds[i]);
  cut.seconds = seconds;
  for (auto& [phase, values] : cut.phase_seconds) {
    std::vector<double> kept;
    for (std::size_t i : keep) kept.push_back(values[i]);
    values = kept;
  }
  std::vector<RowCurves> curves;
  for (std::size_t i : keep) curves.push_back(cut.curves[i]);
  cut.curves = curves;
  cut.attributes["complete"] = "false";
  write_results_h5(f.path("cut.h5"), cut);

  RunOptions resume;
  resume.out = f.path("cut.h5");
  CHECK_THROWS_WITH(f.run(resume), Contains("exists; pass --resume") && Contains("--overwrite"));
  resume.resume = true;
  REQUIRE(f.run(resume) == 0);
  CHECK_THAT(f.log.str(), Contains("54 of 54 rows"));
  const ResultsTable resumed = read_results_h5(resume.out);
  CHECK(table_difference(resumed, one) == "");
  // The kept rows keep their phase times; the rows run again get their own.
  for (const auto& [phase, values] : one.phase_seconds) {
    REQUIRE(resumed.phase_seconds.count(phase) == 1);
    for (std::size_t i : keep) CHECK(resumed.phase_seconds.at(phase)[i] == values[i]);
  }
  CHECK(resumed.attributes.at("complete") == "true");
  // Resuming with another config is refused; --overwrite starts again.
  resume.overrides = {"seeds=2"};
  CHECK_THROWS_WITH(f.run(resume), Contains("written by another config"));
  resume.resume = false;
  resume.overwrite = true;
  REQUIRE(f.run(resume) == 0);
  CHECK(read_results_h5(resume.out).rows() == 36);
}

TEST_CASE("a failing row is recorded with its message and the others complete", "[engine]") {
  Fixture f;
  ExperimentRegistry types;
  types.add(fails_at_epsilon_three());
  RunOptions options;
  options.overrides = {"mechanism.epsilon=[1,3,9]", "seeds=1"};
  options.out = f.path("failing.h5");
  CHECK(f.run(options, types) == 1);
  const ResultsTable table = read_results_h5(options.out);
  REQUIRE(table.rows() == 9);
  const auto& status = std::get<std::vector<std::string>>(table.column("status").values);
  const auto& error = std::get<std::vector<std::string>>(table.column("error").values);
  const auto& cosine = std::get<std::vector<double>>(table.column("mean_cosine").values);
  for (std::size_t i = 0; i < 9; ++i) {
    const bool bad = i % 3 == 1;  // epsilon = 3
    CHECK(status[i] == (bad ? "failed" : "ok"));
    CHECK(error[i] == (bad ? "out of luck at eps 3" : ""));
    CHECK(std::isnan(cosine[i]) == bad);
  }
  CHECK(table.curves.size() == 6);
  // --resume runs the failed rows again (and they fail again here).
  options.resume = true;
  CHECK(f.run(options, types) == 1);
  CHECK_THAT(f.log.str(), Contains("3 failed"));
}

TEST_CASE("the results do not depend on the thread count", "[engine]") {
  Fixture f;
  const int threads = at::get_num_threads();
  RunOptions one, two;
  one.threads = 1;
  one.out = f.path("t1.h5");
  two.threads = 2;
  two.out = f.path("t2.h5");
  REQUIRE(f.run(one) == 0);
  REQUIRE(f.run(two) == 0);
  at::set_num_threads(threads);
  CHECK(table_difference(read_results_h5(one.out), read_results_h5(two.out)) == "");
}
