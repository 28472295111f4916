#pragma once
// model.kind and model.path of type `federated`: which privacy-identification model a run trains
// (PrivateAI paper, sec. 4.1: a one-layer Transformer, BERT of about 110 M parameters or RoBERTa
// of about 355 M).
//   transformer (the default): embpriv's own Transformer over the run's GloVe rows
//     (models/text_classifier.h); units are the word tokenizer's ids into that table
//     (data/privateai/privateai_data.h).
//   bert, roberta: a Hugging Face folder (model.path) with config.json, tokenizer.json and the
//     weights (model.safetensors or sharded). A folder of config.json and tokenizer.json alone
//     is a random-init model of that config, drawn for each federation from the run's seed as
//     transformers' _init_weights draws one (models/hf_encoder_init.h: random_hf_encoder), the
//     way the Transformer is. Units are the folder's own tokenizer.json ids ([CLS] ... [SEP] for
//     BERT's WordPiece, <s> ... </s> for RoBERTa's byte-level BPE), cut to data.max_tokens; the
//     encoder with a two-label sequence-classification head (models/encoder_text_classifier.h)
//     is what each client trains under local DP and what the server aggregates and distils.
// The stand-in teachers (federated/privateai_teachers.h) stay the GloVe Transformer and the
// labeller whatever the model: they stand for remote foundation models, whose answers on the
// proxy units do not depend on the client's model.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "data/privateai/privateai_data.h"
#include "data/tokenizers/tokenizer.h"
#include "experiments/engine/run_cache.h"
#include "models/hf_encoder_model.h"
#include "models/hf_encoder_source.h"
#include "models/text_classifier.h"

namespace embpriv {

enum class PrivacyModelKind { transformer, bert, roberta };
const char* to_string(PrivacyModelKind kind);  // transformer, bert, roberta (model.kind's names)

struct EncoderModelSettings {
  PrivacyModelKind kind = PrivacyModelKind::transformer;
  std::string path;  // model.path as written (bert, roberta)
  bool encoder() const { return kind != PrivacyModelKind::transformer; }
};

// model.kind and model.path of a point (an encoder without model.path is a ConfigError naming
// model.path).
EncoderModelSettings read_encoder_model(const YAML::Node& config);

// What check_point checks before any row: the folder exists and holds config.json of the
// model_type model.kind names, with no head or one of 2 labels, and a tokenizer.json embpriv
// applies whose ids fit the vocabulary; data.max_tokens fits the position table. Each problem is
// one ConfigError naming model.path (or data.max_tokens).
void check_encoder_model(const EncoderModelSettings& settings, std::int64_t max_tokens);

// The encoder's size from its config.json (0 for the Transformer or an unreadable folder): the
// parameters a client trains and shares, and the multiply-adds per token of one forward pass.
struct EncoderSize {
  double shared_parameters = 0, all_parameters = 0, multiply_adds_per_token = 0;
  std::int64_t hidden = 0, layers = 0, intermediate = 0, heads = 0;
};
EncoderSize encoder_size(const EncoderModelSettings& settings, bool train_embeddings);

// Units as the tokenizer cuts them for a sequence classifier: the text's ids with the template's
// special tokens around them ([CLS] ... [SEP], <s> ... </s>), the text's ids cut so that the
// whole holds at most max_tokens (transformers' truncation of a single text), padded with `pad`
// to [N, longest]. Labels and texts are kept.
EncodedUnits encoder_units(const EncodedUnits& units, const Tokenizer& tokenizer, std::int64_t max_tokens,
                           std::int64_t pad);

// An encoder run: the folder's weights (or only its config, for a random-init model:
// models/hf_encoder_source.h; `config` is made a classifier of 2 labels) and every part of the
// data as its tokenizer's ids. Loaded once per run (the run's cache).
struct EncoderRun : HfEncoderSource {
  PrivateAiData units;                    // data's parts as the tokenizer's ids (no embeddings)
  bool train_embeddings = false;
  std::int64_t max_tokens = 32;
};
const EncoderRun& encoder_run(const EncoderModelSettings& settings, const PrivateAiData& data, std::int64_t max_tokens,
                              bool train_embeddings, RunCache& cache);

// A federation's model: the folder's weights (with a classification head of 2 labels drawn
// from `seed` where the folder has none), or a random-init model drawn from `seed`.
TextClassifier encoder_federation_model(const EncoderRun& run, std::uint64_t seed);

}  // namespace embpriv
