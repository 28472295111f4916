#pragma once
// A llama2.c model and tokenizer written as a Hugging Face Llama folder, laid out as
// transformers' own conversion (convert_llama_weights_to_hf.py, then save_pretrained) and the
// tokenizers library's LlamaConverter would write them:
//   config.json        LlamaConfig (model_type llama, rope_theta 10000, rms_norm_eps 1e-5 as
//                      run.c uses, tie_word_embeddings when the classifier is shared);
//   model.safetensors  model.embed_tokens / model.layers.N.* / model.norm (and lm_head when not
//                      tied), float32, the q_proj and k_proj rows permuted from llama2.c's
//                      interleaved rotary pairs to transformers' rotate_half halves;
//   tokenizer.json     a SentencePiece-style BPE (byte fallback, "▁" for spaces, merges ranked
//                      by the merged piece's score, <s> prepended by the template).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string>

#include "models/llama2c_checkpoint.h"

namespace embpriv {

// Rows of a q or k projection [heads * head_size, in] reordered from interleaved pairs
// (2j, 2j+1) to halves (j, j + head_size / 2) within each head: transformers' permute(),
// w.view(heads, head_size / 2, 2, in).transpose(1, 2).reshape(heads * head_size, in).
at::Tensor permute_rotary_rows(const at::Tensor& weight, std::int64_t heads);

// The config.json text for a llama2.c configuration.
std::string llama2c_hf_config_json(const Llama2cConfig& config);

// The tokenizer.json text for a llama2.c tokenizer file (its pieces and merge scores).
std::string llama2c_hf_tokenizer_json(const std::string& tokenizer_path, std::int64_t vocab_size);

// Writes out_dir/{config.json, model.safetensors, tokenizer.json} (the folder is created). A
// folder that is not empty is refused unless `overwrite`; with it, the model files the new model
// does not use are removed first (a shard index and its shards, other *.safetensors, *.bin and
// *.json files, tokenizer.model, vocab.txt, merges.txt), since a loader would prefer an old
// model.safetensors.index.json to the new model.safetensors. Other files (README.md, folders)
// are left, and so are the input files even when they lie in out_dir.
void convert_llama2c_to_hf(const std::string& model_path, const std::string& tokenizer_path, const std::string& out_dir,
                           bool overwrite = false);

}  // namespace embpriv
