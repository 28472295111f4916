#include "experiments/types/inversion/inversion_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>

#include "attacks/invbert.h"
#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "core/device.h"
#include "core/rng.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "data/tokenizers/word_tokenizer.h"
#include "data/corpora/sentiment_corpus.h"
#include "experiments/types/inversion/inversion_keys.h"
#include "experiments/types/inversion/inversion_memory.h"
#include "experiments/types/shared/claim_columns.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/sent_tokens.h"
#include "experiments/types/shared/sentiment_utility.h"
#include "experiments/types/shared/user_vectors.h"
#include "experiments/types/shared/user_vectors_keys.h"
#include "experiments/types/shared/vocabulary_memory.h"
#include "experiments/engine/config_document.h"
#include "metrics/recovery.h"
#include "metrics/similarity.h"
#include "models/language_model_utility.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

// Mean over the sentences of the ROUGE-L F1 of the top guesses ([tokens, >= 1]) against the text.
double mean_rouge_l(const PrivateText& text, const at::Tensor& guesses) {
  const at::Tensor top = guesses.select(1, 0).contiguous();
  const std::int64_t* g = top.data_ptr<std::int64_t>();
  double rouge = 0;
  for (const auto& [begin, end] : text.spans) {
    const std::vector<std::int64_t> truth(text.flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                          text.flat.begin() + static_cast<std::ptrdiff_t>(end));
    rouge += rouge_l_f1(truth, std::vector<std::int64_t>(g + begin, g + end));
  }
  return rouge / static_cast<double>(text.spans.size());
}

struct TokenRecovery {
  double top1 = kNan, topk = kNan, rouge_l = kNan;
};

TokenRecovery recovery_of(const PrivateText& text, const SentTokens& sent, const at::Tensor& guesses, std::int64_t k) {
  return {top_k_recovery(sent.ids, guesses, 1, sent.counted), top_k_recovery(sent.ids, guesses, k, sent.counted),
          mean_rouge_l(text, guesses)};
}

// The KNN attack: the k nearest rows of the public embedding table, special tokens excluded; the
// search runs on the model's device (attacks/nearest_rows.h), its guesses come back to the CPU.
TokenRecovery knn_attack(const PrivateText& text, const SentTokens& sent, const InversionSettings& s) {
  KnnOptions knn;
  knn.metric = s.metric;
  knn.k = s.k;
  knn.excluded = text.special;
  return recovery_of(text, sent, nearest_rows(sent.perturbed, text.search_table, knn).indices.cpu(), s.k);
}

// Mean cos(x, y) and ||y|| / ||x|| over the counted tokens (NaN when there is none).
std::pair<double, double> mean_cosine_and_norm_ratio(const SentTokens& sent) {
  const at::Tensor rows = sent.counted.nonzero().squeeze(1);
  if (rows.numel() == 0) return {kNan, kNan};
  const at::Tensor x = sent.clean.index_select(0, rows), y = sent.perturbed.index_select(0, rows);
  const auto mean = [](const std::vector<double>& v) {
    double sum = 0;
    for (double e : v) sum += e;
    return sum / static_cast<double>(v.size());
  };
  return {mean(row_cosines(x, y)), mean(row_norm_ratios(x, y))};
}

// The learned attack: trained on the public sentences perturbed by the same mechanism, the window
// MLP (attack.learned_model: mlp) or InvBert over whole sentences (transformer).
TokenRecovery learned_attack(const InversionData& data, const InversionSettings& s, const PrivateText& text,
                             const SentTokens& sent, const Mechanism& mechanism, const GridPoint& point) {
  if (!s.learned) return {};
  const PrivateText train = encode_sentences(data, s, data.train_sentences, data.train_sentences.size());
  if (s.learned_model == LearnedModel::transformer) {
    InvBertOptions options;
    options.epochs = s.learned_epochs;
    options.seed = derive_seed(point.seed, point.point_id, "invbert");
    options.device = select_device(s.device);
    const RowPerturber perturb = [&](const at::Tensor& rows, std::uint64_t seed) {
      return mechanism.perturb(rows, RandomStream{seed, 0});
    };
    const InvBert inverter = InvBert::train({at::tensor(train.flat, at::kLong), train.spans}, text.table, perturb,
                                            text.special, options);
    return recovery_of(text, sent, inverter.guess(sent.perturbed, text.spans, s.k), s.k);
  }
  LearnedInversionOptions options;
  options.epochs = s.learned_epochs;
  options.window = s.learned_window;
  options.seed = derive_seed(point.seed, point.point_id, "learned_inversion");
  options.device = select_device(s.device);
  const RowPerturber perturb = [&](const at::Tensor& rows, std::uint64_t seed) {
    return mechanism.perturb(rows, RandomStream{seed, 0});
  };
  const LearnedInverter inverter = LearnedInverter::train({at::tensor(train.flat, at::kLong), train.spans},
                                                          text.table, perturb, text.special, options);
  return recovery_of(text, sent, inverter.guess(sent.perturbed, text.spans, s.k), s.k);
}

