#pragma once
// Experiment type `inversion`: real sentences, tokenized for a real language model (llama2.c
// stories260K), their token embeddings perturbed by a mechanism, then attacked by KNN over the
// model's embedding table (top-1/top-5 token recovery, ROUGE-L of the recovered sentence), next
// to what utility survives (cosine, norm ratio, and the model's next-token agreement and
// perplexity when it reads perturbed input embeddings: the vMF paper's sec. 8 split inference).
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_inversion_experiment();

}  // namespace embpriv
