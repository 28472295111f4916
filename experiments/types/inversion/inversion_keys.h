#pragma once
// The keys of experiment type `inversion` (inversion_experiment.cpp) that type obfuslm does not
// share, declared once as typed keys: the settings (experiments/types/shared/inversion_data.cpp:
// read_inversion_settings), the figures and the memory estimate read them through these. The
// shared ones are in experiments/types/shared/vocabulary_keys.h.
#include <cstdint>
#include <string>

#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/vocabulary_keys.h"

namespace embpriv::inversion_key {

inline const Key<std::int64_t> kGloveWords =
    integer_key("data.glove_words", 0, "vocabulary glove: the first N (most frequent) GloVe words; 0: all").at_least(0);
inline const ChoiceKey<TokenMask> kMask =
    choice_key("mask", TokenMask::none, {{TokenMask::none, "none"}, {TokenMask::punctuation, "punctuation"}},
               "punctuation: public tokens sent unchanged (vMF paper, Def. 6.2)");
inline const ChoiceKey<KnnMetric> kMetric =
    choice_key("attack.metric", KnnMetric::cosine, {{KnnMetric::cosine, "cosine"}, {KnnMetric::l2, "l2"}},
               "the KNN attack's metric");
inline const Key<bool> kLearned =
    boolean_key("attack.learned", false,
                "also the learned attack: an MLP over a window of perturbed embeddings, trained on "
                "utility.train_sentences perturbed alike (glove: data.glove_words at most 50000)");
inline const ChoiceKey<LearnedModel> kLearnedModel =
    choice_key("attack.learned_model", LearnedModel::mlp,
               {{LearnedModel::mlp, "mlp"}, {LearnedModel::transformer, "transformer"}},
               "the learned attack's network: mlp (over a window of attack.learned_window rows each side) or "
               "transformer (InvBert, ObfusLM paper: an encoder over the whole sentence)");
inline const Key<std::int64_t> kLearnedEpochs =
    integer_key("attack.learned_epochs", 8, "the learned attack's training epochs").at_least(1).at_most(1000);
inline const Key<std::int64_t> kLearnedWindow =
    integer_key("attack.learned_window", 2, "neighbours on each side the MLP reads").at_least(0).at_most(8);

}  // namespace embpriv::inversion_key
