#include "experiments/types/shared/sentiment_utility.h"

#include <ATen/ATen.h>

#include "models/logistic_regression.h"

namespace embpriv {

at::Tensor token_rows(const PrivateText& text) {
  return text.table.index_select(0, at::tensor(text.flat, at::kLong));
}

SentimentAccuracy sentiment_accuracy(const PrivateText& train, const at::Tensor& train_perturbed,
                                     const PrivateText& test, const at::Tensor& test_perturbed) {
  const SentenceFeatures clean_train = mean_pooled(train, token_rows(train));
  const SentenceFeatures noisy_train = mean_pooled(train, train_perturbed);
  const SentenceFeatures clean_test = mean_pooled(test, token_rows(test));
  const SentenceFeatures noisy_test = mean_pooled(test, test_perturbed);
  const LogisticRegression on_clean = LogisticRegression::fit(clean_train.features, clean_train.labels);
  const LogisticRegression on_noisy = LogisticRegression::fit(noisy_train.features, noisy_train.labels);
  return {on_clean.accuracy(clean_test.features, clean_test.labels),
          on_clean.accuracy(noisy_test.features, noisy_test.labels),
          on_noisy.accuracy(noisy_test.features, noisy_test.labels)};
}

}  // namespace embpriv
