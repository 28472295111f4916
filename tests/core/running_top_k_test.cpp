// The running top-k of the KNN attack's CPU path (core/running_top_k.h).
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "core/running_top_k.h"

using namespace embpriv;

namespace {

// The top-k of `scores` fed in column chunks of `chunk`.
RunningTopK chunked(const at::Tensor& scores, std::int64_t k, std::int64_t chunk) {
  RunningTopK top(scores.size(0), k);
  for (std::int64_t c0 = 0; c0 < scores.size(1); c0 += chunk) {
    top.add(scores.narrow(1, c0, std::min(chunk, scores.size(1) - c0)), c0);
  }
  return top;
}

}  // namespace

TEST_CASE("the running top-k equals a full sort of each row, for any chunking", "[attacks][knn]") {
  at::manual_seed(3);
  const at::Tensor scores = at::randn({37, 1000});  // distinct values (continuous draws)
  const auto [expected_scores, expected_indices] = scores.topk(7, 1);
  for (const std::int64_t chunk : {1, 5, 64, 999, 1000, 4096}) {
    const RunningTopK top = chunked(scores, 7, chunk);
    CHECK(at::equal(top.indices(), expected_indices));
    CHECK(at::equal(top.scores(), expected_scores));
  }
}

TEST_CASE("the running top-k keeps the lower column first among equal scores", "[attacks][knn]") {
  // Row 0: columns 1, 3 and 4 tie for the best; row 1 is constant.
  const at::Tensor scores = at::tensor({0.f, 2.f, 1.f, 2.f, 2.f, 1.f, 5.f, 5.f, 5.f, 5.f, 5.f, 5.f}).reshape({2, 6});
  for (const std::int64_t chunk : {1, 2, 6}) {
    const RunningTopK top = chunked(scores, 4, chunk);
    CHECK(at::equal(top.indices(), at::tensor({1L, 3L, 4L, 2L, 0L, 1L, 2L, 3L}, at::kLong).reshape({2, 4})));
  }
  // The same whatever the thread count (rows are split among threads).
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const at::Tensor one = chunked(scores, 4, 2).indices();
  at::set_num_threads(2);
  CHECK(at::equal(chunked(scores, 4, 2).indices(), one));
  at::set_num_threads(threads);
}

TEST_CASE("the running top-k subtracts a column offset and skips excluded columns", "[attacks][knn]") {
  const at::Tensor scores = at::tensor({3.f, 2.f, 1.f, 0.f}).reshape({1, 4});
  RunningTopK top(1, 2);
  top.add(scores, 10, at::tensor({0.f, -5.f, 0.f, -4.f}), at::tensor({0, 0, 1, 0}).to(at::kBool));
  // Scores after the offset: 3, 7, (excluded), 4.
  CHECK(at::equal(top.indices(), at::tensor({11L, 13L}, at::kLong).reshape({1, 2})));
  CHECK(at::equal(top.scores(), at::tensor({7.f, 4.f}).reshape({1, 2})));
  // Fewer columns than k: padded with -1 and -inf.
  RunningTopK few(1, 3);
  few.add(at::tensor({1.f}).reshape({1, 1}), 0);
  CHECK(few.indices()[0][2].item<std::int64_t>() == -1);
  CHECK(std::isinf(few.scores()[0][2].item<float>()));
}
