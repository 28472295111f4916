// data.vectors: types perturbation, inversion and mia on a user's own .npy or HDF5 file of
// vectors (written here with a fixed seed), instead of their built-in data; a bad file is one
// error line naming data.vectors and the file, exit code 2, before any row and with no results
// file.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <numeric>

#include "experiments/engine/mechanism_yaml.h"
#include "experiments/results/vector_file.h"
#include "mechanisms/registry.h"
#include "tests/test_binary.h"
#include "tests/test_data.h"
#include "tests/test_run.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// Rows of a fixed seed (with norms from 0.1 to 100 where `spread_norms`: a mechanism's norm
// statistics depend on them), and labels 0/1 by the sign of the first coordinate (a classifier
// can learn them).
VectorFile user_file(std::int64_t rows, std::int64_t dim, bool spread_norms = false) {
  at::manual_seed(11);
  VectorFile file;
  file.vectors = at::randn({rows, dim}, at::kFloat);
  if (spread_norms) file.vectors *= at::logspace(-1, 2, rows, 10.0, at::kFloat).unsqueeze(1);
  std::vector<std::int64_t> labels;
  std::vector<std::string> ids;
  for (std::int64_t i = 0; i < rows; ++i) {
    labels.push_back(file.vectors[i][0].item<float>() > 0 ? 1 : 0);
    ids.push_back("text " + std::to_string(i));
  }
  file.row_columns = {Column{"ids", ids}, Column{"labels", labels}};
  return file;
}

const std::vector<double>& curve(const ResultsTable& t, const std::string& name) {
  for (const auto& [array, values] : t.curves.at(0).arrays) {
    if (array == name) return values;
  }
  FAIL("no curve " << name);
  throw;
}

// `embpriv run` of a config with data.vectors = `file`: exit 2, one error line naming the key
// and `names` (the file), and no results file.
void check_refused(const TempDir& dir, const std::string& type, const std::string& file, const std::string& message,
                   const std::string& extra = "") {
  INFO(type << " with data.vectors " << file << " " << extra);
  write_file(dir / "bad.yaml", "type: " + type + "\ndata: {vectors: '" + file + "'" + extra + "}\n");
  std::filesystem::remove(dir / "bad.h5");
  const Outcome outcome = run_binary("-q run '" + dir / "bad.yaml" + "' --out '" + dir / "bad.h5" + "' --no-plot",
                                     Capture::errors);
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("embpriv: error: ") && Contains("data.vectors") && Contains(message));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(dir / "bad.h5"));
}

}  // namespace

TEST_CASE("perturbation with data.vectors perturbs every row of the file, at its dimension", "[engine][user_vectors]") {
  ExperimentRun run("embpriv_user_vectors_perturbation_test");
  const VectorFile file = user_file(50, 16, /*spread_norms=*/true);
  write_vector_file(run.dir / "mine.h5", file);
  write_vector_file(run.dir / "mine.npy", file);
  const std::string config = "type: perturbation\nmechanism: {name: gaussian, epsilon: 2, clip_norm: 1000}\n";
  const ResultsTable h5 = run(config, {"data.vectors=" + run.dir / "mine.h5"});
  // 50 rows (not data.samples' 20,000) of d = 16 (not data.dim's 4096).
  const std::vector<double>& counts = curve(h5, "cosine_histogram_counts");
  CHECK(std::accumulate(counts.begin(), counts.end(), 0.0) == 50);
  // The theory of E||y||^2 / ||x||^2 is averaged over the rows: the file's norms, not random ones.
  const auto gaussian = make_mechanism("{name: gaussian, epsilon: 2, clip_norm: 1000}", default_mechanism_registry());
  double theory = 0;
  for (std::int64_t i = 0; i < 50; ++i) {
    const at::Tensor x = file.vectors[i].to(at::kDouble);
    const double squared = x.pow(2).sum().item<double>();
    theory += gaussian->expected_squared_norm(squared, x.abs().sum().item<double>(), 16, 2).value / squared / 50;
  }
  CHECK(number_at_row(h5, "theory_squared_norm_ratio", 0) == Approx(theory).epsilon(1e-12));
  // vMF's theory at the file's d = 16, not data.dim's 4096.
  const ResultsTable vmf = run("type: perturbation\nmechanism: {name: vmf, epsilon: 2}\n", {"data.vectors=" + run.dir / "mine.h5"});
  const auto vmf_mechanism = make_mechanism("{name: vmf, epsilon: 2}", default_mechanism_registry());
  CHECK(number_at_row(vmf, "theory_cosine", 0) == vmf_mechanism->cosine(16, 2).value);
  // The same matrix as .npy gives the same row, bit for bit.
  const ResultsTable npy = run(config, {"data.vectors=" + run.dir / "mine.npy"});
  CHECK(number_at_row(npy, "mean_cosine", 0) == number_at_row(h5, "mean_cosine", 0));
  CHECK(number_at_row(npy, "mean_squared_norm_ratio", 0) == number_at_row(h5, "mean_squared_norm_ratio", 0));
}

