#pragma once
// A per-vector mechanism applied to every token a client sends, with fresh noise per occurrence
// (vMF paper, sec. 8: the client perturbs its input embeddings), and the utility left: what type
// inversion measures, and type obfuslm's baselines (obfuscation.method: mechanism, draw
// occurrence) measure alike.
#include <ATen/core/Tensor.h>

#include "experiments/engine/experiment_type.h"
#include "experiments/types/shared/inversion_data.h"
#include "experiments/types/shared/sentiment_utility.h"
#include "mechanisms/mechanism.h"
#include "models/language_model_utility.h"

namespace embpriv {

// The private tokens as the client sends them: private ones perturbed, public ones unchanged.
struct SentTokens {
  at::Tensor ids;        // [tokens] each token's row of the table
  at::Tensor clean;      // [tokens, d]
  at::Tensor perturbed;  // [tokens, d]
  at::Tensor counted;    // [tokens] bool: perturbed and not special (what recovery counts)
};

// text.flat's rows perturbed from the point's "mechanism" stream, public tokens copied.
SentTokens send_tokens(const PrivateText& text, const Mechanism& mechanism, const GridPoint& point);

// Utility for the language model: texts the clean model writes, read from perturbed inputs (the
// point's "language_model" stream; under mask punctuation, special and wordless tokens unchanged).
// NaN without a model or texts.
LanguageModelUtility perturbed_language_model_utility(const InversionData& data, const InversionSettings& s,
                                                      const Mechanism& mechanism, const PointInput& input);

// Downstream utility: the sentiment classifier, trained on the train sentences (clean, or
// perturbed like the test ones from the point's "train" stream), tested on the private ones as
// sent. NaN without train sentences.
SentimentAccuracy perturbed_sentiment_utility(const InversionData& data, const InversionSettings& s,
                                              const PrivateText& text, const SentTokens& sent,
                                              const Mechanism& mechanism, const GridPoint& point);

}  // namespace embpriv
