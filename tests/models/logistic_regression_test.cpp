// Logistic regression: it recovers a known linear rule, and classifies the real sentiment
// sentences from mean-pooled GloVe vectors well above chance.
#include "tests/catch.h"
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "platform/blas_library.h"
#include "core/error.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "data/corpora/sentiment_corpus.h"
#include "data/tokenizers/word_tokenizer.h"
#include "models/logistic_regression.h"
#include "tests/test_data.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("logistic regression learns a linear rule", "[models]") {
  at::manual_seed(7);
  const at::Tensor x = at::randn({2000, 5});
  const at::Tensor labels = (x.select(1, 0) - 2 * x.select(1, 3) + 0.1 * at::randn({2000}) > 0).to(at::kLong);
  const LogisticRegression model = LogisticRegression::fit(x, labels);
  CHECK(model.accuracy(x, labels) > 0.97);
  const at::Tensor test = at::randn({1000, 5});
  CHECK(model.accuracy(test, (test.select(1, 0) - 2 * test.select(1, 3) > 0).to(at::kLong)) > 0.95);
  CHECK(model.iterations() < 50);
  // Shuffled labels: nothing to learn, about chance on new data.
  const at::Tensor noise = at::randint(0, 2, {2000}, at::kLong);
  CHECK(LogisticRegression::fit(x, noise).accuracy(test, at::randint(0, 2, {1000}, at::kLong)) < 0.6);
  CHECK_THROWS_WITH(LogisticRegression::fit(x, labels.narrow(0, 0, 5)), Contains("features [N, d] and labels [N]"));
  CHECK_THROWS_WITH(LogisticRegression::fit(x, labels * 2), Contains("labels must be 0 or 1"));
}

TEST_CASE("sentiment from mean GloVe vectors: amazon + imdb train, yelp test", "[models][glove]") {
  const EmbeddingTable glove = load_cached_glove(resolve_data_path(kGloveJson));
  auto features = [&](const char* name, at::Tensor& labels) {
    const auto sentences = load_sentiment_sentences(shared_data(std::string("sentiment/") + name + ".json"));
    std::vector<at::Tensor> rows;
    std::vector<std::int64_t> y;
    for (const auto& s : sentences) {
      std::vector<std::int64_t> ids;
      for (std::int64_t id : word_ids(s.text, glove).ids) {
        if (id >= 0) ids.push_back(id);
      }
      if (ids.empty()) continue;
      rows.push_back(glove.vectors().index_select(0, at::tensor(ids, at::kLong)).mean(0));
      y.push_back(s.label);
    }
    labels = at::tensor(y, at::kLong);
    return at::stack(rows);
  };
  at::Tensor amazon_y, imdb_y, yelp_y;
  const at::Tensor train = at::cat({features("amazon", amazon_y), features("imdb", imdb_y)});
  const at::Tensor test = features("yelp", yelp_y);
  const LogisticRegression model = LogisticRegression::fit(train, at::cat({amazon_y, imdb_y}));
  const double accuracy = model.accuracy(test, yelp_y);
  INFO("yelp accuracy " << accuracy);
  CHECK(accuracy > 0.7);
}

TEST_CASE("a logistic fit gives the same bits at 1 and 2 threads, and leaves OpenBLAS's threads as they were",
          "[models]") {
  // 2,000 x 100: large enough that OpenBLAS would split the float64 products and the solve over
  // its threads, which changes their last bits; the fit keeps the BLAS in the calling thread.
  at::manual_seed(11);
  const at::Tensor x = at::randn({2000, 100});
  const at::Tensor y = at::bernoulli(at::sigmoid(at::matmul(x, at::randn({100})) / 3)).to(at::kLong);
  const int threads = at::get_num_threads();
  const int blas_threads = bound_blas().threads;
  at::set_num_threads(1);
  const at::Tensor one = LogisticRegression::fit(x, y).probabilities(x);
  at::set_num_threads(2);
  const at::Tensor two = LogisticRegression::fit(x, y).probabilities(x);
  at::set_num_threads(threads);
  CHECK(at::equal(one, two));
  CHECK(bound_blas().threads == blas_threads);
}
