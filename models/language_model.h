#pragma once
// What every experiment needs of a language model, whichever file it came from: a llama2.c
// checkpoint (models/llama2c_model.h) or a Hugging Face Llama-family folder
// (models/hf_decoder_model.h). The forward pass starts from INPUT EMBEDDINGS so perturbed
// embeddings can be fed in (the split-inference hook of the vMF paper, sec. 8); the table an
// attacker knows is the model's input embedding.
#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace embpriv {

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;
  virtual std::int64_t vocab_size() const = 0;
  virtual std::int64_t hidden_size() const = 0;
  // The longest input the model accepts (llama2.c seq_len; HF max_position_embeddings).
  virtual std::int64_t max_sequence_length() const = 0;
  // The input-embedding matrix [vocab, hidden] as float32 (the table an attacker knows).
  virtual at::Tensor embedding_table() const = 0;
  // The output (head) matrix [vocab, hidden] as float32; the same values when tied.
  virtual at::Tensor head_table() const = 0;
  virtual bool tied_head() const = 0;
  // The token a text starts with: llama2.c's <s> (1), or config.json's bos_token_id.
  virtual std::int64_t bos_id() const { return 1; }
  // The same model with other token rows, both [vocab, hidden] (ObfusLM's server model); the
  // head is tied when both are the same tensor.
  virtual std::unique_ptr<LanguageModel> with_token_rows(const at::Tensor& embedding,
                                                         const at::Tensor& head) const = 0;
  // Input embeddings of token ids [T] or [B, T]: [.., hidden] float32.
  virtual at::Tensor embed(const at::Tensor& ids) const = 0;
  // Next-token logits [T, vocab] or [B, T, vocab] from input embeddings [T, hidden] or
  // [B, T, hidden] (causal, positions 0..T-1, computed in float32).
  virtual at::Tensor forward_embeddings(const at::Tensor& embeddings) const = 0;

  at::Tensor forward_ids(const at::Tensor& ids) const { return forward_embeddings(embed(ids)); }
  // The prompt followed by new_tokens greedily chosen tokens (argmax, ties to the lowest id),
  // stopping at max_sequence_length().
  std::vector<std::int64_t> generate_greedy(std::vector<std::int64_t> prompt, std::int64_t new_tokens) const;
};

// A llama2.c checkpoint .bin, or a folder holding a Hugging Face config.json and safetensors
// weights (models/hf_checkpoint.h). The weights are placed on `device` (core/device.h). `compute`
// bfloat16 is for Hugging Face folders (models/hf_decoder_model.h); llama2.c computes in float32.
std::unique_ptr<LanguageModel> load_language_model(const std::string& path, c10::Device device = c10::kCPU,
                                                   at::ScalarType compute = at::kFloat);

// The compute dtype of a decoder by name: "float32" or "bfloat16"; anything else is refused, named.
at::ScalarType compute_dtype_named(const std::string& name);

}  // namespace embpriv
