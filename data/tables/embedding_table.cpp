#include "data/tables/embedding_table.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/atomic_file.h"
#include "core/error.h"
#include "core/rng.h"

namespace embpriv {
namespace {

constexpr char kMagic[8] = {'E', 'M', 'B', 'P', 'R', 'I', 'V', 'T'};
constexpr std::uint32_t kVersion = 1;
constexpr char kSourceMagic[8] = {'E', 'M', 'B', 'P', 'R', 'I', 'V', 'S'};
constexpr std::int64_t kTrailerBytes = 8 + 3 * 8;

void write_source_trailer(std::ostream& out, const SourceStamp& source) {
  out.write(kSourceMagic, 8);
  out.write(reinterpret_cast<const char*>(&source.size), 8);
  out.write(reinterpret_cast<const char*>(&source.modified_ns), 8);
  out.write(reinterpret_cast<const char*>(&source.head_hash), 8);
}

// An Inf or NaN in one row poisons every similarity with it: refuse the table, naming the first
// such row and its word.
void check_rows_finite(const at::Tensor& vectors, const std::vector<std::string>& words, const std::string& origin) {
  const at::Tensor bad = at::isfinite(vectors).all(1).logical_not().nonzero();
  if (bad.size(0) == 0) return;
  const auto row = static_cast<std::size_t>(bad[0][0].item<std::int64_t>());
  throw Error(origin + ": embeddings hold NaN or Inf in row " + std::to_string(row) + " ('" + words[row] + "'; " +
              std::to_string(bad.size(0)) + " such rows in all)");
}

}  // namespace

EmbeddingTable::EmbeddingTable(std::vector<std::string> words, at::Tensor vectors,
                               const std::string& origin)
    : words_(std::move(words)) {
  EMBPRIV_CHECK(vectors.dim() == 2, origin << ": embeddings must be a matrix [V, d], got " << vectors.sizes());
  EMBPRIV_CHECK(vectors.size(0) == static_cast<std::int64_t>(words_.size()),
                origin << ": " << vectors.size(0) << " rows but " << words_.size() << " words");
  EMBPRIV_CHECK(vectors.size(1) >= 1, origin << ": embeddings have no columns");
  vectors_ = vectors.to(at::kCPU, at::kFloat).contiguous();
  check_rows_finite(vectors_, words_, origin);
  index_.reserve(words_.size());
  for (std::size_t i = 0; i < words_.size(); ++i) index_.emplace(words_[i], static_cast<std::int64_t>(i));
}

std::int64_t EmbeddingTable::index_of(const std::string& word) const {
  const auto found = index_.find(word);
  return found == index_.end() ? -1 : found->second;
}

EmbeddingTable EmbeddingTable::first(std::int64_t n) const {
  EMBPRIV_CHECK(n >= 1, "a vocabulary needs at least one word, got " << n);
  n = std::min(n, size());
  return EmbeddingTable(std::vector<std::string>(words_.begin(), words_.begin() + n),
                        vectors_.narrow(0, 0, n).clone(), "the first rows");
}

SourceStamp stamp_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read '" << path << "'");
  std::string head(kStampedHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  std::error_code size_error, time_error;
  SourceStamp stamp;
  stamp.size = std::filesystem::file_size(path, size_error);
  const auto modified = std::filesystem::last_write_time(path, time_error);
  EMBPRIV_CHECK(!size_error && !time_error, "cannot read the size and time of '" << path << "'");
  stamp.modified_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(modified.time_since_epoch()).count();
  stamp.head_hash = fnv1a64(head);
  return stamp;
}

void write_table_cache(const std::string& path, const EmbeddingTable& table,
                       const std::optional<SourceStamp>& source) {
  const std::filesystem::path target(path);
  if (target.has_parent_path()) std::filesystem::create_directories(target.parent_path());
  write_file_atomically(path, [&](std::ostream& out) {
    const std::int64_t V = table.size(), d = table.dim();
    out.write(kMagic, 8);
    out.write(reinterpret_cast<const char*>(&kVersion), 4);
    out.write(reinterpret_cast<const char*>(&V), 8);
    out.write(reinterpret_cast<const char*>(&d), 8);
    out.write(reinterpret_cast<const char*>(table.vectors().data_ptr<float>()),
              static_cast<std::streamsize>(V * d * 4));
    for (const std::string& word : table.words()) {
      const auto length = static_cast<std::uint32_t>(word.size());
      out.write(reinterpret_cast<const char*>(&length), 4);
      out.write(word.data(), length);
    }
    if (source) write_source_trailer(out, *source);
  });
}

EmbeddingTable read_table_cache(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read embedding cache '" << path << "'");
  char magic[8] = {};
  std::uint32_t version = 0;
  std::int64_t V = 0, d = 0;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&version), 4);
  in.read(reinterpret_cast<char*>(&V), 8);
  in.read(reinterpret_cast<char*>(&d), 8);
  EMBPRIV_CHECK(in && std::memcmp(magic, kMagic, 8) == 0 && version == kVersion,
                path << " is not an embpriv embedding cache (version " << kVersion << ")");
  EMBPRIV_CHECK(V >= 1 && d >= 1 && V < (std::int64_t{1} << 32) && d < (1 << 20),
                path << ": implausible shape [" << V << ", " << d << "]");
  // The vectors (V x d float32) and a length per word must fit in the file: a header claiming
  // more is refused before V x d values are allocated.
  std::error_code error;
  const auto file_bytes = static_cast<double>(std::filesystem::file_size(path, error));
  EMBPRIV_CHECK(!error && static_cast<double>(V) * static_cast<double>(d) * 4 + static_cast<double>(V) * 4 <= file_bytes,
                path << " is truncated: its header claims " << V << " x " << d << " vectors, more than its "
                     << file_bytes << " bytes hold");
  at::Tensor vectors = at::empty({V, d}, at::kFloat);
  in.read(reinterpret_cast<char*>(vectors.data_ptr<float>()), static_cast<std::streamsize>(V * d * 4));
  EMBPRIV_CHECK(in, path << " is truncated: it ends inside the vectors");
  std::vector<std::string> words(static_cast<std::size_t>(V));
  for (auto& word : words) {
    std::uint32_t length = 0;
    in.read(reinterpret_cast<char*>(&length), 4);
    EMBPRIV_CHECK(in && length < (1u << 20), path << " is truncated: it ends inside the words");
    word.resize(length);
    in.read(word.data(), length);
    EMBPRIV_CHECK(in, path << " is truncated: it ends inside the words");
  }
  return EmbeddingTable(std::move(words), vectors, path);
}

std::optional<SourceStamp> read_table_cache_source(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || static_cast<std::int64_t>(in.tellg()) < kTrailerBytes) return std::nullopt;
  in.seekg(-kTrailerBytes, std::ios::end);
  char magic[8] = {};
  SourceStamp stamp;
  in.read(magic, 8);
  in.read(reinterpret_cast<char*>(&stamp.size), 8);
  in.read(reinterpret_cast<char*>(&stamp.modified_ns), 8);
  in.read(reinterpret_cast<char*>(&stamp.head_hash), 8);
  if (!in || std::memcmp(magic, kSourceMagic, 8) != 0) return std::nullopt;
  return stamp;
}

}  // namespace embpriv
