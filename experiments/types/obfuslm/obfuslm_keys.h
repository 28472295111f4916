#pragma once
// The keys of experiment type `obfuslm` (obfuslm_experiment.cpp) that type inversion does not
// share, declared once as typed keys: the settings and the memory estimate read them through
// these. The shared ones are in experiments/types/shared/vocabulary_keys.h.
#include <cstdint>
#include <string>

#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/vocabulary_keys.h"
#include "mechanisms/obfuslm/embed_cluster.h"
#include "mechanisms/obfuslm/weight_synth.h"

namespace embpriv::obfuslm_key {

// What obfuscates the vocabulary: ObfusLM itself, or a mechanism of the registry in its place.
enum class Method { obfuslm, mechanism };
// How a mechanism's noise is drawn: afresh for every token sent, or once per vocabulary row.
enum class Draw { occurrence, vocabulary };

inline const ChoiceKey<Method> kMethod = choice_key(
    "obfuscation.method", Method::obfuslm, {{Method::obfuslm, "obfuslm"}, {Method::mechanism, "mechanism"}},
    "obfuslm (EmbedCluster + WeightSynth) or mechanism: the `mechanism:` section's per-vector mechanism in its "
    "place, ObfusLM's baseline at matched utility (task vocabulary; the obfuscation.k, epsilon, threshold, "
    "normalization and order keys are then unused)");
inline const ChoiceKey<Draw> kDraw = choice_key(
    "obfuscation.draw", Draw::occurrence, {{Draw::occurrence, "occurrence"}, {Draw::vocabulary, "vocabulary"}},
    "method mechanism: occurrence (fresh noise on every token sent, as a client perturbing its own input "
    "does) or vocabulary (every row perturbed once, the noisy table sent in shuffled order as ObfusLM sends "
    "its rows)");

inline const Key<std::int64_t> kGloveWords =
    integer_key("data.glove_words", 50000, "glove: the N most frequent words (0: all 341,479)").at_least(0);
inline const Key<std::int64_t> kK = integer_key("obfuscation.k", 10, "EmbedCluster's cluster size").at_least(1);
inline const Key<double> kEpsilon = number_key("obfuscation.epsilon", "1.0", "WeightSynth's budget").above(0);
inline const Key<double> kThreshold =
    number_key("obfuscation.threshold", "0.5", "beta: no row below the beta-quantile of the opener's similarities joins")
        .at_least(0)
        .at_most(1);
inline const ChoiceKey<WeightNormalization> kNormalization =
    choice_key("obfuscation.normalization", WeightNormalization::sum,
               {{WeightNormalization::sum, "sum"}, {WeightNormalization::exp, "exp"}},
               "sum (the published code; default, docs/errata.md) or exp (the paper's text)");
inline const ChoiceKey<ClusterOrder> kOrder =
    choice_key("obfuscation.order", ClusterOrder::index, {{ClusterOrder::index, "index"}, {ClusterOrder::random, "random"}},
               "the order rows open clusters in");
inline const Key<std::int64_t> kVocabularySample =
    integer_key("attack.vocabulary_sample", 5000, "obfuscated rows attacked (all when the vocabulary is smaller)")
        .at_least(1);
inline const Key<std::int64_t> kAnonymityClusters =
    integer_key("attack.anonymity_clusters", 40, "clusters in the (k, eps)-anonymity game (0: skip)").at_least(0);
inline const Key<std::int64_t> kAnonymityTrials =
    integer_key("attack.anonymity_trials", 400, "WeightSynth draws per member").at_least(10);
inline const Key<double> kConfidence =
    number_key("attack.confidence", "0.95", "of the empirical-epsilon lower bounds (Bonferroni over the pairs)")
        .above(0)
        .below(1);
inline const Key<std::int64_t> kGenerate =
    integer_key("language_model.generate", 24, "tokens generated through the client/server flow after the prompt")
        .at_least(0)
        .at_most(200);
inline const Key<std::string>& kPrompt = vocabulary_key::kPrompt;

}  // namespace embpriv::obfuslm_key
