// `embpriv run`, `merge`, `info` and `plot` as a user runs them: the real binary, killed with
// SIGKILL in the middle of a sweep and resumed, must give the table of an uninterrupted run.
#include "tests/catch.h"
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include "experiments/results/results_table.h"
#include "tests/test_binary.h"
#include "tests/test_tables.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// 3 mechanisms x 6 epsilons x 3 seeds; each row takes a few tens of milliseconds.
const char* kSweep = R"(type: perturbation
seeds: 3
data: {dim: 256, samples: 3000}
mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}
sweep:
  mechanism:
    - {name: vmf_tangent, beta: 1}
    - {name: vmf, beta: 1}
    - {name: gaussian, clip_norm: 1}
  mechanism.epsilon: [0.25, 0.5, 1, 2, 4, 8]
)";

}  // namespace

TEST_CASE("a sweep killed with SIGKILL resumes to the uninterrupted table", "[apps][engine]") {
  TempDir dir("embpriv_run_test");
  std::ofstream(dir / "sweep.yaml") << kSweep;
  const std::string config = dir / "sweep.yaml";
  REQUIRE(run_binary("run " + config + " --out " + (dir / "whole.h5") + " --no-plot -q").code == 0);
  const ResultsTable whole = read_results_h5(dir / "whole.h5");
  REQUIRE(whole.rows() == 54);

  const std::string killed = dir / "killed.h5";
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(EMBPRIV_BINARY, EMBPRIV_BINARY, "run", config.c_str(), "--out", killed.c_str(),
          "--no-plot", "--threads", "1", "--save-every", "0", static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill it once the first save is on disk, well before the end.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(killed) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const ResultsTable partial = read_results_h5(killed);
  INFO("rows on disk at the kill: " << partial.rows());
  CHECK(partial.rows() > 0);
  CHECK(partial.rows() < 54);
  CHECK(partial.attributes.at("complete") == "false");

  const Outcome resumed = run_binary("run " + config + " --out " + killed + " --resume --no-plot");
  CHECK(resumed.code == 0);
  CHECK_THAT(resumed.output, Contains("resuming") && Contains("54 of 54 rows"));
  CHECK(table_difference(read_results_h5(killed), whole) == "");
}

TEST_CASE("SIGINT stops a sweep after the current row with a resumable file", "[apps][engine]") {
  TempDir dir("embpriv_run_test");
  std::ofstream(dir / "sweep.yaml") << kSweep;
  const std::string config = dir / "sweep.yaml";
  const std::string out = dir / "interrupted.h5";
  int from_child[2];
  REQUIRE(pipe(from_child) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    dup2(from_child[1], 1);
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    execl(EMBPRIV_BINARY, EMBPRIV_BINARY, "run", config.c_str(), "--out", out.c_str(), "--no-plot",
          "--threads", "1", "--save-every", "0", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(from_child[1]);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (!fs::exists(out) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill(child, SIGINT);
  std::string printed;
  char buffer[256];
  for (ssize_t n; (n = read(from_child[0], buffer, sizeof buffer)) > 0;) printed.append(buffer, n);
  close(from_child[0]);
  int status = 0;
  waitpid(child, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 130);
  CHECK_THAT(printed, Contains("interrupted by signal 2") && Contains("--resume"));
  const ResultsTable partial = read_results_h5(out);
  CHECK(partial.rows() > 0);
  CHECK(partial.rows() < 54);
  CHECK(partial.attributes.at("complete") == "false");
  CHECK(run_binary("run " + config + " --out " + out + " --resume --no-plot -q").code == 0);
  CHECK(read_results_h5(out).rows() == 54);
}

TEST_CASE("run, info, merge and plot from the command line", "[apps][engine]") {
  TempDir dir("embpriv_run_test");
  std::ofstream(dir / "sweep.yaml") << kSweep;
  const std::string config = dir / "sweep.yaml";
  const std::string small = " data.samples=200 data.dim=16";
  const Outcome dry = run_binary("run " + config + small + " --dry-run");
  CHECK(dry.code == 0);
  CHECK_THAT(dry.output, Contains("grid: 18 points x 3 seeds = 54 rows") &&
                             Contains("estimated time"));
  CHECK(!fs::exists(dir / "results"));
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string out = dir / (std::string("part") + shard[0] + ".h5");
    REQUIRE(run_binary("run " + config + small + " --shard " + shard + " --out " + out + " -q").code == 0);
  }
  const Outcome merged = run_binary("merge " + (dir / "all.h5") + " " + (dir / "part1.h5") + " " +
                                    (dir / "part2.h5"));
  CHECK(merged.code == 0);
  CHECK_THAT(merged.output, Contains("54 rows") && Contains("complete: true"));
  const Outcome info = run_binary("info " + (dir / "all.h5"));
  CHECK(info.code == 0);
  CHECK_THAT(info.output, Contains("perturbation") && Contains("54 ok, 0 failed") &&
                              Contains("mechanism.epsilon") && Contains("mean_cosine"));
  const Outcome plot = run_binary("plot " + (dir / "all.h5"));
  CHECK(plot.code == 0);
  CHECK(fs::exists(dir / "all.cosine.png"));
  CHECK(fs::exists(dir / "all.cosine.svg"));
  CHECK(fs::exists(dir / "all.norm_ratio.png"));

  // Bad input: one line, exit 2.
  std::ofstream(dir / "empty_list.yaml") << "type: perturbation\nsweep:\n  mechanism.epsilon: []\n";
  std::ofstream(dir / "bad_eps.yaml") << "type: perturbation\nmechanism: {name: vmf, epsilon: -2}\n";
  std::ofstream(dir / "unknown.yaml") << "type: perturbation\nmechanismm: {name: vmf}\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"run " + (dir / "empty_list.yaml"), "line 3: sweep.mechanism.epsilon must be a non-empty list"},
      {"run " + (dir / "bad_eps.yaml"), "line 2: mechanism: epsilon must be finite and > 0, got -2"},
      {"run " + (dir / "unknown.yaml"), "line 2: unknown key 'mechanismm'; valid:"},
      {"run " + (dir / "missing.yaml"), "cannot read config file"},
      {"run " + config + " --shard 3/2", "--shard i/N needs 1 <= i <= N"},
      {"run " + config + small + " --out " + (dir / "all.h5"), "exists; pass --resume"},
      {"info " + (dir / "nothing.h5"), "no such results file"},
      {"merge " + (dir / "x.h5") + " " + (dir / "part1.h5") + " " + (dir / "part1.h5"), "is in both"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Outcome outcome = run_binary(args);
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, Contains("embpriv: error: ") && Contains(message));
    CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
  }
  // A truncated results file is named as such.
  fs::copy_file(dir / "all.h5", dir / "truncated.h5");
  fs::resize_file(dir / "truncated.h5", fs::file_size(dir / "truncated.h5") / 2);
  const Outcome truncated = run_binary("info " + (dir / "truncated.h5"));
  CHECK(truncated.code == 2);
  CHECK_THAT(truncated.output, Contains("truncated or corrupt"));
}

namespace {

// Two shards of a tiny sweep in `dir`: part1.h5 and part2.h5.
void write_two_shards(const TempDir& dir) {
  std::ofstream(dir / "sweep.yaml") << kSweep;
  for (const char* shard : {"1/2", "2/2"}) {
    const std::string out = dir / (std::string("part") + shard[0] + ".h5");
    REQUIRE(run_binary("run " + (dir / "sweep.yaml") + " data.samples=200 data.dim=16 seeds=1 --shard " + shard +
                       " --out " + out + " -q")
                .code == 0);
  }
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("merge never replaces an existing file without --overwrite", "[apps][engine]") {
  TempDir dir("embpriv_merge_safety_test");
  write_two_shards(dir);
  const std::string part1 = file_bytes(dir / "part1.h5");
  // OUT forgotten: the first shard would be the merged file.
  const Outcome forgotten = run_binary("merge " + (dir / "part1.h5") + " " + (dir / "part2.h5"));
  CHECK(forgotten.code == 2);
  CHECK_THAT(forgotten.output, Contains("embpriv: error: ") && Contains("part1.h5 exists; pass --overwrite"));
  const Outcome into_input = run_binary("merge " + (dir / "part1.h5") + " " + (dir / "part1.h5") + " " +
                                        (dir / "part2.h5") + " --overwrite");
  CHECK(into_input.code == 2);
  CHECK_THAT(into_input.output, Contains("is also one of the files to merge"));
  CHECK(file_bytes(dir / "part1.h5") == part1);
  // An existing file of another run is kept; --overwrite replaces it.
  std::ofstream(dir / "other.h5") << "another run's results";
  const Outcome kept = run_binary("merge " + (dir / "other.h5") + " " + (dir / "part1.h5") + " " + (dir / "part2.h5"));
  CHECK(kept.code == 2);
  CHECK(file_bytes(dir / "other.h5") == "another run's results");
  const Outcome replaced = run_binary("merge " + (dir / "other.h5") + " " + (dir / "part1.h5") + " " +
                                      (dir / "part2.h5") + " --overwrite");
  CHECK(replaced.code == 0);
  CHECK_THAT(replaced.output, Contains("complete: true"));
}

TEST_CASE("an output path that cannot be written is refused before any row runs", "[apps][engine]") {
  TempDir dir("embpriv_out_path_test");
  std::ofstream(dir / "sweep.yaml") << kSweep;
  std::ofstream(dir / "a_file") << "x";
  fs::create_directories(dir / "a_folder");
  const std::string run = "run " + (dir / "sweep.yaml") + " data.samples=200 data.dim=16 --no-plot --out ";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {run + (dir / "a_file") + "/x.h5", "a_file is a file, not a folder"},
      {run + (dir / "a_file") + "/deeper/x.h5", "a_file is a file, not a folder"},
      {run + (dir / "a_folder"), "it is a folder"},
      {"merge " + (dir / "a_folder") + " " + (dir / "p.h5"), "it is a folder"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const Outcome outcome = run_binary(args);
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, Contains("embpriv: error: cannot write results to ") && Contains(message));
    CHECK_THAT(outcome.output, !Contains("row 0"));  // refused before the first row
  }
  if (geteuid() != 0) {  // root writes into read-only folders
    fs::create_directories(dir / "read_only");
    fs::permissions(dir / "read_only", fs::perms::owner_read | fs::perms::owner_exec);
    const Outcome outcome = run_binary(run + (dir / "read_only") + "/x.h5");
    CHECK(outcome.code == 2);
    CHECK_THAT(outcome.output, Contains("is not writable"));
    fs::permissions(dir / "read_only", fs::perms::owner_all);
  }
}

TEST_CASE("a second writer of the same --out is refused while the first holds OUT.lock", "[apps][engine]") {
  TempDir dir("embpriv_out_lock_test");
  std::ofstream(dir / "sweep.yaml") << kSweep;
  const std::string out = dir / "x.h5";
  const std::string run = "run " + (dir / "sweep.yaml") + " data.samples=200 data.dim=16 seeds=1 --no-plot -q --out " + out;
  {
    // The first writer, as another embpriv process holds it: an exclusive flock on OUT.lock.
    const int held = ::open((out + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(held >= 0);
    REQUIRE(::flock(held, LOCK_EX | LOCK_NB) == 0);
    const Outcome second = run_binary(run);
    CHECK(second.code == 2);
    CHECK_THAT(second.output, Contains("embpriv: error: another embpriv process is writing " + out));
    CHECK(!fs::exists(out));
    ::close(held);
  }
  // Once it is released (also when its holder is killed) the next run takes it, and removes it.
  CHECK(run_binary(run).code == 0);
  CHECK(fs::exists(out));
  CHECK(!fs::exists(out + ".lock"));
}
