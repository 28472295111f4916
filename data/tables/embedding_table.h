#pragma once
// A vocabulary and its embedding matrix [V, d] (float32, CPU): GloVe words, a tokenizer's
// pieces, or the rows of a user's model. Loaders for the formats users bring are in
// data/tables/embedding_formats.h; this file holds the table and embpriv's binary cache of it.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace embpriv {

class EmbeddingTable {
 public:
  EmbeddingTable() = default;
  // Checks one word per row, [V, d] floats, no NaN/Inf; later duplicates of a word keep the
  // first row for lookups.
  EmbeddingTable(std::vector<std::string> words, at::Tensor vectors, const std::string& origin);

  std::int64_t size() const { return static_cast<std::int64_t>(words_.size()); }
  std::int64_t dim() const { return vectors_.defined() ? vectors_.size(1) : 0; }
  const std::vector<std::string>& words() const { return words_; }
  const at::Tensor& vectors() const { return vectors_; }
  // The row of a word, or -1.
  std::int64_t index_of(const std::string& word) const;
  // The first n rows (GloVe is in frequency order: the n most frequent words).
  EmbeddingTable first(std::int64_t n) const;

 private:
  std::vector<std::string> words_;
  at::Tensor vectors_;
  std::unordered_map<std::string, std::int64_t> index_;
};

// What a cache was built from, so that a replaced, edited or emptied source makes its cache
// stale: the source file's size, its modification time and a hash of its first bytes.
struct SourceStamp {
  std::uint64_t size = 0;
  std::int64_t modified_ns = 0;  // nanoseconds since the file clock's epoch
  std::uint64_t head_hash = 0;   // FNV-1a of the first kStampedHeadBytes bytes
  bool operator==(const SourceStamp& other) const {
    return size == other.size && modified_ns == other.modified_ns && head_hash == other.head_hash;
  }
  bool operator!=(const SourceStamp& other) const { return !(*this == other); }
};
constexpr std::size_t kStampedHeadBytes = std::size_t{1} << 20;
// The stamp of a file as it is now; throws embpriv::Error when it cannot be read.
SourceStamp stamp_of_file(const std::string& path);

// embpriv's cache format: "EMBPRIVT" + uint32 version + int64 V + int64 d + V*d float32 (little
// endian) + the V words, each as uint32 length + bytes; then, when the cache was built from a
// source file, a trailer "EMBPRIVS" + uint64 size + int64 mtime (ns) + uint64 head hash (readers
// of version 1 stop after the words, so they read such a cache unchanged). Written atomically
// (core/atomic_file.h).
void write_table_cache(const std::string& path, const EmbeddingTable& table,
                       const std::optional<SourceStamp>& source = std::nullopt);
// Throws embpriv::Error naming the problem for a truncated or foreign file.
EmbeddingTable read_table_cache(const std::string& path);
// The source stamp in a cache's trailer, or nothing (no trailer, or no readable file).
std::optional<SourceStamp> read_table_cache_source(const std::string& path);

}  // namespace embpriv
