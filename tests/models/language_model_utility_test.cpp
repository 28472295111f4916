// Next-token agreement never counts NaN argmaxes as agreement: non-finite clean logits are
// refused, and a position whose other logits are not finite counts as a disagreement.
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <cmath>

#include "core/error.h"
#include "models/language_model_utility.h"
#include "models/llama2c_checkpoint.h"
#include "models/llama2c_model.h"
#include "tests/test_data.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("next-token agreement does not count non-finite logits as agreement", "[models]") {
  at::manual_seed(11);
  const at::Tensor ids = at::randint(0, 6, {2, 4}, at::kLong);
  const at::Tensor clean = at::randn({2, 4, 6});
  CHECK(compare_next_token_logits(ids, clean, clean.clone()).next_token_agreement == 1.0);
  // Every logit of sequence 1 NaN in the other model: its 4 positions of 8 disagree, although
  // argmax returns the first NaN's index, which may equal the clean choice.
  at::Tensor other = clean.clone();
  other[1].fill_(NAN);
  CHECK(compare_next_token_logits(ids, clean, other).next_token_agreement == 0.5);
  other = clean.clone();
  other[0][2][at::argmax(clean[0][2]).item<std::int64_t>()] = INFINITY;  // Inf: no longer a choice
  CHECK(compare_next_token_logits(ids, clean, other).next_token_agreement == 7.0 / 8.0);
  // NaN in the clean logits, matching NaN in the other: refused, not 1.0.
  at::Tensor broken = clean.clone();
  broken[1][3].fill_(NAN);
  CHECK_THROWS_WITH(compare_next_token_logits(ids, broken, broken.clone()),
                    Contains("clean model's next-token logits hold NaN or Inf (first at sequence 1, position 3)"));
}

TEST_CASE("a model with one NaN weight gives no next-token agreement", "[models]") {
  Llama2cWeights weights = load_llama2c_checkpoint(stories260k_checkpoint());
  weights.wq[2][10][20] = NAN;  // as if the checkpoint had not been checked at load
  const Llama2cModel model(std::move(weights));
  const at::Tensor ids = at::tensor(std::vector<std::int64_t>{1, 400, 300, 200, 100}, at::kLong).unsqueeze(0);
  const at::Tensor embeddings = model.embedding_table().index_select(0, ids[0]).unsqueeze(0);
  CHECK_THROWS_WITH(compare_language_model(model, ids, embeddings), Contains("hold NaN or Inf"));
}
