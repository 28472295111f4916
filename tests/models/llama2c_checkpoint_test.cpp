// The llama2.c checkpoint loader refuses non-finite weights, naming the tensor, on copies of the
// real stories260K checkpoint with one weight overwritten.
#include "tests/catch.h"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>

#include "core/error.h"
#include "models/llama2c_checkpoint.h"
#include "tests/test_data.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

namespace {

constexpr std::int64_t kHeaderBytes = 28;

// Copies stories260K to `path` and overwrites the float at index `weight` (counted from the
// first weight after the header) with `value`.
void write_checkpoint_with(const std::string& path, std::int64_t weight, float value) {
  std::filesystem::copy_file(stories260k_checkpoint(), path, std::filesystem::copy_options::overwrite_existing);
  std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
  file.seekp(kHeaderBytes + 4 * weight);
  file.write(reinterpret_cast<const char*>(&value), 4);
  REQUIRE(file);
}

}  // namespace

TEST_CASE("a NaN or Inf weight in a llama2.c checkpoint is refused, naming the tensor", "[models]") {
  TempDir dir("embpriv_checkpoint_test");
  const Llama2cConfig c = load_llama2c_checkpoint(stories260k_checkpoint()).config;
  // stories260K: token embedding [512, 64], then rms_att_weight [5, 64], then wq [5, 64, 64].
  REQUIRE(c.vocab_size == 512);
  REQUIRE(c.dim == 64);
  const std::int64_t embedding_row_7 = 7 * c.dim + 2;
  write_checkpoint_with(dir / "nan_embedding.bin", embedding_row_7, std::nanf(""));
  CHECK_THROWS_WITH(load_llama2c_checkpoint(dir / "nan_embedding.bin"),
                    Contains("the token embedding holds a non-finite weight (NaN or Inf) at [7, 2] (1 in all)"));
  const std::int64_t first_wq = c.vocab_size * c.dim + c.n_layers * c.dim;
  const std::int64_t wq_layer_1 = first_wq + c.dim * c.dim + 3 * c.dim + 5;
  write_checkpoint_with(dir / "inf_wq.bin", wq_layer_1, std::numeric_limits<float>::infinity());
  CHECK_THROWS_WITH(load_llama2c_checkpoint(dir / "inf_wq.bin"),
                    Contains("wq holds a non-finite weight (NaN or Inf) at [1, 3, 5]"));
  // The unused RoPE table (freq_cis) is skipped, not read: a NaN there changes nothing.
  const std::int64_t weights_before_rope = c.vocab_size * c.dim + c.n_layers * (2 * c.dim + 2 * c.dim * c.dim +
                                           2 * c.kv_dim() * c.dim + 3 * c.hidden_dim * c.dim) + c.dim;
  write_checkpoint_with(dir / "nan_rope.bin", weights_before_rope, std::nanf(""));
  CHECK(load_llama2c_checkpoint(dir / "nan_rope.bin").token_embedding.size(0) == 512);
}
