#include "experiments/types/obfuslm/obfuslm_experiment.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <sstream>

#include "attacks/obfuslm_measures.h"
#include "core/rng.h"
#include "data/tables/data_paths.h"
#include "experiments/types/obfuslm/obfuslm_classification.h"
#include "experiments/types/obfuslm/obfuslm_classification_keys.h"
#include "experiments/types/obfuslm/obfuslm_keys.h"
#include "experiments/types/obfuslm/obfuslm_memory.h"
#include "experiments/types/obfuslm/obfuslm_server_attacks.h"
#include "experiments/types/shared/claim_columns.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/sent_tokens.h"
#include "experiments/types/shared/sentiment_utility.h"
#include "experiments/types/shared/vocabulary_memory.h"
#include "mechanisms/obfuslm/perturbed_vocabulary.h"
#include "metrics/similarity.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv {
namespace {

struct ObfuslmSettings {
  InversionSettings data;  // data.*, language_model.*, utility.* (the keys type `inversion` has too)
  ObfuscationOptions options;
  ServerAttackSettings attack;  // attack.* (obfuslm_server_attacks.h)
  std::int64_t generate;
  std::string prompt;
  obfuslm_key::Task task;  // vocabulary | classification (experiments/types/obfuslm/obfuslm_classification.h)
  obfuslm_key::Method method;  // obfuslm | mechanism (the baseline: obfuslm_keys.h)
  obfuslm_key::Draw draw;      // occurrence | vocabulary (method mechanism)
};

ObfuslmSettings read_settings(const YAML::Node& c) {
  ObfuslmSettings s;
  using namespace obfuslm_key;
  // Every row is obfuscated; KNN by cosine.
  s.data = read_vocabulary_settings(c, kGloveWords, TokenMask::none, KnnMetric::cosine);
  s.options.k = kK(c);
  s.options.epsilon = kEpsilon(c);
  s.options.threshold = kThreshold(c);
  s.attack = read_server_attack_settings(c);
  s.generate = kGenerate(c);
  s.prompt = kPrompt(c);
  s.options.normalization = kNormalization(c);
  s.options.order = kOrder(c);
  s.task = obfuslm_key::kTask(c);
  s.method = kMethod(c);
  s.draw = kDraw(c);
  return s;
}

// The table's identity in cluster keys: the GloVe file and word count, or the model file.
std::string table_key(const InversionSettings& d) {
  return d.vocabulary == Vocabulary::glove ? d.glove + "#" + std::to_string(d.glove_words) : d.model;
}

ConfigKeys obfuslm_keys() {
  ConfigKeys keys = {
      obfuslm_key::kTask,
      vocabulary_key::kVocabulary.with_help("stories260k (the llama2.c model's 512 tokens) or glove"),
      vocabulary_key::kModel, vocabulary_key::kTokenizer, vocabulary_key::kGlove, obfuslm_key::kGloveWords,
      vocabulary_key::kSentences.with_help("the client's private text (stream attack)"), vocabulary_key::kMaxSentences,
      obfuslm_key::kK, obfuslm_key::kEpsilon, obfuslm_key::kThreshold, obfuslm_key::kNormalization, obfuslm_key::kOrder,
      obfuslm_key::kMethod, obfuslm_key::kDraw,
      ConfigKey::open_map("mechanism", "{name: vmf, epsilon: 50, beta: 1}",
                          "obfuscation.method mechanism: the mechanism and its keys (embpriv mechanisms)"),
      vocabulary_key::kK.with_help("guesses per row (top-1 and top-k recovery)"), obfuslm_key::kVocabularySample,
      obfuslm_key::kAnonymityClusters, obfuslm_key::kAnonymityTrials, obfuslm_key::kConfidence,
      vocabulary_key::kTrainSentences.with_help(
          "glove: the sentiment classifier's training sentences ([] to skip); task classification: the encoder "
          "classifier's, also InvBert's public text"),
      ConfigKey::section("language_model", "stories260k: texts the clean model writes, read by the obfuscated model"),
      vocabulary_key::kTexts.with_help("texts sampled"), vocabulary_key::kTokens, vocabulary_key::kTemperature,
      obfuslm_key::kGenerate, obfuslm_key::kPrompt,
  };
  for (ConfigKey& key : obfuslm_classification_keys()) keys.push_back(std::move(key));
  return keys;
}

// Every declared column a row's path left unset, as NaN (or ""): the columns of the other task.
PointResult with_unset_columns(PointResult result, const std::vector<std::string>& numbers,
                               const std::vector<std::string>& strings) {
  for (const std::string& column : numbers) {
    if (!result.numbers.count(column)) result.set(column, std::nan(""));
  }
  for (const std::string& column : strings) {
    if (!result.strings.count(column)) result.set(column, std::string());
  }
  return result;
}

// EmbedCluster depends on the table, k, beta and the visiting order, not on eps: a sweep over
// eps clusters once per (table, k, beta, order) in a run (its time shows as the first such row's
// /timing/cluster).
const Clusters& cached_clusters(RunCache& cache, const std::string& table_key, const at::Tensor& table,
                                const EmbedClusterOptions& o) {
  std::ostringstream key;
  key.precision(17);
  key << table_key << "|" << o.k << "|" << o.threshold << "|" << static_cast<int>(o.order) << "|"
      << (o.order == ClusterOrder::random ? o.seed : 0);
  return cache.get_or_make<Clusters>("embed_cluster|" + key.str(), [&] { return embed_cluster(table, o); });
}

// The server's attacks on what it receives.
// sent_rows: the tokens as sent when each occurrence has noise of its own (undefined otherwise).
ServerAttacks server_attacks(const InversionData& data, const ObfuslmSettings& s, const PrivateText& text,
                             const ObfuscatedVocabulary& v, const at::Tensor& sent_rows, const GridPoint& point) {
  const at::Tensor& table = text.table;
  // Rows attacked: all but the special tokens and, for stories260K, the byte-fallback tokens
  // (untrained near-duplicate rows: not even the clean rows can be told apart).
  at::Tensor attacked = ~text.special;
  for (std::size_t id = 0; id < data.byte_tokens.size(); ++id) {
    if (data.byte_tokens[id]) attacked[static_cast<std::int64_t>(id)] = false;
  }
  return run_server_attacks(v, table, text.special, attacked, s.data.k, s.attack, s.options,
                            {text.flat, text.spans, sent_rows}, point);
}

// The language model's utility through the client/server flow (stories260k): texts the clean
// model writes, read by the obfuscated one, and a generation from the prompt.
struct ModelUtility {
  LanguageModelUtility lm{std::nan(""), std::nan(""), std::nan("")};
  std::string generated;
};

ModelUtility model_utility(const InversionData& data, const ObfuslmSettings& s, const ObfuscatedVocabulary& v,
                           const PointInput& input) {
  ModelUtility u;
  if (!data.model) return u;
  const std::unique_ptr<LanguageModel> server = data.model->with_token_rows(v.server_embedding, v.server_embedding);
  if (s.data.stories > 0) {
    const at::Tensor& texts = sampled_texts(data, s.data, input.config, input.point.seed, input.cache);
    u.lm = obfuscated_model_utility(*data.model, *server, v, texts);
  }
  if (s.generate > 0) {
    u.generated =
        data.tokenizer->decode(generate_through_flow(*server, v, data.tokenizer->encode(s.prompt, true), s.generate));
  }
  return u;
}

// The sentiment classifier (glove with train sentences): trained and tested on clean rows, and
// on obfuscated ones (the rows of the obfuscated embedding).
SentimentAccuracy sentiment_utility(const InversionData& data, const ObfuslmSettings& s, const PrivateText& text,
                                    const ObfuscatedVocabulary& v) {
  const double nan = std::nan("");
  if (!data.glove || data.train_sentences.empty()) return {nan, nan, nan};
  const PrivateText train = encode_sentences(data, s.data, data.train_sentences, data.train_sentences.size());
  const at::Tensor train_ids = at::tensor(train.flat, at::kLong), test_ids = at::tensor(text.flat, at::kLong);
  return sentiment_accuracy(train, v.obfuscated_embedding.index_select(0, train_ids), text,
                            v.obfuscated_embedding.index_select(0, test_ids));
}

// What one point measured, as its result row.
struct Measures {
  ServerAttacks attacks;
  ModelUtility model;
  SentimentAccuracy sentiment{};
};

PointResult point_result(const ObfuslmSettings& s, const InversionData& data, const at::Tensor& table,
                         const Clusters& clusters, const ObfuscatedVocabulary& v, const Measures& m) {
  const std::vector<double> cosines = row_cosines(table, v.obfuscated_embedding);
  const std::vector<double> ratios = row_norm_ratios(table, v.obfuscated_embedding);
  const auto mean = [](const std::vector<double>& values) {
    double sum = 0;
    for (double value : values) sum += value;
    return values.empty() ? std::nan("") : sum / static_cast<double>(values.size());
  };
  const Recovery& rows = m.attacks.rows;
  const Recovery& stream = m.attacks.stream;
  const AnonymityGame& game = m.attacks.game;
  const LanguageModelUtility& lm = m.model.lm;

  PointResult result;
  const bool baseline = s.method == obfuslm_key::Method::mechanism;
  set_server_attack_columns(result, s.options, table.size(0), clusters, m.attacks);
  result.set("mean_cosine", mean(cosines));
  result.set("mean_norm_ratio", mean(ratios));
  result.set("max_abs_weight", baseline ? std::nan("") : v.synthesis.max_abs_weight);
  result.set("negative_weight_sums", baseline ? std::nan("") : static_cast<double>(v.synthesis.negative_sums));
  result.set("lm_next_token_agreement", lm.next_token_agreement);
  result.set("lm_perplexity_clean", lm.perplexity_clean);
  result.set("lm_perplexity_obfuscated", lm.perplexity_perturbed);
  result.set("sentiment_accuracy_clean", m.sentiment.clean);
  result.set("sentiment_accuracy_obfuscated", m.sentiment.train_perturbed);
  result.set("vocabulary", vocabulary_key::kVocabulary.name_of(s.data.vocabulary));
  result.set("normalization", baseline ? "" : s.options.normalization == WeightNormalization::sum ? "sum" : "exp");
  result.set("generated_text", m.model.generated);
  std::ostringstream headline;
  headline.precision(3);
  headline << "top1=" << rows.top1 << " stream_rouge_l=" << stream.rouge_l << " anonymity_eps_lb=" << game.lower_bound_max;
  if (data.model) headline << " lm_agreement=" << lm.next_token_agreement;
  if (data.glove) headline << " sentiment=" << m.sentiment.train_perturbed;
  result.headline = headline.str();
  return result;
}

class ObfuslmExperiment final : public ExperimentType {
 public:
  std::string name() const override { return "obfuslm"; }
  std::string summary() const override {
    return "ObfusLM vocabulary obfuscation: KNN inversion, the anonymity game, and the utility left";
  }
  ConfigKeys keys() const override { return obfuslm_keys(); }