TEST_CASE("inversion with data.vectors: KNN over the file's rows, the same text twice counts as one",
          "[engine][user_vectors]") {
  ExperimentRun run("embpriv_user_vectors_inversion_test");
  VectorFile file = user_file(120, 16);
  file.vectors[1] = file.vectors[0];  // one text embedded twice: either row is a right guess
  write_vector_file(run.dir / "mine.h5", file);
  const std::string config = "type: inversion\ndata: {vectors: '" + run.dir / "mine.h5" +
                             "', max_sentences: 30}\nmechanism: {name: vmf, epsilon: EPS, beta: 1}\n";
  const auto at_eps = [&](const std::string& eps) {
    std::string c = config;
    c.replace(c.find("EPS"), 3, eps);
    return run(c);
  };
  const ResultsTable large = at_eps("100000"), small = at_eps("0.01");
  CHECK(number_at_row(large, "tokens", 0) == 30);
  CHECK(number_at_row(large, "top1_recovery", 0) == 1.0);
  CHECK(number_at_row(large, "mean_cosine", 0) > 0.999);
  // At eps = 0.01 the direction is nearly uniform: about 1 in 120 rows is found.
  CHECK(number_at_row(small, "top1_recovery", 0) < 0.2);
  CHECK(number_at_row(small, "mean_cosine", 0) < 0.3);
  CHECK(std::isnan(number_at_row(large, "rouge_l", 0)));
  CHECK(std::isnan(number_at_row(large, "lm_next_token_agreement", 0)));
  // Labels by the first coordinate's sign: the clean classifier, trained on rows 30-119, learns them.
  CHECK(number_at_row(large, "sentiment_accuracy_clean", 0) > 0.8);
  CHECK(number_at_row(large, "sentiment_accuracy_train_perturbed", 0) > 0.8);
  // Tokens-only settings are refused naming them.
  CHECK_THROWS_WITH(run.dry_run(config + "mask: punctuation\n"), Contains("mask must be none with data.vectors"));
  CHECK_THROWS_WITH(run.dry_run(config + "attack: {learned: true}\n"), Contains("attack.learned must be false"));
}

TEST_CASE("mia with data.vectors: the file's rows are the candidates, its labels the classes", "[engine][user_vectors]") {
  ExperimentRun run("embpriv_user_vectors_mia_test");
  VectorFile file = user_file(200, 8);
  write_vector_file(run.dir / "mine.npy", file);
  const std::string config = "type: mia\ndata: {vectors: '" + run.dir / "mine.npy" +
                             "', examples: 120, perturb: false}\nattack: {shadows: 2, population: 60}\n";
  const ResultsTable t = run(config);
  CHECK(number_at_row(t, "examples", 0) == 120);
  CHECK(number_at_row(t, "population", 0) == 60);
  CHECK(number_at_row(t, "target_test_accuracy", 0) > 0.8);
  CHECK(number_at_row(t, "auc_loss", 0) >= 0);
  // More candidates than rows, and a file without labels, are refused before any work.
  CHECK_THROWS_WITH(run.dry_run("type: mia\ndata: {vectors: '" + run.dir / "mine.npy" +
                                "', examples: 150}\nattack: {population: 60}\n"),
                    Contains("data.examples (150) plus attack.population (60) exceed the 200 rows"));
  file.row_columns.pop_back();
  write_vector_file(run.dir / "unlabelled.h5", file);
  CHECK_THROWS_WITH(run.dry_run("type: mia\ndata: {vectors: '" + run.dir / "unlabelled.h5" + "'}\n"),
                    Contains("has no per-row dataset 'labels'") && Contains("unlabelled.h5"));
}

TEST_CASE("a bad data.vectors file is one error naming the key and the file, exit 2, no results", "[engine][user_vectors]") {
  TempDir dir("embpriv_user_vectors_bad_test");
  VectorFile file = user_file(20, 4);
  write_vector_file(dir / "good.h5", file);
  file.vectors[3][2] = std::nanf("");
  write_vector_file(dir / "nan.npy", file);
  file = user_file(20, 4);
  file.vectors[7].zero_();
  write_vector_file(dir / "zero.h5", file);
  write_file(dir / "notes.csv", "1,2\n");
  write_file(dir / "broken.h5", "not hdf5 at all");
  for (const std::string type : {"perturbation", "inversion", "mia"}) {
    check_refused(dir, type, dir / "missing.npy", "missing.npy");
    check_refused(dir, type, dir / "nan.npy", "nan.npy");
    check_refused(dir, type, dir / "zero.h5", "row 7");
    check_refused(dir, type, dir / "notes.csv", "notes.csv");
    check_refused(dir, type, dir / "broken.h5", "broken.h5");
    check_refused(dir, type, dir / "good.h5", "has no dataset 'matrix'", ", vectors_dataset: matrix");
  }
}

TEST_CASE("inversion and mia read the file embpriv embed writes of the sentiment sentences", "[engine][user_vectors][embed]") {
  ExperimentRun run("embpriv_user_vectors_embed_test");
  // stories260K as a Hugging Face folder embeds Yelp's 1,000 labelled sentences (mean of the
  // last hidden state, 64-d), with their labels beside the vectors.
  const std::string folder = run.dir / "stories", vectors = run.dir / "yelp.h5";
  REQUIRE(run_binary("-q convert llama2c-to-hf --model tinyllama/stories260K.bin --tokenizer tinyllama/tok512.bin --out '" +
                     folder + "'")
              .code == 0);
  REQUIRE(run_binary("-q embed '" + folder + "' -i '" + shared_data("sentiment/yelp.json") + "' -o '" + vectors + "'").code ==
          0);
  const ResultsTable inversion =
      run("type: inversion\ndata: {vectors: '" + vectors + "', max_sentences: 200}\nmechanism: {name: vmf, epsilon: 100000, beta: 1}\n");
  CHECK(number_at_row(inversion, "tokens", 0) == 200);
  CHECK(number_at_row(inversion, "top1_recovery", 0) > 0.99);
  CHECK(number_at_row(inversion, "sentiment_accuracy_clean", 0) > 0.55);  // trained on the other 800
  const ResultsTable mia = run("type: mia\ndata: {vectors: '" + vectors + "', perturb: false}\nattack: {shadows: 2}\n");
  CHECK(number_at_row(mia, "examples", 0) == 400);
  CHECK(number_at_row(mia, "target_train_accuracy", 0) > 0.5);
}
