#include "experiments/types/shared/sent_tokens.h"

#include <ATen/ATen.h>

#include <limits>

#include "core/rng.h"

namespace embpriv {
namespace {

const double kNan = std::numeric_limits<double>::quiet_NaN();

}  // namespace

SentTokens send_tokens(const PrivateText& text, const Mechanism& mechanism, const GridPoint& point) {
  SentTokens sent;
  sent.ids = at::tensor(text.flat, at::kLong);
  sent.clean = text.table.index_select(0, sent.ids);
  const at::Tensor keep = (~text.public_tokens).to(at::kLong);
  const RandomStream stream{derive_seed(point.seed, point.point_id, "mechanism"), 0};
  sent.perturbed = mechanism.perturb(sent.clean, stream, {at::Tensor(), keep});
  sent.counted = keep.to(at::kBool) & ~text.special.index_select(0, sent.ids);
  return sent;
}

LanguageModelUtility perturbed_language_model_utility(const InversionData& data, const InversionSettings& s,
                                                      const Mechanism& mechanism, const PointInput& input) {
  if (!data.model || s.stories <= 0) return {kNan, kNan, kNan};
  const LanguageModel& model = *data.model;
  const at::Tensor& texts = sampled_texts(data, s, input.config, input.point.seed, input.cache);
  const at::Tensor text_ids = texts.reshape({-1});
  at::Tensor text_keep = at::ones_like(text_ids);
  if (s.mask == TokenMask::punctuation) {
    for (std::int64_t i = 0; i < text_ids.numel(); ++i) {
      const std::int64_t id = text_ids[i].item<std::int64_t>();
      const bool named = id < static_cast<std::int64_t>(data.token_texts.size());  // a model may have spare rows
      if (data.tokenizer->is_special(id) || !named || !has_word_character(data.token_texts[static_cast<std::size_t>(id)])) {
        text_keep[i] = 0;
      }
    }
  }
  const RandomStream stream{derive_seed(input.point.seed, input.point.point_id, "language_model"), 0};
  const at::Tensor noisy = mechanism.perturb(model.embed(text_ids), stream, {at::Tensor(), text_keep});
  return compare_language_model(model, texts, noisy.reshape({texts.size(0), texts.size(1), -1}));
}

SentimentAccuracy perturbed_sentiment_utility(const InversionData& data, const InversionSettings& s,
                                              const PrivateText& text, const SentTokens& sent,
                                              const Mechanism& mechanism, const GridPoint& point) {
  if (data.train_sentences.empty()) return {kNan, kNan, kNan};
  const PrivateText train = encode_sentences(data, s, data.train_sentences, data.train_sentences.size());
  const RandomStream stream{derive_seed(point.seed, point.point_id, "train"), 0};
  const at::Tensor train_noisy =
      mechanism.perturb(token_rows(train), stream, {at::Tensor(), (~train.public_tokens).to(at::kLong)});
  return sentiment_accuracy(train, train_noisy, text, sent.perturbed);
}

}  // namespace embpriv
