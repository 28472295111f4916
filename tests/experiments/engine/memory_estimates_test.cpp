// The memory estimates of the experiment types (experiments/types/<type>/<type>_memory.h)
// against what a run really takes: each run is the real binary in a process of its own, whose
// peak resident memory (ru_maxrss, through embpriv_peak_rss) is compared with a baseline process (a tiny
// perturbation run: the binary, LibTorch and the BLAS loaded). The estimate must lie within
// [0.5, 3] x the measured increase: close enough that the refusal of a config over the limit
// is right, loose enough for the allocator's and the libraries' own memory.
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "platform/memory_limit.h"
#include "experiments/engine/run_memory.h"
#include "experiments/types/registry.h"
#include "tests/catch.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

constexpr double kLowestRatio = 0.5, kHighestRatio = 3.0;

// Runs `embpriv run CONFIG OVERRIDES --out OUT --no-plot` and returns its peak resident memory
// in bytes; the run must succeed. It runs under embpriv_peak_rss (tests/tools/peak_rss_runner.cpp):
// forked straight from this test process, whose own memory may be a few GB when every test case
// runs in one process, the run's ru_maxrss would count this process's resident pages too.
double peak_rss_bytes(const std::string& config, const std::vector<std::string>& overrides, const std::string& out) {
  std::vector<std::string> args = {EMBPRIV_PEAK_RSS_BINARY, EMBPRIV_BINARY, "run", config};
  args.insert(args.end(), overrides.begin(), overrides.end());
  for (const char* a : {"--out", out.c_str(), "--no-plot", "--overwrite"}) args.emplace_back(a);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string report = out + ".peak_rss";
  const pid_t child = fork();
  if (child == 0) {
    const int file = open(report.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(file, 1);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::ifstream in(report);
  double bytes = 0;
  REQUIRE(in >> bytes);
  return bytes;
}

double estimated_run_bytes(const std::string& config, const std::vector<std::string>& overrides) {
  static const MechanismRegistry mechanisms = default_mechanism_registry();
  const RunPlan plan = plan_run(config, overrides, default_experiment_registry(), mechanisms);
  return estimate_run_memory(plan, Shard{}).run_bytes;
}

}  // namespace

TEST_CASE("each type's memory estimate is within [0.5, 3] x the peak memory its run adds", "[engine][memory]") {
  TempDir dir("embpriv_memory_estimates_test");
  struct Case {
    std::string name, yaml;
    std::vector<std::string> overrides;
  };
  // Mid-size points, each a few hundred MB above the baseline, and a few seconds to a minute.
  const std::vector<Case> cases = {
      {"perturbation", "type: perturbation\ndata: {dim: 8192, samples: 4096}\n", {}},
      {"perturbation_gaussian", "type: perturbation\ndata: {dim: 16384, samples: 4096}\n",
       {"mechanism={name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 1}"}},
      {"bounds", "type: bounds\ndata: {dim: 2048, samples: 20000}\n", {}},
      {"audit", "type: audit\ndata: {dim: 1024}\naudit: {trials: 20000}\n", {}},
      {"inversion_language_model",
       "type: inversion\ndata: {max_sentences: 20}\nutility: {train_sentences: []}\n"
       "language_model: {texts: 32, tokens: 128}\n",
       {}},
      {"inversion_glove",
       "type: inversion\ndata: {vocabulary: glove, glove_words: 100000, max_sentences: 20}\n"
       "utility: {train_sentences: []}\n",
       {}},
      {"mia", "type: mia\ndata: {examples: 100}\nattack: {shadows: 2}\n", {}},
      {"obfuslm", "type: obfuslm\nlanguage_model: {texts: 32, tokens: 128}\nattack: {anonymity_clusters: 4, anonymity_trials: 20}\n",
       {}},
      {"obfuslm_glove",
       "type: obfuslm\ndata: {vocabulary: glove, glove_words: 20000, max_sentences: 50}\nutility: {train_sentences: []}\n"
       "attack: {anonymity_clusters: 4, anonymity_trials: 20, vocabulary_sample: 1000}\n",
       {}},
  };
  write_file(dir / "baseline.yaml", "type: perturbation\ndata: {dim: 16, samples: 200}\n");
  const double baseline = peak_rss_bytes(dir / "baseline.yaml", {}, dir / "baseline.h5");
  for (const Case& c : cases) {
    const std::string config = dir / (c.name + ".yaml");
    write_file(config, c.yaml);
    const double measured = peak_rss_bytes(config, c.overrides, dir / (c.name + ".h5")) - baseline;
    const double estimated = estimated_run_bytes(config, c.overrides);
    INFO(c.name << ": estimated " << format_bytes(estimated) << ", measured " << format_bytes(measured)
                << " above the baseline's " << format_bytes(baseline));
    CHECK(estimated >= kLowestRatio * measured);
    CHECK(estimated <= kHighestRatio * measured);
  }
}

// The learned attacks over GloVe words (attack.learned with data.vocabulary glove): their logits
// over the data.glove_words words dominate (experiments/types/inversion/inversion_memory.cpp).
// Their estimate bounds the longest sentence of a batch by 64 tokens where the files' are 30-40,
// so it is an upper bound: here within [1, 3] x the measured increase (InvBert over 20,000 words
// measured 730-880 MB above the baseline in four runs, estimated 1.47 GB; the MLP 478-504 MB,
// estimated 814 MB). Without the learned attacks' share (446 MB for both) the InvBert point is
// about 0.5 x and the MLP point 0.9 x: both fail.
TEST_CASE("the inversion type's GloVe estimate bounds the learned attacks' peak", "[engine][memory][inversion]") {
  TempDir dir("embpriv_memory_learned_glove_test");
  write_file(dir / "baseline.yaml", "type: perturbation\ndata: {dim: 16, samples: 200}\n");
  const double baseline = peak_rss_bytes(dir / "baseline.yaml", {}, dir / "baseline.h5");
  for (const std::string model : {"transformer", "mlp"}) {
    const std::string config = dir / (model + ".yaml");
    write_file(config, "type: inversion\ndata: {vocabulary: glove, glove_words: 20000, max_sentences: 100}\n"
                       "attack: {learned: true, learned_model: " + model + ", learned_epochs: 1}\n"
                       "utility: {train_sentences: [sentiment/amazon.json]}\nmechanism: {name: vmf, epsilon: 50, beta: 1}\n");
    const double measured = peak_rss_bytes(config, {}, dir / (model + ".h5")) - baseline;
    const double estimated = estimated_run_bytes(config, {});
    INFO(model << ": estimated " << format_bytes(estimated) << ", measured " << format_bytes(measured)
               << " above the baseline's " << format_bytes(baseline));
    CHECK(estimated >= measured);
    CHECK(estimated <= 3 * measured);
  }
}
