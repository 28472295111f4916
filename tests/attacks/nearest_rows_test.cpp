// KNN inversion: the chunked running top-k equals a direct search, and on the real stories260K
// table a clean embedding finds its own token.
#include "tests/catch.h"
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "attacks/nearest_rows.h"
#include "core/error.h"
#include "metrics/recovery.h"
#include "models/llama2c_checkpoint.h"
#include "tests/test_data.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

// A direct search: every score at once (cdist for l2, not the GEMM expansion), then top-k.
at::Tensor direct_top_k(const at::Tensor& q, const at::Tensor& t, std::int64_t k, KnnMetric metric) {
  const at::Tensor scores = metric == KnnMetric::cosine
                                ? at::matmul(q / q.norm(2, 1, true), (t / t.norm(2, 1, true)).t())
                                : -at::cdist(q.to(at::kDouble), t.to(at::kDouble)).pow(2);
  return std::get<1>(scores.topk(k, 1));
}

}  // namespace

TEST_CASE("chunked nearest rows equal a direct search", "[attacks]") {
  at::manual_seed(3);
  const at::Tensor table = at::randn({1000, 24});
  const at::Tensor queries = at::randn({77, 24}) * 2;
  for (KnnMetric metric : {KnnMetric::cosine, KnnMetric::l2}) {
    KnnOptions options;
    options.metric = metric;
    options.k = 5;
    options.query_chunk = 10;   // 8 query chunks
    options.table_chunk = 130;  // 8 table chunks, the last one short
    const Neighbours n = nearest_rows(queries, table, options);
    CHECK(n.indices.sizes() == at::IntArrayRef{77, 5});
    CHECK(at::equal(n.indices, direct_top_k(queries, table, 5, metric)));
    // Scores are sorted, best first.
    CHECK((n.scores.narrow(1, 0, 4) >= n.scores.narrow(1, 1, 4)).all().item<bool>());
  }
}

TEST_CASE("nearest rows are the same bits at 1 and 2 threads, whatever the chunks", "[attacks]") {
  // With 2 threads the query blocks are split among the threads and every GEMM runs in its
  // caller's thread (platform/blas_threads.h); with 1, the BLAS's own threads share each GEMM.
  at::manual_seed(5);
  const at::Tensor table = at::randn({3000, 100});
  const at::Tensor queries = table.narrow(0, 0, 301) + 0.5 * at::randn({301, 100});
  at::Tensor excluded = at::zeros({3000}, at::kBool);
  excluded.narrow(0, 7, 3).fill_(true);
  const int threads = at::get_num_threads();
  for (KnnMetric metric : {KnnMetric::cosine, KnnMetric::l2}) {
    KnnOptions options;
    options.metric = metric;
    options.k = 7;
    options.excluded = excluded;
    at::set_num_threads(1);
    const Neighbours one = nearest_rows(queries, table, options);
    at::set_num_threads(2);
    const Neighbours two = nearest_rows(queries, table, options);
    options.query_chunk = 64;
    options.table_chunk = 1000;
    const Neighbours chunked = nearest_rows(queries, table, options);
    at::set_num_threads(threads);
    CHECK(at::equal(one.indices, two.indices));
    CHECK(at::equal(one.scores, two.scores));
    CHECK(at::equal(one.indices, chunked.indices));
    CHECK(at::equal(one.scores, chunked.scores));
    CHECK((one.indices >= 7).logical_and(one.indices < 10).logical_not().all().item<bool>());
  }
}

TEST_CASE("excluded rows are never returned; bad input is named", "[attacks]") {
  at::manual_seed(4);
  const at::Tensor table = at::randn({50, 8});
  at::Tensor excluded = at::zeros({50}, at::kBool);
  excluded.narrow(0, 0, 3).fill_(true);
  KnnOptions options;
  options.k = 3;
  options.excluded = excluded;
  const Neighbours n = nearest_rows(table.narrow(0, 0, 10), table, options);
  CHECK((n.indices >= 3).all().item<bool>());
  CHECK(at::equal(n.indices.select(1, 0).narrow(0, 3, 7), at::arange(3, 10)));  // itself
  options.k = 48;
  CHECK_THROWS_WITH(nearest_rows(table, table, options), Contains("k must be in [1, 47]"));
  options.k = 1;
  CHECK_THROWS_WITH(nearest_rows(at::randn({2, 7}), table, options), Contains("same d"));
  at::Tensor nan = at::zeros({1, 8});
  nan[0][0] = NAN;
  CHECK_THROWS_WITH(nearest_rows(nan, table, options), Contains("NaN"));
  CHECK_THROWS_WITH(parse_knn_metric("dot"), Contains("cosine or l2"));
}

