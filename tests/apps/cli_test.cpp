// The command line: exit codes, one-line errors, and byte-identical results across threads.
#include "tests/catch.h"
#include <unistd.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "apps/cli.h"
#include "experiments/results/results_table.h"
#include "mechanisms/vmf_tangent.h"
#include "tests/test_binary.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
namespace fs = std::filesystem;

namespace {

int run(std::vector<std::string> args, const MechanismRegistry& registry) {
  args.insert(args.begin(), "embpriv");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return run_cli(static_cast<int>(argv.size()), argv.data(), registry);
}

// What the binary prints on stderr (these tests read the error lines).
Outcome run_errors(const std::string& args) { return run_binary(args, Capture::errors); }

fs::path temp_dir() {
  fs::path dir = fs::temp_directory_path() / ("embpriv_cli_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir;
}

const char* kSmall = "bounds --dim 64 --samples 500 --no-plot -q";

}  // namespace

TEST_CASE("bad input gives one error line and exit code 2", "[apps]") {
  const fs::path dir = temp_dir();
  std::ofstream(dir / "unknown_key.yaml") << "type: bounds\ndata: {samples: 500}\nepsilon: [1]\n";
  std::ofstream(dir / "malformed.yaml") << "type: bounds\nsamples: [500\n";
  std::ofstream(dir / "bad_eps.yaml") << "type: bounds\nsweep: {mechanism.epsilon: [1, -2]}\n";
  std::ofstream(dir / "bad_type.yaml") << "type: frobnicate\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bounds --dim 64 --samples 5 --no-plot", "samples must be >= 100, got 5"},
      {"bounds --dim 1 --no-plot", "data.dim must be >= 2, got 1"},
      {"run " + (dir / "missing.yaml").string(), "cannot read config file"},
      {"run " + (dir / "unknown_key.yaml").string(), "unknown key 'epsilon'; valid:"},
      {"run " + (dir / "malformed.yaml").string(), "malformed YAML"},
      {"run " + (dir / "bad_eps.yaml").string(), "epsilon must be finite and > 0, got -2"},
      {"run " + (dir / "bad_type.yaml").string(), "unknown experiment type 'frobnicate'"},
      {"bounds --samples lots", "--samples"},
      {"frobnicate", "unknown command 'frobnicate'; valid: bounds, run, merge, plot, info, mechanisms"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Outcome outcome = run_errors(args);
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, Catch::Matchers::Contains(message));
  }
  // Errors of the embpriv kind are exactly one line.
  const Outcome one = run_errors("run " + (dir / "bad_eps.yaml").string());
  CHECK(std::count(one.output.begin(), one.output.end(), '\n') == 1);
  CHECK(one.output.rfind("embpriv: error: ", 0) == 0);
  fs::remove_all(dir);
}

TEST_CASE("bounds exits 0 on the real mechanisms and 1 on a wrong formula", "[apps][bounds]") {
  const fs::path dir = temp_dir();
  const std::string out = (dir / "b.h5").string();
  MechanismRegistry registry = default_mechanism_registry();
  CHECK(run({"bounds", "--dim", "64", "--samples", "500", "--no-plot", "-q", "--out", out},
            registry) == 0);
  // Algorithm 1 with lambda = 1.05 beta / eps.
  registry.add("vmf_tangent", {{"epsilon", "beta", "alpha"}, "broken", [](const MechanismParams& p) {
                 return std::make_unique<VmfTangentMechanism>(p.number("epsilon") / 1.05,
                                                              p.number_or("beta", 1.0));
               }});
  CHECK(run({"bounds", "--dim", "64", "--samples", "500", "--no-plot", "-q", "--out", out},
            registry) == 1);
  // The failing run still wrote its table, with failed checks counted in its rows.
  const auto failed = std::get<std::vector<double>>(read_results_h5(out).column("checks_failed").values);
  CHECK(std::count_if(failed.begin(), failed.end(), [](double n) { return n > 0; }) > 0);
  fs::remove_all(dir);
}

