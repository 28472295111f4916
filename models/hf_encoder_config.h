#pragma once
// The config.json of a Hugging Face BERT-family encoder (model_type bert, roberta, xlm-roberta),
// with what embpriv's forward pass (models/hf_encoder_model.h) needs of it, and the pooling a
// sentence-transformers folder declares in 1_Pooling/config.json. Anything the forward pass would
// get wrong is refused with one Error naming the key: another model_type, hidden_act or
// position_embedding_type, a decoder or cross-attention configuration, a missing size.
#include <cstdint>
#include <optional>
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
  // The padding token's id: what padded batches hold, what attention masks and RoBERTa's
  // position ids (create_position_ids_from_input_ids) leave out.
  std::int64_t pad_token_id = 0;
  // RobertaEmbeddings' padding_idx: RoBERTa's positions count from position_padding_idx() + 1.
  // config.json has one key for both roles (pad_token_id), so a folder's model leaves this empty.
  // A model served ids through a secret permutation (ObfusLM's server model,
  // experiments/types/obfuslm/server_classifier.h) sets the original padding index here: the
  // padding token's id moves with the permutation, the rows of the position table do not.
  std::optional<std::int64_t> position_padding_override;
  // architectures[0] is *ForSequenceClassification: the checkpoint carries a classifier of
  // num_labels outputs (len(id2label), or 2 when config.json leaves id2label out).
  bool sequence_classification = false;
  std::int64_t num_labels = 0;
  // Sequence classification (BERT) reads the pooler; other checkpoints may carry it or not.
  bool roberta_positions() const { return model_type != "bert"; }
  std::int64_t position_padding_idx() const { return position_padding_override.value_or(pad_token_id); }
  // The longest input the position table covers: max_position_embeddings for BERT, and for the
  // RoBERTa family the positions after position_padding_idx() + 1 (RobertaEmbeddings). Below 1
  // for a config no forward pass can use (refused by HfEncoderModel's constructor).
  std::int64_t max_sequence_length() const {
    return roberta_positions() ? max_position_embeddings - position_padding_idx() - 1 : max_position_embeddings;
  }
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
