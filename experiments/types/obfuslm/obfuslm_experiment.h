#pragma once
// Experiment type `obfuslm`: ObfusLM's vocabulary obfuscation (shuffle + EmbedCluster +
// WeightSynth) of a real vocabulary (stories260K's 512 tokens, or the most frequent GloVe
// words), swept over the cluster size k, the WeightSynth eps and the cluster threshold beta:
// KNN inversion of the obfuscated rows and of the token stream of real sentences, the
// (k, eps)-anonymity game, and the utility left (language-model agreement and perplexity
// through the client/server flow; sentiment accuracy on GloVe).
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_obfuslm_experiment();

}  // namespace embpriv
