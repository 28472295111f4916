#pragma once
// The config.json of a Hugging Face BERT-family encoder (model_type bert, roberta, xlm-roberta),
// with what embpriv's forward pass (models/hf_encoder_model.h) needs of it, and the pooling a
// sentence-transformers folder declares in 1_Pooling/config.json. Anything the forward pass would
// get wrong is refused with one Error naming the key: another model_type, hidden_act or
// position_embedding_type, a decoder or cross-attention configuration, a missing size.
#include <cstdint>
#include <string>

namespace embpriv {

// How token hidden states become one vector per text (sentence-transformers' Pooling module):
// the first token's state ([CLS] / <s>), the mean or the maximum over the unmasked tokens.
enum class EncoderPooling { cls, mean, max };

struct HfEncoderConfig {
  std::string model_type;  // bert | roberta | xlm-roberta
  std::int64_t vocab_size = 0, hidden_size = 0, intermediate_size = 0, num_hidden_layers = 0,
               num_attention_heads = 0, max_position_embeddings = 512, type_vocab_size = 2;
  double layer_norm_eps = 1e-12;
  // _init_weights' standard deviation: read only where a model is drawn from the config
  // (models/hf_encoder_init.h), as transformers reads it.
  double initializer_range = 0.02;
  std::int64_t pad_token_id = 0;  // RoBERTa's padding_idx: positions start at pad_token_id + 1
  // architectures[0] is *ForSequenceClassification: the checkpoint carries a classifier of
  // num_labels outputs (len(id2label), or 2 when config.json leaves id2label out).
  bool sequence_classification = false;
  std::int64_t num_labels = 0;
  // Sequence classification (BERT) reads the pooler; other checkpoints may carry it or not.
  bool roberta_positions() const { return model_type != "bert"; }
  std::int64_t head_dim() const { return hidden_size / num_attention_heads; }
};

// The parameters of a sequence classifier of `config` with a head of num_labels labels, counted
// from the config alone (memory and time estimates, before any weight is read). Embeddings: the
// words (vocab x h), the positions and token types ((positions + types) x h), their LayerNorm
// (2 h). Per layer: Q, K, V and the attention output (4 h^2 + 4 h), the feed-forward network
// (2 h inter + inter + h), two LayerNorms (4 h). Then BERT's pooler or RoBERTa's dense head
// (h^2 + h, the same size) and the classifier (h labels + labels).
struct HfEncoderParameterCount {
  std::int64_t word_embeddings = 0;  // vocab x h
  std::int64_t other = 0;            // everything else
  std::int64_t total() const { return word_embeddings + other; }
};
HfEncoderParameterCount hf_encoder_classifier_parameter_count(const HfEncoderConfig& config, std::int64_t num_labels);

// The sizes a config.json gives a model built from scratch (where no pretrained weights are
// reachable: a random-init classifier, a test's or a bench's model).
struct EncoderSizes {
  std::int64_t vocab = 0, hidden = 0, feedforward = 0, layers = 0, heads = 0, max_positions = 512;
};
// A config of model_type (bert, roberta, xlm-roberta) with those sizes and the defaults
// parse_hf_encoder_config gives the keys a file leaves out (pad_token_id 0 for BERT, 1 for the
// RoBERTa family); a sequence classifier of num_labels labels when num_labels > 0.
HfEncoderConfig hf_encoder_config_of_sizes(const std::string& model_type, const EncoderSizes& sizes,
                                           std::int64_t num_labels = 0);

// Parses config.json text; `source` names the file in errors.
HfEncoderConfig parse_hf_encoder_config(const std::string& json_text, const std::string& source);
// Reads FOLDER/config.json.
HfEncoderConfig read_hf_encoder_config(const std::string& folder);

// "cls", "mean" or "max" (refuses any other name).
EncoderPooling parse_encoder_pooling(const std::string& name);
const char* encoder_pooling_name(EncoderPooling pooling);

}  // namespace embpriv
