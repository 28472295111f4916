#pragma once
// What both tasks of type `obfuslm` measure alike: the server's attacks on the obfuscated
// vocabulary it receives (ObfusLM paper, "攻击评估": KNN of every obfuscated row and of the
// client's token stream to the public table, and the (k, eps)-anonymity game of
// attacks/obfuslm_measures.h), the attack.* keys they read, and the result columns they fill
// (k, epsilon, the clusters, the recoveries, the game). Task vocabulary
// (obfuslm_experiment.cpp) and task classification (obfuslm_classification.cpp) each call
// these once per row.
#include <ATen/core/Tensor.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "attacks/obfuslm_measures.h"
#include "experiments/engine/experiment_type.h"
#include "mechanisms/obfuslm/vocabulary_obfuscator.h"

namespace embpriv {

// attack.vocabulary_sample, attack.anonymity_clusters, attack.anonymity_trials and
// attack.confidence (obfuslm_keys.h).
struct ServerAttackSettings {
  std::int64_t vocabulary_sample = 0, anonymity_clusters = 0, anonymity_trials = 0;
  double confidence = 0;
};
ServerAttackSettings read_server_attack_settings(const YAML::Node& config);

// A token stream as the server receives it: ids and the [begin, end) span of each sentence; for
// a per-vector mechanism with fresh noise per occurrence, also the rows as sent ([tokens, d]: the
// stream attack reads them instead of the table's rows of the shuffled ids).
struct TokenStream {
  const std::vector<std::int64_t>& flat;
  const std::vector<std::pair<std::size_t, std::size_t>>& spans;
  at::Tensor sent_rows = {};
};

// The server's attacks on what it received.
struct ServerAttacks {
  Recovery rows, stream;
  AnonymityGame game;
};

// KNN (k guesses) of the `attacked` rows (a sample of settings.vocabulary_sample, drawn from the
// point's "attack_sample" stream), KNN of the stream, and the anonymity game (the point's
// "anonymity" stream); `special` rows are never counted.
ServerAttacks run_server_attacks(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                                 const at::Tensor& attacked, std::int64_t k, const ServerAttackSettings& settings,
                                 const ObfuscationOptions& options, const TokenStream& stream, const GridPoint& point);

// Sets the columns both tasks share: k, epsilon, threshold, vocabulary_size (the table's rows),
// clusters, mean_cluster_size, singleton_share, vocab_top1/topk_recovery,
// stream_top1/topk_recovery, stream_rouge_l and the anonymity_* columns.
void set_server_attack_columns(PointResult& result, const ObfuscationOptions& options, std::int64_t vocabulary_size,
                               const Clusters& clusters, const ServerAttacks& attacks);

}  // namespace embpriv
