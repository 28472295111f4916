#include "experiments/types/obfuslm/obfuslm_server_attacks.h"

#include "core/rng.h"
#include "experiments/types/obfuslm/obfuslm_keys.h"

namespace embpriv {

ServerAttackSettings read_server_attack_settings(const YAML::Node& c) {
  using namespace obfuslm_key;
  ServerAttackSettings s;
  s.vocabulary_sample = kVocabularySample(c);
  s.anonymity_clusters = kAnonymityClusters(c);
  s.anonymity_trials = kAnonymityTrials(c);
  s.confidence = kConfidence(c);
  return s;
}

ServerAttacks run_server_attacks(const ObfuscatedVocabulary& v, const at::Tensor& table, const at::Tensor& special,
                                 const at::Tensor& attacked, std::int64_t k, const ServerAttackSettings& s,
                                 const ObfuscationOptions& options, const TokenStream& stream, const GridPoint& point) {
  ServerAttacks a;
  a.rows = attack_obfuscated_rows(v, table, special, attacked, k, s.vocabulary_sample,
                                  derive_seed(point.seed, point.point_id, "attack_sample"));
  a.stream = stream.sent_rows.defined()
                 ? attack_perturbed_stream(stream.sent_rows, table, special, k, stream.flat, stream.spans)
                 : attack_token_stream(v, table, special, k, stream.flat, stream.spans);
  a.game = anonymity_game(v, table, options, s.anonymity_clusters, s.anonymity_trials, s.confidence,
                          derive_seed(point.seed, point.point_id, "anonymity"));
  return a;
}

void set_server_attack_columns(PointResult& result, const ObfuscationOptions& options, std::int64_t vocabulary_size,
                               const Clusters& clusters, const ServerAttacks& a) {
  std::int64_t singletons = 0;
  for (std::int64_t c = 0; c < clusters.count(); ++c) singletons += clusters.size(c) == 1;
  const double V = static_cast<double>(vocabulary_size), count = static_cast<double>(clusters.count());
  result.set("k", static_cast<double>(options.k));
  result.set("epsilon", options.epsilon);
  result.set("threshold", options.threshold);
  result.set("vocabulary_size", V);
  result.set("clusters", count);
  result.set("mean_cluster_size", V / count);
  result.set("singleton_share", static_cast<double>(singletons) / count);
  result.set("vocab_top1_recovery", a.rows.top1);
  result.set("vocab_topk_recovery", a.rows.topk);
  result.set("stream_top1_recovery", a.stream.top1);
  result.set("stream_topk_recovery", a.stream.topk);
  result.set("stream_rouge_l", a.stream.rouge_l);
  result.set("anonymity_pairs", static_cast<double>(a.game.pairs));
  result.set("anonymity_accuracy", a.game.accuracy);
  result.set("anonymity_eps_lower_median", a.game.lower_bound_median);
  result.set("anonymity_eps_lower_max", a.game.lower_bound_max);
  result.set("anonymity_share_above_claim", a.game.share_above_claim);
}

}  // namespace embpriv