  void check_point(const YAML::Node& config, const MechanismRegistry& registry) const override {
    const ObfuslmSettings s = read_settings(config);
    if (s.method == obfuslm_key::Method::mechanism) {
      require_key(s.task == obfuslm_key::Task::vocabulary, obfuslm_key::kMethod.path(),
                  "must be obfuslm with task classification (its encoder reads ObfusLM's rows only)");
      point_mechanism(config, registry);
    }
    if (s.task == obfuslm_key::Task::classification) return check_classification_point(config);
    std::vector<std::pair<std::string, std::string>> files = {{vocabulary_key::kSentences.path(), s.data.sentences}};
    if (s.data.vocabulary == Vocabulary::glove) {
      files.emplace_back(vocabulary_key::kGlove.path(), s.data.glove);
      for (const std::string& file : s.data.train_sentences) files.emplace_back(vocabulary_key::kTrainSentences.path(), file);
    } else {
      files.emplace_back(vocabulary_key::kModel.path(), s.data.model);
      files.emplace_back(vocabulary_key::kTokenizer.path(), s.data.tokenizer);
    }
    check_data_files(files);
    // The texts the clean model writes must fit its positions: refused here, before any row.
    if (s.data.vocabulary != Vocabulary::glove && s.data.stories > 0)
      check_language_model_positions(s.data.model, s.data.story_tokens);
  }

