#pragma once
// Experiment type `mia`: membership inference against a sentiment classifier (logistic
// regression on mean-pooled GloVe embeddings of real review sentences) trained on a random half
// of the candidate sentences, their token embeddings perturbed by a mechanism (or not, with
// `data.perturb: false`). The attacker queries the classifier with each candidate's clean
// embedding and compares with shadow classifiers it trains on its own random halves (fresh
// noise): the loss-threshold attack and LiRA online/offline, with and without fixed variance
// (attacks/membership_inference.h), and RMIA online/offline against a population of sentences
// no model trained on (attacks/rmia.h), all from the same models (mia_models.h: rows that
// differ only in attack.* keys share them). AUC, balanced accuracy, TPR at 0.1% and 1% FPR,
// and the ROC curves under /curves.
#include <memory>

#include "experiments/engine/experiment_type.h"

namespace embpriv {

std::unique_ptr<ExperimentType> make_mia_experiment();

}  // namespace embpriv
