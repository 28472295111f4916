#include "experiments/inversion_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>

#include "attacks/nearest_rows.h"
#include "data/data_paths.h"
#include "data/llama2c_tokenizer.h"
#include "data/sentiment_corpus.h"
#include "experiments/config_document.h"
#include "metrics/recovery.h"
#include "metrics/similarity.h"
#include "models/language_model_utility.h"

namespace embpriv {
namespace {

struct Settings {
  std::string model, tokenizer, sentences, mask, metric;
  std::int64_t max_sentences, k, stories, story_tokens;
  double temperature;
};

template <class T>
T read(const YAML::Node& config, const std::string& path, const char* expected) {
  try {
    return find_path(config, path).as<T>();
  } catch (const YAML::Exception&) {
    throw ConfigError(path, path + " must be " + expected + ", got " + flow_yaml(find_path(config, path)));
  }
}

Settings read_settings(const YAML::Node& c) {
  Settings s{read<std::string>(c, "data.model", "a file name"),
             read<std::string>(c, "data.tokenizer", "a file name"),
             read<std::string>(c, "data.sentences", "a file name"),
             read<std::string>(c, "mask", "none or punctuation"),
             read<std::string>(c, "attack.metric", "cosine or l2"),
             read<std::int64_t>(c, "data.max_sentences", "an integer"),
             read<std::int64_t>(c, "attack.k", "an integer"),
             read<std::int64_t>(c, "language_model.texts", "an integer"),
             read<std::int64_t>(c, "language_model.tokens", "an integer"),
             read<double>(c, "language_model.temperature", "a number")};
  auto require = [](bool ok, const char* path, const std::string& problem) {
    if (!ok) throw ConfigError(path, std::string(path) + " " + problem);
  };
  require(s.max_sentences >= 1, "data.max_sentences", "must be >= 1, got " + std::to_string(s.max_sentences));
  require(s.k >= 1 && s.k <= 100, "attack.k", "must be in [1, 100], got " + std::to_string(s.k));
  require(s.metric == "cosine" || s.metric == "l2", "attack.metric", "must be cosine or l2, got '" + s.metric + "'");
  require(s.mask == "none" || s.mask == "punctuation", "mask",
          "must be none or punctuation, got '" + s.mask + "'");
  require(s.stories >= 0, "language_model.texts", "must be >= 0, got " + std::to_string(s.stories));
  require(s.story_tokens >= 2 && s.story_tokens <= 255, "language_model.tokens",
          "must be in [2, 255], got " + std::to_string(s.story_tokens));
  require(s.temperature > 0, "language_model.temperature", "must be > 0");
  return s;
}

// Models and tokenizers are loaded once per run, not once per grid point.
struct Loaded {
  std::shared_ptr<const Llama2cModel> model;
  std::shared_ptr<const Llama2cTokenizer> tokenizer;
  std::vector<LabelledSentence> sentences;
};

const Loaded& load(const Settings& s) {
  static std::mutex mutex;
  static std::map<std::string, Loaded> cache;
  const std::string key = s.model + "\n" + s.tokenizer + "\n" + s.sentences;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = cache.find(key);
  if (found != cache.end()) return found->second;
  Loaded loaded;
  loaded.model = std::make_shared<const Llama2cModel>(load_llama2c_checkpoint(resolve_data_path(s.model)));
  loaded.tokenizer = std::make_shared<const Llama2cTokenizer>(
      Llama2cTokenizer::load(resolve_data_path(s.tokenizer), loaded.model->config().vocab_size));
  loaded.sentences = load_sentiment_sentences(resolve_data_path(s.sentences));
  return cache.emplace(key, std::move(loaded)).first->second;
}

// Def. 6.2's public tokens under `mask: punctuation`: special tokens and pieces with no letter
// or digit (spaces, punctuation). 1 = private (perturbed), 0 = public (sent unchanged).
at::Tensor private_mask(const Llama2cTokenizer& tokenizer, const at::Tensor& ids, const std::string& mask) {
  at::Tensor keep = at::ones_like(ids);
  if (mask == "none") return keep;
  const std::int64_t* id = ids.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < ids.numel(); ++i) {
    const std::string& piece = tokenizer.piece(id[i]);
    const bool words = std::any_of(piece.begin(), piece.end(),
                                   [](unsigned char c) { return std::isalnum(c) || c >= 0x80; });
    if (tokenizer.is_special(id[i]) || !words) keep.data_ptr<std::int64_t>()[i] = 0;
  }
  return keep;
}

std::unique_ptr<Mechanism> build_mechanism(const YAML::Node& node, const MechanismRegistry& registry) {
  try {
    return registry.make(node);
  } catch (const Error& e) {
    throw ConfigError("mechanism", std::string("mechanism: ") + e.what());
  }
}

class InversionExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "inversion"; }
  std::string summary() const override {
    return "KNN inversion of perturbed token embeddings of real sentences, and the utility left";
  }
  std::string default_config() const override {
    return R"(data:
  model: tinyllama/stories260K.bin   # llama2.c checkpoint (relative: the shared data folder)
  tokenizer: tinyllama/tok512.bin
  sentences: sentiment/yelp.json     # UCI sentiment sentences: the private text
  max_sentences: 300
mechanism: {name: vmf, epsilon: 50, beta: 1}
mask: none              # none | punctuation (public tokens sent unchanged, vMF paper Def. 6.2)
attack:
  metric: cosine        # cosine | l2
  k: 5                  # guesses kept per token (top-1 and top-k recovery)
language_model:
  texts: 8              # texts the clean model writes (sampled), read back from perturbed embeddings
  tokens: 48
  temperature: 1.0
)";
  }
  std::set<std::string> open_paths() const override { return {"mechanism"}; }

  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const Settings s = read_settings(config);
    for (const auto& [key, path] : {std::pair{"data.model", s.model}, std::pair{"data.tokenizer", s.tokenizer},
                                    std::pair{"data.sentences", s.sentences}}) {
      try {
        resolve_data_path(path);
      } catch (const Error& e) {
        throw ConfigError(key, std::string(key) + ": " + e.what());
      }
    }
    build_mechanism(config["mechanism"], registry);
  }

  std::vector<std::string> number_columns() const override {
    return {"epsilon",     "tokens",         "public_share",         "top1_recovery",
            "topk_recovery", "rouge_l",      "mean_cosine",          "mean_norm_ratio",
            "lm_next_token_agreement", "lm_perplexity_clean", "lm_perplexity_perturbed"};
  }
  std::vector<std::string> string_columns() const override { return {"mechanism_name", "claim"}; }

  double estimate_seconds(const YAML::Node& config) const override {
    const Settings s = read_settings(config);
    return 0.5 + 2e-3 * static_cast<double>(s.max_sentences) +
           0.01 * static_cast<double>(s.stories * s.story_tokens);
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != "mechanism.epsilon") groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    if (std::find(swept.begin(), swept.end(), "mechanism.epsilon") != swept.end()) {
      plots.push_back({"recovery", "mechanism.epsilon", "top1_recovery", groups, "", true, false,
                       "KNN top-1 token recovery vs epsilon (attack success)"});
      plots.push_back({"rouge", "mechanism.epsilon", "rouge_l", groups, "", true, false,
                       "ROUGE-L F1 of the recovered sentences vs epsilon"});
      plots.push_back({"lm_agreement", "mechanism.epsilon", "lm_next_token_agreement", groups, "",
                       true, false, "language model: next-token agreement with the clean run vs epsilon"});
    }
    PlotRequest tradeoff{"tradeoff", "lm_next_token_agreement", "top1_recovery", groups, "", false, false,
                         "privacy-utility trade-off: utility (x) vs attack success (y), along epsilon"};
    tradeoff.along = "epsilon";
    plots.push_back(tradeoff);
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const Settings s = read_settings(input.config);
    const Loaded& data = load(s);
    const Llama2cModel& model = *data.model;
    const Llama2cTokenizer& tokenizer = *data.tokenizer;
    const auto mechanism = build_mechanism(input.config["mechanism"], input.mechanisms);

    // The private text: every token of the first max_sentences sentences (with <s>).
    std::vector<std::int64_t> flat;
    std::vector<std::pair<std::size_t, std::size_t>> spans;  // [begin, end) of each sentence's tokens
    const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(s.max_sentences), data.sentences.size());
    for (std::size_t i = 0; i < n; ++i) {
      const std::vector<std::int64_t> ids = tokenizer.encode(data.sentences[i].text);
      spans.emplace_back(flat.size() + 1, flat.size() + ids.size());
      flat.insert(flat.end(), ids.begin(), ids.end());
    }
    const at::Tensor ids = at::tensor(flat, at::kLong);
    const at::Tensor clean = model.embed(ids);
    const at::Tensor keep = private_mask(tokenizer, ids, s.mask);
    const RandomStream stream{derive_seed(input.point.seed, input.point.point_id, "mechanism"), 0};
    const at::Tensor perturbed = mechanism->perturb(clean, stream, {at::Tensor(), keep});

    // The attack: the k nearest rows of the public embedding table, special tokens excluded.
    at::Tensor special = at::zeros({model.config().vocab_size}, at::kBool);
    for (std::int64_t id : {Llama2cTokenizer::kUnknown, Llama2cTokenizer::kBos, Llama2cTokenizer::kEos}) special[id] = true;
    KnnOptions knn;
    knn.metric = parse_knn_metric(s.metric);
    knn.k = s.k;
    knn.excluded = special;
    const Neighbours guesses = nearest_rows(perturbed, model.embedding_table(), knn);
    // Counted: the tokens that were perturbed (public ones are sent in the clear).
    at::Tensor counted = keep.to(at::kBool);
    for (std::int64_t id : {Llama2cTokenizer::kUnknown, Llama2cTokenizer::kBos, Llama2cTokenizer::kEos}) {
      counted &= ids != id;
    }
    const at::Tensor best = guesses.indices.select(1, 0).contiguous();
    double rouge = 0;
    for (const auto& [begin, end] : spans) {
      const std::vector<std::int64_t> truth(flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                            flat.begin() + static_cast<std::ptrdiff_t>(end));
      const std::int64_t* b = best.data_ptr<std::int64_t>();
      rouge += rouge_l_f1(truth, std::vector<std::int64_t>(b + begin, b + end));
    }
    const at::Tensor private_rows = counted.nonzero().squeeze(1);
    const at::Tensor x = clean.index_select(0, private_rows), y = perturbed.index_select(0, private_rows);
    const std::vector<double> cosines = row_cosines(x, y), ratios = row_norm_ratios(x, y);
    auto mean = [](const std::vector<double>& v) {
      double sum = 0;
      for (double e : v) sum += e;
      return v.empty() ? std::numeric_limits<double>::quiet_NaN() : sum / static_cast<double>(v.size());
    };

    // Utility for the language model: texts the clean model writes, read from perturbed inputs.
    LanguageModelUtility lm{std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN(),
                            std::numeric_limits<double>::quiet_NaN()};
    if (s.stories > 0) {
      const at::Tensor texts = sample_texts(model, s.stories, s.story_tokens, s.temperature,
                                            derive_seed(input.point.seed, fnv1a64(flow_yaml(input.config["language_model"])), "texts"));
      const at::Tensor text_ids = texts.reshape({-1});
      const at::Tensor text_keep = private_mask(tokenizer, text_ids, s.mask);
      const RandomStream text_stream{derive_seed(input.point.seed, input.point.point_id, "language_model"), 0};
      const at::Tensor noisy = mechanism->perturb(model.embed(text_ids), text_stream, {at::Tensor(), text_keep});
      lm = compare_language_model(model, texts, noisy.reshape({texts.size(0), texts.size(1), -1}));
    }

    PointResult result;
    result.numbers = {{"epsilon", mechanism->epsilon()},
                      {"tokens", static_cast<double>(counted.sum().item<std::int64_t>())},
                      {"public_share", 1.0 - keep.to(at::kDouble).mean().item<double>()},
                      {"top1_recovery", top_k_recovery(ids, guesses.indices, 1, counted)},
                      {"topk_recovery", top_k_recovery(ids, guesses.indices, s.k, counted)},
                      {"rouge_l", rouge / static_cast<double>(spans.size())},
                      {"mean_cosine", mean(cosines)},
                      {"mean_norm_ratio", mean(ratios)},
                      {"lm_next_token_agreement", lm.next_token_agreement},
                      {"lm_perplexity_clean", lm.perplexity_clean},
                      {"lm_perplexity_perturbed", lm.perplexity_perturbed}};
    result.strings = {{"mechanism_name", mechanism->name()}, {"claim", mechanism->claim().describe()}};
    std::ostringstream headline;
    headline.precision(3);
    headline << "top1=" << result.numbers[3].second << " rouge_l=" << result.numbers[5].second
             << " lm_agreement=" << lm.next_token_agreement;
    result.headline = headline.str();
    return result;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_inversion_experiment() {
  return std::make_unique<InversionExperiment>();
}

}  // namespace embpriv
