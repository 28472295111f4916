// ObfusLM's server classifier (experiments/types/obfuslm/server_classifier.h). With k = 1
// WeightSynth returns every row itself (its one weight is 1), so the server, running the clean
// classifier with those rows in shuffled order on shuffled ids, must give the clean logits bit
// for bit, for BERT, RoBERTa and XLM-R alike. RoBERTa and XLM-R count positions from the padding
// index + 1: a server model that moves that index through the permutation (as embpriv did before)
// reads other position rows, or none ("sequence length must be in [1, -25812]"); the test shows
// that such a model is caught.
#include "tests/catch.h"

#include <ATen/ATen.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"
#include "experiments/types/obfuslm/server_classifier.h"
#include "models/encoder_training.h"
#include "models/hf_encoder_init.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;

namespace {

using Texts = std::vector<std::vector<std::int64_t>>;

// The head's logits [N, 2] of texts padded with the model's padding token (mask 0 there).
at::Tensor logits_of(const HfEncoderWeights& weights, const Texts& texts) {
  const HfEncoderModel model(weights);
  std::int64_t T = 0;
  for (const auto& text : texts) T = std::max<std::int64_t>(T, static_cast<std::int64_t>(text.size()));
  at::Tensor ids = at::full({static_cast<std::int64_t>(texts.size()), T}, weights.config.pad_token_id, at::kLong);
  at::Tensor mask = at::zeros_like(ids);
  for (std::size_t i = 0; i < texts.size(); ++i) {
    for (std::size_t t = 0; t < texts[i].size(); ++t) {
      ids[static_cast<std::int64_t>(i)][static_cast<std::int64_t>(t)] = texts[i][t];
      mask[static_cast<std::int64_t>(i)][static_cast<std::int64_t>(t)] = 1;
    }
  }
  at::NoGradGuard no_grad;
  return model.classify(model.hidden_states_of_ids(ids, mask));
}

// Texts of 2 to `longest` ids (so most rows are padded), none of them the padding token.
Texts random_texts(std::int64_t vocabulary, std::int64_t pad, std::int64_t longest, std::uint64_t seed) {
  Rng rng(seed, 0);
  Texts texts;
  for (int i = 0; i < 24; ++i) {
    std::vector<std::int64_t> text(static_cast<std::size_t>(2 + static_cast<std::int64_t>(rng.uniform() * (longest - 1))));
    for (std::int64_t& id : text) {
      do {
        id = static_cast<std::int64_t>(rng.uniform() * static_cast<double>(vocabulary));
      } while (id == pad || id >= vocabulary);
    }
    texts.push_back(std::move(text));
  }
  return texts;
}

}  // namespace

TEST_CASE("obfuslm server classifier: k = 1 gives the clean logits on shuffled ids for BERT, RoBERTa and XLM-R",
          "[obfuslm][classification]") {
  // 60 ids of width 16, one layer, 20 positions: RoBERTa's inputs of up to 20 - (1 + 1) = 18.
  for (const std::string type : {"bert", "roberta", "xlm-roberta"}) {
    const HfEncoderConfig config = hf_encoder_config_of_sizes(type, {60, 16, 32, 1, 2, 20}, 2);
    const HfEncoderWeights clean = random_hf_encoder(config, 7);
    const std::int64_t pad = config.pad_token_id, longest = HfEncoderModel(clean).max_sequence_length();
    CHECK(longest == (type == "bert" ? 20 : 18));
    int moved_caught = 0, moved_tried = 0;
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
      INFO(type << ", seed " << seed);
      ObfuscationOptions options;
      options.k = 1;
      options.epsilon = 1e6;
      options.threshold = 0;
      const ObfuscatedVocabulary v = obfuscate_vocabulary(clean.word_embeddings, at::Tensor(), options, seed);
      const HfEncoderWeights served = server_weights(clean, v);
      // The padding token is pi[pad]; the position table's padding index stays pad.
      const std::int64_t moved_pad = v.permutation[pad].item<std::int64_t>();
      CHECK(served.config.pad_token_id == moved_pad);
      CHECK(served.config.position_padding_idx() == pad);
      CHECK(HfEncoderModel(served).max_sequence_length() == longest);

      const Texts texts = random_texts(config.vocab_size, pad, longest, seed);
      const Texts shuffled = shuffled_texts(v, texts);
      const at::Tensor expected = logits_of(clean, texts);
      CHECK(at::equal(logits_of(served, shuffled), expected));
      CHECK(predict_encoder_labels(HfEncoderModel(served), shuffled, 5, longest) ==
            predict_encoder_labels(HfEncoderModel(clean), texts, 5, longest));

      // Power: the server model of before, whose position padding index moved with the token,
      // is refused or gives other logits whenever pi moved the padding token (RoBERTa, XLM-R).
      if (type == "bert" || moved_pad == pad) continue;
      ++moved_tried;
      HfEncoderWeights wrong = served;
      wrong.config.position_padding_override.reset();
      try {
        moved_caught += !at::equal(logits_of(wrong, shuffled), expected);
      } catch (const Error&) {  // no position left after pi[pad] + 1, or fewer than the text's
        ++moved_caught;
      }
    }
    CHECK(moved_caught == moved_tried);
    if (type != "bert") CHECK(moved_tried >= 6);
  }
}

TEST_CASE("obfuslm server classifier: the served model has no config.json of its own", "[obfuslm][classification]") {
  // config.json's one pad_token_id cannot say both the moved padding token and the kept position
  // padding index: saving the server model is refused, not written with the wrong positions.
  const HfEncoderConfig config = hf_encoder_config_of_sizes("roberta", {60, 16, 32, 1, 2, 20}, 2);
  const HfEncoderWeights clean = random_hf_encoder(config, 7);
  ObfuscationOptions options;
  options.k = 1;
  ObfuscatedVocabulary v = obfuscate_vocabulary(clean.word_embeddings, at::Tensor(), options, 1);
  if (v.permutation[1].item<std::int64_t>() == 1) v = obfuscate_vocabulary(clean.word_embeddings, at::Tensor(), options, 2);
  REQUIRE(v.permutation[1].item<std::int64_t>() != 1);  // the padding token moved
  TempDir dir("embpriv_server_classifier_save");
  CHECK_THROWS_WITH(save_hf_encoder(server_weights(clean, v), dir / "served"), Catch::Matchers::Contains("cannot say"));
  CHECK_FALSE(std::filesystem::exists(dir / "served"));
}
