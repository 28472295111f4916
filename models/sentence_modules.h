#pragma once
// What a sentence-transformers folder does after its Transformer to make one vector per text
// (modules.json, sentence_transformers.SentenceTransformer): a Pooling module (its folder's
// config.json: pooling_mode_cls_token, _mean_tokens or _max_tokens), then, in most published
// sentence encoders (all-MiniLM-L6-v2, all-mpnet-base-v2), a Normalize module that divides the
// pooled vector by its L2 norm. embpriv's pooled vectors (HfEncoderModel::pool) follow the same
// modules, so they are the vectors SentenceTransformer.encode returns for that folder.
#include <cstdint>
#include <string>

#include "models/hf_encoder_config.h"

namespace embpriv {

struct SentenceModules {
  EncoderPooling pooling = EncoderPooling::mean;
  bool normalize = false;  // a Normalize module: pooled / max(||pooled||_2, 1e-12), torch's F.normalize
};

// FOLDER's modules.json where it has one: the Transformer at the folder's root (path ""), then a
// Pooling module read from FOLDER/<its path>/config.json, then an optional Normalize. Any other
// module (Dense, LayerNorm, WordEmbeddings, ...), another order, or a Transformer in a subfolder
// changes the sentence vector in a way embpriv does not compute: refused naming the module.
// Without modules.json: 1_Pooling/config.json where present (read_pooling_config), else mean
// pooling (what sentence-transformers builds for a plain Hugging Face folder), no normalisation.
SentenceModules read_sentence_modules(const std::string& folder, std::int64_t hidden_size);

// A Pooling module's config.json: exactly one of pooling_mode_cls_token, _mean_tokens and
// _max_tokens true (the other modes, mean_sqrt_len, weightedmean and lasttoken, refused by key);
// `hidden_size` is checked against word_embedding_dimension.
EncoderPooling read_pooling_config(const std::string& path, std::int64_t hidden_size);

// Writes FOLDER/modules.json and FOLDER/1_Pooling/config.json for `modules` (and the empty
// 2_Normalize folder sentence-transformers saves), so read_sentence_modules reads them back.
void write_sentence_modules(const std::string& folder, const SentenceModules& modules, std::int64_t hidden_size);

}  // namespace embpriv