TEST_CASE("a table row with Inf or NaN is refused, naming the row, unless it is excluded", "[attacks]") {
  at::manual_seed(6);
  at::Tensor table = at::randn({50, 8});
  table[17][4] = INFINITY;
  table[30][0] = NAN;
  const at::Tensor ids = at::arange(0, 10);
  for (KnnMetric metric : {KnnMetric::cosine, KnnMetric::l2}) {
    KnnOptions options;
    options.metric = metric;
    options.k = 1;
    // Without the check, every query's NaN score ranks first and top-1 recovery is 0.
    CHECK_THROWS_WITH(nearest_rows(table.index_select(0, ids), table, options),
                      Contains("knn: the table holds NaN or Inf in row 17 (2 such rows in all)"));
    // Excluded rows are never returned, so their values do not matter.
    options.excluded = at::zeros({50}, at::kBool);
    options.excluded[17] = true;
    options.excluded[30] = true;
    const Neighbours n = nearest_rows(table.index_select(0, ids), table, options);
    CHECK(top_k_recovery(ids, n.indices, 1) == 1.0);
  }
}

TEST_CASE("clean stories260K embeddings recover their tokens; noise hides them", "[attacks]") {
  const at::Tensor table = load_llama2c_checkpoint(stories260k_checkpoint()).token_embedding;
  // The merged pieces (259..511) find themselves, by cosine and by L2. The 256 byte tokens
  // <0x00>..<0xFF> never occur in TinyStories: their rows barely moved from one shared vector
  // (norm 2.773 each), closer to each other than float32 GEMM scores resolve, so both metrics
  // confuse them; an attacker loses nothing there (the text never holds them).
  const at::Tensor pieces = at::arange(259, 512);
  const at::Tensor bytes = at::arange(3, 259);
  KnnOptions options;
  options.k = 5;
  for (KnnMetric metric : {KnnMetric::cosine, KnnMetric::l2}) {
    options.metric = metric;
    CHECK(top_k_recovery(pieces, nearest_rows(table.index_select(0, pieces), table, options).indices, 1) == 1.0);
    CHECK(top_k_recovery(bytes, nearest_rows(table.index_select(0, bytes), table, options).indices, 1) < 0.8);
  }
  const at::Tensor ids = pieces;
  at::manual_seed(5);
  const at::Tensor noisy = table.index_select(0, ids) + 10 * at::randn({253, 64}) * table.norm(2, 1).mean();
  const Neighbours hidden = nearest_rows(noisy, table, options);
  CHECK(top_k_recovery(ids, hidden.indices, 1) < 0.05);
  CHECK(top_k_recovery(ids, hidden.indices, 5) >= top_k_recovery(ids, hidden.indices, 1));
}

TEST_CASE("token recovery and ROUGE-L", "[metrics]") {
  const at::Tensor truth = at::tensor(std::vector<std::int64_t>{1, 7, 8, 9}, at::kLong);
  const at::Tensor guesses = at::tensor(std::vector<std::int64_t>{1, 0, 3, 7, 5, 8, 0, 4}, at::kLong).reshape({4, 2});
  CHECK(top_k_recovery(truth, guesses, 1) == 0.25);
  CHECK(top_k_recovery(truth, guesses, 2) == 0.75);
  const at::Tensor not_special = at::tensor(std::vector<std::int64_t>{0, 1, 1, 1}, at::kLong);
  CHECK(top_k_recovery(truth, guesses, 1, not_special) == 0);
  CHECK(top_k_recovery(truth, guesses, 2, not_special) == Approx(2.0 / 3).margin(1e-15));
  // LCS of (a b c d e) and (a c e f): a c e = 3; P = 3/4, R = 3/5, F1 = 2/3.
  CHECK(longest_common_subsequence({1, 2, 3, 4, 5}, {1, 3, 5, 6}) == 3);
  CHECK(rouge_l_f1({1, 2, 3, 4, 5}, {1, 3, 5, 6}) == Approx(2.0 / 3).margin(1e-15));
  CHECK(rouge_l_f1({1, 2}, {1, 2}) == 1.0);
  CHECK(rouge_l_f1({1, 2}, {3}) == 0.0);
  CHECK(rouge_l_f1({}, {3}) == 0.0);
}
