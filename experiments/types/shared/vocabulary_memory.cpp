#include "experiments/types/shared/vocabulary_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "platform/memory_limit.h"
#include "data/tables/data_paths.h"
#include "models/hf_checkpoint.h"
#include "models/hf_decoder_config.h"

namespace embpriv {
namespace {

// A word in memory: its std::string (32 bytes, libstdc++; a heap buffer when longer than 15
// characters, rare among GloVe words) and its entry in the table's word index (a hash node
// holding another copy of the string, the row, the hash and the next pointer, and its bucket).
constexpr double kBytesPerWord = 120;
// The float32 values of the whole table are held twice during the load: the table and a
// temporary of the same size (the finite-rows check, the copy out of the file's buffer).

}  // namespace

std::int64_t glove_rows(std::int64_t words) {
  return words > 0 && words < kGloveTableWords ? words : kGloveTableWords;
}

double glove_load_bytes(std::int64_t words) {
  const double table = static_cast<double>(kGloveTableWords) * (2 * kGloveTableDim * 4.0 + kBytesPerWord);
  // EmbeddingTable::first copies the kept rows while the whole table is alive.
  const double kept = words > 0 ? static_cast<double>(glove_rows(words)) * (kGloveTableDim * 4.0 + kBytesPerWord) : 0;
  return table + kept;
}

LanguageModelShape read_language_model_shape(const std::string& checkpoint_path) {
  const std::string path = resolve_data_path(checkpoint_path);
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {  // a Hugging Face folder: its config.json
    const HfDecoderConfig c = read_hf_decoder_config(path);
    const std::int64_t positions = c.sliding_window > 0 ? std::min(c.sliding_window, c.max_position_embeddings)
                                                        : c.max_position_embeddings;
    return {c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.num_attention_heads, c.vocab_size, positions};
  }
  // A weights file of a Hugging Face folder named instead of the folder: its header is no
  // llama2.c header, and the sizes read from it would be blamed on other keys.
  EMBPRIV_CHECK(std::filesystem::path(path).extension() != ".safetensors",
                "data.model '" << checkpoint_path << "' is a safetensors file; give the Hugging Face folder that "
                               << "holds it and its config.json (or a llama2.c .bin)");
  // llama2.c's header: seven int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
  // seq_len), a negative vocab_size marking an unshared classifier (run.c, read_checkpoint).
  std::ifstream in(path, std::ios::binary);
  std::int32_t header[7] = {};
  in.read(reinterpret_cast<char*>(header), sizeof header);
  EMBPRIV_CHECK(in, "cannot read the header of the llama2.c checkpoint " << checkpoint_path);
  const LanguageModelShape shape{header[0], header[1], header[2], header[3],
                                 std::abs(static_cast<std::int64_t>(header[5])), header[6]};
  // The file holds at least the token embedding (vocab x dim float32) after the header.
  const double bytes = static_cast<double>(std::filesystem::file_size(path, error));
  EMBPRIV_CHECK(!error && shape.dim > 0 && shape.hidden_dim > 0 && shape.layers > 0 && shape.heads > 0 &&
                    shape.vocab > 0 && 4.0 * static_cast<double>(shape.vocab) * static_cast<double>(shape.dim) <= bytes,
                "data.model '" << checkpoint_path << "' is not a llama2.c checkpoint (header dim=" << header[0]
                               << " vocab=" << header[5] << " does not fit its " << bytes << " bytes)");
  return shape;
}

void check_language_model_positions(const std::string& model, std::int64_t tokens) {
  const std::int64_t positions = read_language_model_shape(model).positions;
  EMBPRIV_CHECK(tokens < positions,
                "language_model.tokens " << tokens << " needs " << tokens + 1 << " positions, but data.model '" << model
                                         << "' has " << positions << " (max_position_embeddings of its "
                                         << "config.json, or a llama2.c seq_len); lower language_model.tokens to at most "
                                         << positions - 1);
}

double language_model_weight_bytes(const std::string& checkpoint_path) {
  const std::string path = resolve_data_path(checkpoint_path);
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    const std::uintmax_t size = std::filesystem::file_size(path, error);
    EMBPRIV_CHECK(!error, "cannot read the size of the checkpoint '" << path << "': " << error.message());
    return static_cast<double>(size);
  }
  // A Hugging Face folder: the safetensors files the load reads (model.safetensors or the shards
  // the index names; never other *.safetensors files, such as an interrupted download's, which
  // may be dangling links, folders or FIFOs), memory-mapped in their dtype, and the largest
  // float32 matrix a forward pass converts at a time (models/hf_decoder_model.h): at most the
  // embedding or the head, vocab_size x hidden_size.
  double files = 0;
  for (const std::string& file : hf_weight_files(path)) {
    const std::uintmax_t size = std::filesystem::file_size(file, error);
    EMBPRIV_CHECK(!error, "cannot read the size of '" << file << "': " << error.message());
    files += static_cast<double>(size);
  }
  const HfDecoderConfig c = read_hf_decoder_config(path);
  const double head = 4.0 * static_cast<double>(c.vocab_size) * static_cast<double>(c.hidden_size);
  // The model alone may not fit (a config.json with hidden_size 2^62): that is the model's
  // fault, not that of the run's size keys, so it is refused here naming the file and its keys.
  const std::string problem = batch_memory_problem(files + head);
  EMBPRIV_CHECK(problem.empty(), "data.model '" << checkpoint_path << "' (" << path << "/config.json: vocab_size "
                                                << c.vocab_size << ", hidden_size " << c.hidden_size
                                                << "): its weights with one float32 vocab_size x hidden_size matrix "
                                                << problem);
  return files + head;
}

double language_model_utility_bytes(const LanguageModelShape& m, std::int64_t texts, std::int64_t tokens) {
  const double positions = static_cast<double>(texts) * static_cast<double>(tokens + 1);
  // Per position: the clean and the perturbed logits (float32, kept together: 4 + 4 bytes a
  // vocabulary entry) and the float64 log-softmax of one of them with its temporary (8 + 8);
  // one layer's activations (float32: the residual stream, q, k, v, the attention output and
  // the RMS-normed input, 6 x dim, and the feed-forward's three hidden_dim vectors); the
  // attention scores and probabilities of every head over the text (2 x heads x tokens).
  const double per_position = 24.0 * static_cast<double>(m.vocab) +
                              4.0 * (6.0 * static_cast<double>(m.dim) + 3.0 * static_cast<double>(m.hidden_dim)) +
                              4.0 * 2.0 * static_cast<double>(m.heads) * static_cast<double>(tokens + 1);
  return positions * per_position;
}

}  // namespace embpriv