  std::vector<std::string> number_columns() const override {
    std::vector<std::string> columns = {"k", "epsilon", "threshold", "vocabulary_size", "clusters", "mean_cluster_size", "singleton_share",
            "vocab_top1_recovery", "vocab_topk_recovery", "stream_top1_recovery", "stream_topk_recovery",
            "stream_rouge_l", "anonymity_pairs", "anonymity_accuracy", "anonymity_eps_lower_median",
            "anonymity_eps_lower_max", "anonymity_share_above_claim", "mean_cosine", "mean_norm_ratio",
            "max_abs_weight", "negative_weight_sums", "lm_next_token_agreement", "lm_perplexity_clean",
            "lm_perplexity_obfuscated", "sentiment_accuracy_clean", "sentiment_accuracy_obfuscated"};
    for (const std::string& column : classification_number_columns()) columns.push_back(column);
    return with_claim_number_columns(columns);
  }
  // method: obfuslm, or the baseline mechanism's name; draw: "" for obfuslm rows.
  std::vector<std::string> string_columns() const override {
    return with_claim_string_columns({"vocabulary", "normalization", "generated_text", "method", "draw"});
  }

  MemoryEstimate estimate_memory(const YAML::Node& config) const override { return obfuslm_memory(config); }
  double estimate_seconds(const YAML::Node& config) const override {
    const ObfuslmSettings s = read_settings(config);
    if (s.task == obfuslm_key::Task::classification) return classification_seconds(config);
    // stories260k: a fixed part plus a rate per token the clean model writes and the obfuscated
    // one reads, from two runs at 8 x 48 tokens a row: configs/paper/obfuslm_stories260k.yaml
    // ran 112 rows in 98 s (0.88 s a row, docs/obfuslm.md) and configs/obfuslm_stories260k.yaml
    // 9 rows in 3.6 s of /timing (0.40 s a row, with fewer sentences), both at --threads 1.
    constexpr double kStoriesFixedSeconds = 0.1;
    constexpr double kSecondsPerModelToken = 2e-3;
    if (s.data.vocabulary == Vocabulary::stories260k) {
      return kStoriesFixedSeconds + kSecondsPerModelToken * static_cast<double>(s.data.stories * s.data.story_tokens);
    }
    // glove: the two GEMMs, at the float GEMM rate of nearest_rows on this kind of 2-vCPU
    // machine (26.9-30.9 GFLOP/s, bench/README.md, `knn`): EmbedCluster's V x V x d similarities
    // (run once per k and threshold, then cached across eps: counted as a quarter of it per row,
    // as if each (k, threshold) had four eps values) and the KNN of the attacked sample against
    // the V rows. The measured EmbedCluster (72-110 s per k at V = 50,000, docs/obfuslm.md) is
    // 4-7x that GEMM alone, so glove rows are underestimated.
    constexpr double kGloveFixedSeconds = 2.0;
    constexpr double kGloveWords = 341479.0;  // rows of the wink GloVe table (data.glove_words: 0)
    constexpr double kGloveDim = 100.0;
    constexpr double kGemmFlopsPerSecond = 3e10;
    constexpr double kClusteringsPerRow = 1.0 / 4;
    const double V = s.data.glove_words > 0 ? static_cast<double>(s.data.glove_words) : kGloveWords;
    // A baseline (obfuscation.method: mechanism) perturbs the rows instead of clustering them.
    const double clusterings = s.method == obfuslm_key::Method::obfuslm ? kClusteringsPerRow : 0.0;
    return kGloveFixedSeconds + V * V * kGloveDim * 2 / kGemmFlopsPerSecond * clusterings +
           static_cast<double>(s.attack.vocabulary_sample) * V * (2 * kGloveDim) / kGemmFlopsPerSecond;
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
    const std::string& eps = obfuslm_key::kEpsilon.path();
    const auto groups_without = [&](const std::string& x) {
      std::vector<std::string> groups;
      for (const auto& s : swept) {
        if (s != x) groups.push_back(s);
      }
      return groups;
    };
    const auto is_swept = [&](const std::string& x) { return std::find(swept.begin(), swept.end(), x) != swept.end(); };
    std::vector<PlotRequest> plots;
    for (const auto& [x, log_x, page] : std::vector<std::tuple<std::string, bool, std::string>>{
             {eps, true, "versus_epsilon"}, {obfuslm_key::kK.path(), false, "versus_k"}}) {
      if (!is_swept(x)) continue;
      const std::vector<std::string> groups = groups_without(x);
      for (PlotRequest request : std::vector<PlotRequest>{
               {"top1_" + page, x, "vocab_top1_recovery", groups, "", log_x, false,
                "KNN top-1 recovery of the obfuscated rows (attack success)", "", ""},
               {"stream_" + page, x, "stream_rouge_l", groups, "", log_x, false,
                "ROUGE-L of the client's sentences recovered from its shuffled ids", "", ""},
               {"lm_" + page, x, "lm_next_token_agreement", groups, "", log_x, false,
                "next-token agreement of the obfuscated model with the clean one", "", ""},
               {"sentiment_" + page, x, "sentiment_accuracy_obfuscated", groups, "sentiment_accuracy_clean", log_x,
                false, "sentiment accuracy on obfuscated rows (dashed: clean)", "", ""}}) {
        request.page = page;
        request.theory_label = "clean";
        plots.push_back(request);
      }
    }
    if (is_swept(eps)) {
      // Task classification (all NaN, so skipped, under task vocabulary): the accuracy lost to
      // obfuscation per k, and InvBert's recovery on the same rows.
      for (PlotRequest request : std::vector<PlotRequest>{
               {"drop", eps, "accuracy_drop", groups_without(eps), "", true, false,
                "classifier accuracy lost to obfuscation, inference only (clean minus obfuscated)", "", ""},
               {"drop_finetuned", eps, "accuracy_drop_finetuned", groups_without(eps),
                "", true, false, "accuracy lost after fine-tuning on obfuscated ids (the paper's setting)", "", ""},
               {"invbert", eps, "invbert_stream_top1", groups_without(eps),
                "stream_top1_recovery", true, false, "InvBert top-1 token recovery (dashed: KNN)", "", ""}}) {
        request.page = "classification";
        request.theory_label = "KNN";
        plots.push_back(request);
      }
      PlotRequest anonymity{"anonymity", eps, "anonymity_eps_lower_max",
                            groups_without(eps), "epsilon", true, true,
                            "anonymity game: largest eps lower bound over pairs (dashed: claimed eps)", "", ""};
      anonymity.theory_label = "claimed eps";
      plots.push_back(anonymity);
    }
    PlotRequest tradeoff{"tradeoff", "lm_next_token_agreement", "vocab_top1_recovery",
                         groups_without(eps), "", false, false,
                         "trade-off: language-model agreement (x) vs KNN top-1 recovery (y), along eps", "", ""};
    tradeoff.along = "epsilon";
    plots.push_back(tradeoff);
    if (is_swept(obfuslm_key::kMethod.path())) {
      // ObfusLM against its baselines at matched utility: sentiment accuracy (x) against the
      // stream's KNN recovery (y), along eps, one line per row's method, draw and cluster size
      // (result columns: the swept keys a row does not use, such as an ObfusLM row's mechanism,
      // would only repeat the config's fallback values).
      PlotRequest matched{"matched_utility", "sentiment_accuracy_obfuscated", "stream_top1_recovery",
                          {"method", "draw", "k"}, "",
                          false, false,
                          "ObfusLM vs baselines: sentiment accuracy (x) vs KNN top-1 of the sent tokens (y), along eps",
                          "", ""};
      matched.along = "epsilon";
      plots.push_back(matched);
    }
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    ObfuslmSettings s = read_settings(input.config);
    if (s.task == obfuslm_key::Task::classification) {
      PointResult result = run_classification_point(input, s.options);
      result.set("method", "obfuslm");
      return with_unset_columns(std::move(result), number_columns(), string_columns());
    }
    input.phases.start("load");
    const InversionData& data = load_inversion_data(s.data, input.cache);
    const PrivateText text = encode_sentences(data, s.data, data.sentences, static_cast<std::size_t>(s.data.max_sentences));
    const std::uint64_t seed = derive_seed(input.point.seed, input.point.point_id, "obfuslm");

    // The client's side: cluster (cached across eps), synthesise, shuffle; or, for a baseline,
    // the mechanism's noise on every row, shuffled alike (perturbed_vocabulary.h).
    Measures m;
    std::unique_ptr<Mechanism> mechanism;
    ObfuscatedVocabulary v;
    const Clusters* clusters = &v.clusters;
    if (s.method == obfuslm_key::Method::obfuslm) {
      input.phases.start("cluster");
      clusters = &cached_clusters(input.cache, table_key(s.data), text.table, cluster_options(s.options, seed));
      input.phases.start("obfuscate");
      v = obfuscate_vocabulary(text.table, at::Tensor(), *clusters, s.options, seed);
    } else {
      mechanism = point_mechanism(input.config, input.mechanisms);
      input.phases.start("obfuscate");
      v = perturbed_vocabulary(text.table, *mechanism, seed);
      // The row's k, epsilon and threshold columns: singletons, the mechanism's budget, none.
      s.options.k = 1;
      s.options.epsilon = mechanism->epsilon();
      s.options.threshold = std::nan("");
    }

    // Fresh noise per token sent: the stream the server reads is the perturbed rows themselves
    // (the rows attack stays on the table: each row drawn once is one occurrence's noise).
    const bool per_occurrence = mechanism && s.draw == obfuslm_key::Draw::occurrence;
    const SentTokens sent = per_occurrence ? send_tokens(text, *mechanism, input.point) : SentTokens{};

    // The server's attacks, then the utility left.
    input.phases.start("attack");
    m.attacks = server_attacks(data, s, text, v, sent.perturbed, input.point);
    if (per_occurrence) {
      input.phases.start("lm_utility");
      m.model.lm = perturbed_language_model_utility(data, s.data, *mechanism, input);
      input.phases.start("sentiment_utility");
      const double nan = std::nan("");
      m.sentiment = data.glove ? perturbed_sentiment_utility(data, s.data, text, sent, *mechanism, input.point)
                               : SentimentAccuracy{nan, nan, nan};
    } else {
      input.phases.start("lm_utility");
      m.model = model_utility(data, s, v, input);
      input.phases.start("sentiment_utility");
      m.sentiment = sentiment_utility(data, s, text, v);
    }
    input.phases.stop();
    PointResult result = point_result(s, data, text.table, *clusters, v, m);
    result.set("method", mechanism ? mechanism->name() : std::string("obfuslm"));
    if (mechanism) {
      result.set("draw", obfuslm_key::kDraw.name_of(s.draw));
      set_claim_columns(result, mechanism->claim());
    }
    return with_unset_columns(std::move(result), number_columns(), string_columns());
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_obfuslm_experiment() { return std::make_unique<ObfuslmExperiment>(); }

}  // namespace embpriv
