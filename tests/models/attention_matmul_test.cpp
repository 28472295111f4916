// attention_matmul (models/attention_matmul.h): at::matmul's bits, one head's product per thread,
// at every thread count and layout the attention of models/ passes it (q k^T with k transposed
// in place, p v), and at::matmul itself where autograd records or the leading sizes broadcast.
#include "tests/catch.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "models/attention_matmul.h"

using namespace embpriv;

namespace {

// [B, heads, T, d] as the models make it: a [B, T, heads * d] projection viewed per head.
at::Tensor per_head(std::int64_t B, std::int64_t T, std::int64_t heads, std::int64_t d) {
  return at::randn({B, T, heads * d}, at::kFloat).reshape({B, T, heads, d}).transpose(1, 2);
}

}  // namespace

TEST_CASE("attention_matmul gives at::matmul's bits at one and two threads", "[models]") {
  at::manual_seed(3);
  const int threads = at::get_num_threads();
  // BERT-base's head (T 128, d 64), stories260K's (d 8), and an odd one.
  for (const auto& [B, T, heads, d] : std::vector<std::array<std::int64_t, 4>>{{2, 128, 12, 64}, {3, 40, 8, 8}, {1, 7, 3, 5}}) {
    const at::Tensor q = per_head(B, T, heads, d), k = per_head(B, T, heads, d), v = per_head(B, T, heads, d);
    const at::Tensor scores = at::matmul(q, k.transpose(-2, -1));
    const at::Tensor context = at::matmul(at::softmax(scores, -1), v);
    for (int t : {1, 2}) {
      INFO("B " << B << ", T " << T << ", heads " << heads << ", d " << d << ", threads " << t);
      at::set_num_threads(t);
      const at::Tensor ours = attention_matmul(q, k.transpose(-2, -1));
      CHECK(ours.sizes() == scores.sizes());
      CHECK(at::equal(ours, scores));
      CHECK(at::equal(attention_matmul(at::softmax(ours, -1), v), context));
    }
  }
  at::set_num_threads(threads);
}

TEST_CASE("attention_matmul leaves autograd and broadcasting to at::matmul", "[models]") {
  at::manual_seed(4);
  const at::Tensor q = per_head(2, 9, 2, 4).detach().requires_grad_(), k = per_head(2, 9, 2, 4);
  const at::Tensor scores = attention_matmul(q, k.transpose(-2, -1));
  REQUIRE(scores.requires_grad());  // bmm_out would have dropped the graph
  scores.sum().backward();
  CHECK(at::allclose(q.grad(), at::matmul(at::ones({2, 2, 9, 9}), k)));
  // One key head read by every query head: the leading sizes broadcast.
  const at::Tensor shared = at::randn({2, 1, 4, 9});
  CHECK(at::equal(attention_matmul(q.detach(), shared), at::matmul(q.detach(), shared)));
}