// data.vectors: the user's own vectors, each row a private item and the whole file the attacker's
// public table (the texts they could have embedded). The first data.max_sentences rows are sent
// perturbed; a KNN guess is right when it is the row itself or a row of the same bits (the same
// text embedded twice). With per-row labels, the sentiment utility trains on the rows after them.
// No tokens: rouge_l, the language-model columns and the learned attack are NaN.
PointResult run_user_vectors_point(const PointInput& input, const InversionSettings& s) {
  input.phases.start("load");
  const UserVectors& user = load_user_vectors(input.config, input.cache);
  const auto mechanism = point_mechanism(input.config, input.mechanisms);
  const std::int64_t rows = user.vectors.size(0), attacked = std::min(s.max_sentences, rows);
  std::vector<std::int64_t> private_rows(static_cast<std::size_t>(attacked)), rest;
  for (std::int64_t i = 0; i < attacked; ++i) private_rows[static_cast<std::size_t>(i)] = i;
  for (std::int64_t i = attacked; i < rows; ++i) rest.push_back(i);
  PrivateText text = rows_as_sentences(user.vectors, private_rows, user.labels);
  text.search_table = user.vectors.to(select_device(s.device));

  input.phases.start("perturb");
  SentTokens sent = send_tokens(text, *mechanism, input.point);
  input.phases.start("knn_attack");
  KnnOptions knn;
  knn.metric = s.metric;
  knn.k = s.k;
  const at::Tensor same = at::tensor(first_equal_rows(user.vectors), at::kLong);
  const at::Tensor guesses =
      same.index_select(0, nearest_rows(sent.perturbed, text.search_table, knn).indices.cpu().reshape({-1}))
          .reshape({attacked, -1});
  const at::Tensor truth = same.index_select(0, sent.ids);
  const double top1 = top_k_recovery(truth, guesses, 1, sent.counted), topk = top_k_recovery(truth, guesses, s.k, sent.counted);
  input.phases.start("sentiment_utility");
  const auto [mean_cosine, mean_norm_ratio] = mean_cosine_and_norm_ratio(sent);
  SentimentAccuracy sentiment{kNan, kNan, kNan};
  if (!user.labels.empty() && !rest.empty()) {
    const PrivateText train = rows_as_sentences(user.vectors, rest, user.labels);
    const RandomStream stream{derive_seed(input.point.seed, input.point.point_id, "train"), 0};
    sentiment = sentiment_accuracy(train, mechanism->perturb(token_rows(train), stream), text, sent.perturbed);
  }
  input.phases.stop();

  PointResult result;
  result.set("epsilon", mechanism->epsilon());
  result.set("tokens", static_cast<double>(attacked));
  result.set("public_share", 0.0);
  result.set("unknown_share", 0.0);
  result.set("top1_recovery", top1);
  result.set("topk_recovery", topk);
  result.set("rouge_l", kNan);
  result.set("mean_cosine", mean_cosine);
  result.set("mean_norm_ratio", mean_norm_ratio);
  for (const char* column : {"lm_next_token_agreement", "lm_perplexity_clean", "lm_perplexity_perturbed",
                             "learned_top1_recovery", "learned_topk_recovery", "learned_rouge_l"}) {
    result.set(column, kNan);
  }
  result.set("sentiment_accuracy_clean", sentiment.clean);
  result.set("sentiment_accuracy_train_clean", sentiment.train_clean);
  result.set("sentiment_accuracy_train_perturbed", sentiment.train_perturbed);
  result.set("mechanism_name", mechanism->name());
  result.set("claim", mechanism->claim().describe());
  set_claim_columns(result, mechanism->claim());
  std::ostringstream headline;
  headline.precision(3);
  headline << "top1=" << top1 << " mean_cosine=" << mean_cosine << " (" << attacked << " of " << rows << " rows)";
  result.headline = headline.str();
  return result;
}

class InversionExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "inversion"; }
  std::string summary() const override {
    return "KNN inversion of perturbed token embeddings of real sentences (or of your own vectors, data.vectors), "
           "and the utility left";
  }
  ConfigKeys keys() const override {
    return {
        vocabulary_key::kVocabulary, vocabulary_key::kModel, vocabulary_key::kTokenizer, vocabulary_key::kGlove,
        inversion_key::kGloveWords, vocabulary_key::kSentences, vocabulary_key::kMaxSentences,
        user_vectors_key::kVectors.with_help(
            "your own vectors instead of a vocabulary and sentences: an .npy or .h5/.hdf5 file (embpriv embed "
            "writes one), the attacker's table; its first data.max_sentences rows are sent perturbed, and with "
            "per-row labels the sentiment classifier trains on the rest; '': the built-in data"),
        user_vectors_key::kDataset,
        ConfigKey::open_map("mechanism", "{name: vmf, epsilon: 50, beta: 1}",
                            "the mechanism and its keys (embpriv mechanisms)"),
        inversion_key::kMask, inversion_key::kMetric, vocabulary_key::kK, inversion_key::kLearned,
        inversion_key::kLearnedModel, inversion_key::kLearnedEpochs, inversion_key::kLearnedWindow,
        ConfigKey::section("utility",
                           "a sentiment classifier on mean-pooled sentence embeddings, tested on data.sentences"),
        vocabulary_key::kTrainSentences, vocabulary_key::kTexts, vocabulary_key::kTokens, vocabulary_key::kTemperature,
    };
  }
  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const InversionSettings s = read_inversion_settings(config);
    if (uses_user_vectors(config)) {
      // Whole vectors, no tokens: nothing is public, and the learned attacks read token windows.
      const std::string vectors = user_vectors_key::kVectors.path();
      require_key(s.mask == TokenMask::none, inversion_key::kMask.path(), "must be none with " + vectors +
                                                                            " (its rows are whole vectors, not tokens)");
      require_key(!s.learned, inversion_key::kLearned.path(),
                  "must be false with " + vectors + " (the learned attacks read tokens of a vocabulary)");
      check_user_vectors(config, s.k);  // attack.k guesses need as many rows
      point_mechanism(config, registry);
      return;
    }
    using namespace vocabulary_key;
    std::vector<std::pair<std::string, std::string>> files = {{kSentences.path(), s.sentences}};
    for (const std::string& file : s.train_sentences) files.emplace_back(kTrainSentences.path(), file);
    if (s.vocabulary == Vocabulary::glove) {
      files.emplace_back(kGlove.path(), s.glove);
    } else {
      files.emplace_back(kModel.path(), s.model);
      files.emplace_back(kTokenizer.path(), s.tokenizer);
    }
    check_data_files(files);
    // The texts the model writes for the language-model utility must fit its positions: refused
    // here, before any row, rather than by every row (sampled_texts).
    if (s.vocabulary != Vocabulary::glove && s.stories > 0) check_language_model_positions(s.model, s.story_tokens);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    return with_claim_number_columns({"epsilon",     "tokens",         "public_share",  "unknown_share",  "top1_recovery",
            "topk_recovery", "rouge_l",      "mean_cosine",          "mean_norm_ratio",
            "lm_next_token_agreement", "lm_perplexity_clean", "lm_perplexity_perturbed",
            "sentiment_accuracy_clean", "sentiment_accuracy_train_clean",
            "sentiment_accuracy_train_perturbed", "learned_top1_recovery", "learned_topk_recovery",
            "learned_rouge_l"});
  }
  std::vector<std::string> string_columns() const override {
    return with_claim_string_columns({"mechanism_name", "claim"});
  }

  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return inversion_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const InversionSettings s = read_inversion_settings(config);
    // Rough per-part costs on one core, set by hand, not measured part by part: a fixed part
    // (mechanism, KNN over stories260K's 512 rows), one per private sentence (encode, perturb and
    // attack its ~35 tokens) and one per token the language model writes and reads back. They
    // leave out the GloVe-sized KNN (docs/experiments.md: about 12 s a row against 341,479 words
    // on 2 cores), the sentiment classifier and the learned attack (docs/attacks.md: ~40 s a row).
    constexpr double kFixedSeconds = 0.5;
    constexpr double kSecondsPerSentence = 2e-3;
    constexpr double kSecondsPerModelToken = 0.01;
    return kFixedSeconds + kSecondsPerSentence * static_cast<double>(s.max_sentences) +
           kSecondsPerModelToken * static_cast<double>(s.stories * s.story_tokens);
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    std::vector<std::string> groups;
    for (const auto& s : swept) {
      if (s != kMechanismEpsilonPath) groups.push_back(s);
    }
    std::vector<PlotRequest> plots;
    if (std::find(swept.begin(), swept.end(), kMechanismEpsilonPath) != swept.end()) {
      const std::string& x = kMechanismEpsilonPath;
      // One page: attack success and utility against epsilon.
      for (PlotRequest request : std::vector<PlotRequest>{
               {"recovery", x, "top1_recovery", groups, "", true, false,
                "KNN top-1 token recovery (attack success)", "", ""},
               {"learned", x, "learned_top1_recovery", groups, "top1_recovery", true, false,
                "learned inversion top-1 recovery (dashed: KNN)", "", ""},
               {"rouge", x, "rouge_l", groups, "", true, false,
                "ROUGE-L F1 of the recovered sentences", "", ""},
               {"lm_agreement", x, "lm_next_token_agreement", groups, "", true, false,
                "language model: next-token agreement with the clean run", "", ""},
               {"sentiment", x, "sentiment_accuracy_train_perturbed", groups,
                "sentiment_accuracy_clean", true, false,
                "sentiment accuracy, trained and tested perturbed (dashed: clean)", "", ""}}) {
        request.page = "versus_epsilon";
        request.theory_label = request.name == "learned" ? "KNN" : "clean";
        plots.push_back(request);
      }
    }
    // The privacy-utility trade-off: utility on x, attack success on y, one point per epsilon.
    PlotRequest tradeoff{"tradeoff", "lm_next_token_agreement", "top1_recovery", groups, "", false, false,
                         "trade-off: language-model agreement (x) vs KNN top-1 recovery (y), along epsilon", "", ""};
    tradeoff.along = "epsilon";
    plots.push_back(tradeoff);
    PlotRequest geometric{"tradeoff_cosine", "mean_cosine", "top1_recovery", groups, "", false, false,
                          "trade-off: mean cos(x, y) (x) vs KNN top-1 recovery (y), along epsilon", "", ""};
    geometric.along = "epsilon";
    plots.push_back(geometric);
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const InversionSettings s = read_inversion_settings(input.config);
    if (uses_user_vectors(input.config)) return run_user_vectors_point(input, s);
    input.phases.start("load");
    const InversionData& data = load_inversion_data(s, input.cache);
    const auto mechanism = point_mechanism(input.config, input.mechanisms);
    const PrivateText text = encode_sentences(data, s, data.sentences, static_cast<std::size_t>(s.max_sentences));
    EMBPRIV_CHECK(!text.flat.empty(), "none of the sentences has a token in the vocabulary");

    input.phases.start("perturb");
    const SentTokens sent = send_tokens(text, *mechanism, input.point);
    input.phases.start("knn_attack");
    const TokenRecovery knn = knn_attack(text, sent, s);
    input.phases.start("lm_utility");
    const auto [mean_cosine, mean_norm_ratio] = mean_cosine_and_norm_ratio(sent);
    const LanguageModelUtility lm = perturbed_language_model_utility(data, s, *mechanism, input);
    input.phases.start("sentiment_utility");
    const SentimentAccuracy sentiment = perturbed_sentiment_utility(data, s, text, sent, *mechanism, input.point);
    input.phases.start("learned_attack");
    const TokenRecovery learned = learned_attack(data, s, text, sent, *mechanism, input.point);
    input.phases.stop();

    PointResult result;
    const double sent_tokens = static_cast<double>(text.flat.size());
    result.set("epsilon", mechanism->epsilon());
    result.set("tokens", static_cast<double>(sent.counted.sum().item<std::int64_t>()));
    result.set("public_share", text.public_tokens.to(at::kDouble).mean().item<double>());
    result.set("unknown_share", static_cast<double>(text.unknown) / (sent_tokens + static_cast<double>(text.unknown)));
    result.set("top1_recovery", knn.top1);
    result.set("topk_recovery", knn.topk);
    result.set("rouge_l", knn.rouge_l);
    result.set("mean_cosine", mean_cosine);
    result.set("mean_norm_ratio", mean_norm_ratio);
    result.set("lm_next_token_agreement", lm.next_token_agreement);
    result.set("lm_perplexity_clean", lm.perplexity_clean);
    result.set("lm_perplexity_perturbed", lm.perplexity_perturbed);
    result.set("sentiment_accuracy_clean", sentiment.clean);
    result.set("sentiment_accuracy_train_clean", sentiment.train_clean);
    result.set("sentiment_accuracy_train_perturbed", sentiment.train_perturbed);
    result.set("learned_top1_recovery", learned.top1);
    result.set("learned_topk_recovery", learned.topk);
    result.set("learned_rouge_l", learned.rouge_l);
    result.set("mechanism_name", mechanism->name());
    result.set("claim", mechanism->claim().describe());
    set_claim_columns(result, mechanism->claim());
    std::ostringstream headline;
    headline.precision(3);
    headline << "top1=" << knn.top1 << " rouge_l=" << knn.rouge_l;
    if (data.model) headline << " lm_agreement=" << lm.next_token_agreement;
    if (s.learned) headline << " learned_top1=" << learned.top1;
    result.headline = headline.str();
    return result;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_inversion_experiment() {
  return std::make_unique<InversionExperiment>();
}

}  // namespace embpriv
