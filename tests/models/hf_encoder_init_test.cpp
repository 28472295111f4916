// The random initialisation of an encoder from its config (models/hf_encoder_init.h): the
// standard deviation is config.json's initializer_range, as transformers' _init_weights reads it,
// for the body (random_hf_encoder) and for a head added to a folder without one
// (add_classification_head); save_hf_encoder writes the value back.
#include "tests/catch.h"
#include <ATen/ATen.h>

#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"
#include "models/hf_encoder_tensors.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

HfEncoderConfig small_config(const char* type, double initializer_range) {
  HfEncoderConfig c = hf_encoder_config_of_sizes(type, {/*vocab*/ 1000, /*hidden*/ 16, /*feedforward*/ 24, /*layers*/ 1,
                                                        /*heads*/ 2, /*max_positions*/ 40});
  c.initializer_range = initializer_range;
  return c;
}

}  // namespace

TEST_CASE("random_hf_encoder and add_classification_head draw with the config's initializer_range", "[models][encoder]") {
  for (const char* type : {"bert", "roberta"}) {
    INFO(type);
    HfEncoderWeights usual = random_hf_encoder(small_config(type, 0.02), 4);
    HfEncoderWeights wide = random_hf_encoder(small_config(type, 0.5), 4);
    // The same normal draws, scaled: every matrix is 25 x the default one (float rounding aside),
    // LayerNorms stay 1 and biases 0.
    const std::vector<HfEncoderTensor> a = hf_encoder_tensors(usual), b = hf_encoder_tensors(wide);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO(a[i].name);
      CHECK(at::allclose(*b[i].tensor, *a[i].tensor * (a[i].tensor->dim() == 2 ? 25.0 : 1.0), 1e-6, 0));
    }
    // The word embeddings' 999 x 16 non-padding values have standard deviation 0.5: the sample's
    // relative error is about 1 / sqrt(2 n) = 0.56%, so 3% is more than 5 of them.
    const at::Tensor words = wide.word_embeddings.index({at::indexing::Slice(2, at::indexing::None)});
    CHECK(words.std().item<double>() == Approx(0.5).epsilon(0.03));
    CHECK(wide.word_embeddings[wide.config.pad_token_id].abs().max().item<double>() == 0);
    // A head added to a model of that config: N(0, 0.5^2) too, 25 x the default's draw.
    HfEncoderWeights usual_head = usual, wide_head = wide;
    add_classification_head(usual_head, 3, 9);
    add_classification_head(wide_head, 3, 9);
    CHECK(at::allclose(wide_head.classifier, usual_head.classifier * 25.0, 1e-6, 0));
    CHECK(wide_head.classifier.std().item<double>() > 0.3);
  }
}

TEST_CASE("save_hf_encoder writes initializer_range back", "[models][encoder]") {
  TempDir dir("embpriv_hf_encoder_init_test");
  save_hf_encoder(random_hf_encoder(small_config("bert", 0.125), 2), dir / "bert");
  CHECK(read_hf_encoder_config(dir / "bert").initializer_range == 0.125);
}
