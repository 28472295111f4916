#pragma once
// The downstream task of experiment types `inversion` and `obfuslm`: a sentiment classifier
// (logistic regression, models/logistic_regression.h) on mean-pooled sentence embeddings,
// trained on public sentences and tested on the private ones, on clean and on perturbed (or
// obfuscated) token rows.
#include <ATen/core/Tensor.h>

#include "experiments/types/shared/inversion_data.h"

namespace embpriv {

struct SentimentAccuracy {
  double clean;            // trained and tested on clean rows
  double train_clean;      // trained on clean rows, tested on perturbed ones
  double train_perturbed;  // trained and tested on perturbed rows
};

// The clean rows of a text: text.table's row of every token of text.flat, [tokens, d].
at::Tensor token_rows(const PrivateText& text);

// train_perturbed, test_perturbed: the rows of train.flat and test.flat as the mechanism left
// them ([tokens, d] each); the clean rows are token_rows() of each text.
SentimentAccuracy sentiment_accuracy(const PrivateText& train, const at::Tensor& train_perturbed,
                                     const PrivateText& test, const at::Tensor& test_perturbed);

}  // namespace embpriv
