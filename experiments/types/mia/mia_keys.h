#pragma once
// The keys of experiment type `mia` (mia_experiment.cpp), declared once and read through these
// typed keys by the settings, the memory estimate and the figures.
#include <cstdint>
#include <string>
#include <vector>

#include "attacks/membership_inference.h"
#include "experiments/engine/typed_key.h"
#include "experiments/types/shared/data_keys.h"

namespace embpriv::mia_key {

inline const Key<std::string>& kGlove = kGloveTableKey;
inline const Key<std::int64_t> kGloveWords =
    integer_key("data.glove_words", 100000, "the N most frequent GloVe words (0: all)").at_least(0);
inline const Key<std::string> kSentences =
    text_key("data.sentences", "sentiment/yelp.json", "candidates come from these ...");
inline const Key<std::vector<std::string>> kMoreSentences =
    texts_key("data.more_sentences", {"sentiment/amazon.json", "sentiment/imdb.json"}, "... and these, shuffled");
inline const Key<std::int64_t> kExamples =
    integer_key("data.examples", 400, "candidate sentences; the target trains on a random half").at_least(20);
inline const Key<bool> kPerturb =
    boolean_key("data.perturb", true, "false: an unprotected classifier (the mechanism is not applied)");
inline const Key<double> kTargetL2 =
    number_key("target.l2", "1.0e-3", "the logistic regression's L2 penalty (small: the model memorises)").above(0);
inline const Key<std::int64_t> kShadows =
    integer_key("attack.shadows", 16, "shadow (reference) classifiers, each on a random half; LiRA needs 2, RMIA 1")
        .at_least(1);
inline const ChoiceKey<LiraCenter> kCenter =
    choice_key("attack.center", LiraCenter::mean, {{LiraCenter::mean, "mean"}, {LiraCenter::median, "median"}},
               "LiRA's per-example centre of the shadows' phi (median: as Carlini et al.'s released code)");
inline const Key<std::int64_t> kPopulation =
    integer_key("attack.population", 400,
                "RMIA's population z: the sentences after the candidates (in no model's training set)")
        .at_least(1);
inline const Key<double> kRmiaGamma =
    number_key("attack.rmia_gamma", "1", "RMIA's gamma: x must be gamma times likelier than z (the paper's Score_MIA)")
        .above(0);
inline const Key<double> kRmiaOfflineA =
    number_key("attack.rmia_offline_a", "0.3",
               "RMIA offline: Pr(x) = ((1 + a) Pr_OUT(x) + 1 - a) / 2 (0.3: ML Privacy Meter's default)")
        .at_least(0)
        .at_most(1);

}  // namespace embpriv::mia_key