TEST_CASE("run on a bounds config honours --out, --no-plot, --dry-run and --shard", "[apps][bounds]") {
  const fs::path dir = temp_dir();
  const std::string config = (dir / "bounds.yaml").string(), out = (dir / "b.h5").string();
  std::ofstream(config) << "type: bounds\ndata: {dim: 64, samples: 500}\n"
                           "sweep: {mechanism.epsilon: [1, 2]}\nout: " << out << "\n";
  const MechanismRegistry registry = default_mechanism_registry();
  CHECK(run({"-q", "run", config, "--dry-run"}, registry) == 0);
  CHECK_FALSE(fs::exists(out));  // a dry run runs nothing
  CHECK(run({"-q", "run", config, "--no-plot"}, registry) == 0);
  CHECK(fs::exists(out));
  CHECK_FALSE(fs::exists(dir / "b.cosines.png"));
  const std::string shard = (dir / "s1.h5").string();
  CHECK(run({"-q", "run", config, "--shard", "1/2", "--out", shard}, registry) == 0);
  CHECK(read_results_h5(shard).rows() == 1);
  fs::remove_all(dir);
}

TEST_CASE("same seed gives byte-identical /table values with 1 and 2 threads", "[apps][bounds]") {
  const fs::path dir = temp_dir();
  const std::string base = std::string(kSmall) + " --seed 3 --out ";
  REQUIRE(run_errors(base + (dir / "t1.h5").string() + " --threads 1").code == 0);
  REQUIRE(run_errors(base + (dir / "t2.h5").string() + " --threads 2").code == 0);
  const ResultsTable a = read_results_h5((dir / "t1.h5").string());
  const ResultsTable b = read_results_h5((dir / "t2.h5").string());
  REQUIRE(a.columns.size() == b.columns.size());
  for (std::size_t i = 0; i < a.columns.size(); ++i) {
    INFO(a.columns[i].name);
    if (const auto* x = std::get_if<std::vector<double>>(&a.columns[i].values)) {
      const auto& y = std::get<std::vector<double>>(b.columns[i].values);
      REQUIRE(x->size() == y.size());
      CHECK(std::memcmp(x->data(), y.data(), x->size() * sizeof(double)) == 0);
    } else {
      CHECK(a.columns[i].values == b.columns[i].values);
    }
  }
  fs::remove_all(dir);
}

TEST_CASE("bounds refuses --dim below 2 instead of running other dimensions", "[apps]") {
  for (const std::string dim : {"0", "-5", "1"}) {
    INFO(dim);
    const Outcome outcome = run_errors("bounds --dim " + dim + " --samples 5 --no-plot");
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, Catch::Matchers::Contains("data.dim must be >= 2, got " + dim));
  }
}

TEST_CASE("the --threads option and the threads key must lie between 0 and the CPU count", "[apps]") {
  TempDir dir("embpriv_cli_threads_test");
  const std::string many = std::to_string(std::thread::hardware_concurrency() + 1);
  std::ofstream(dir / "many.yaml") << "type: bounds\nthreads: " << many << "\ndata: {samples: 500}\n";
  const std::string small = " --dim 64 --samples 500 --no-plot -q --out " + (dir / "b.h5");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bounds --threads -1" + small, "--threads must be >= 0 (0: the config's threads), got -1"},
      {"bounds --threads 100000" + small, "--threads must be at most the"},
      {"bounds --threads " + many + small, "CPUs of this machine, got " + many},
      {"run " + (dir / "many.yaml") + " --dry-run", "many.yaml line 2: threads must be at most the"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Outcome outcome = run_errors(args);
    CHECK(outcome.code == 2);
    CHECK(outcome.output.rfind("embpriv: error: ", 0) == 0);
    CHECK_THAT(outcome.output, Catch::Matchers::Contains(message));
  }
  CHECK(!std::filesystem::exists(dir / "b.h5"));
  // --threads replaces the config's threads, so the config's value is not used, nor checked.
  CHECK(run_binary("run " + (dir / "many.yaml") + " --threads 1 --dry-run").code == 0);
}

TEST_CASE("CLI11's parse errors are one line with the embpriv: error: prefix", "[apps]") {
  for (const std::string args : {"bounds --frobnicate", "run", "bounds --samples lots", "merge out.h5"}) {
    INFO(args);
    const Outcome outcome = run_errors(args);
    CHECK(outcome.code == 2);
    CHECK(outcome.output.rfind("embpriv: error: ", 0) == 0);
    CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
  }
  const Outcome help = run_binary("bounds --help");
  CHECK(help.code == 0);
  CHECK_THAT(help.output, Catch::Matchers::Contains("--dim"));
}
