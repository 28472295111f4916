// The binary cache of an embedding table against hostile files (inputs found by fuzz/
// table_cache_fuzz): a header claiming more vectors than the file holds is refused before the
// vectors are allocated.
#include "tests/catch.h"

#include "core/error.h"
#include "data/tables/embedding_table.h"
#include "tests/test_temp_dir.h"

using namespace embpriv;
using Catch::Matchers::Contains;

TEST_CASE("a table cache whose header claims more vectors than the file holds is refused before allocating", "[data]") {
  TempDir dir("embpriv_table_cache_claims_test");
  // V = 0xcd000003 rows of d = 2 (27 GB) in 73 bytes: the fuzzer's input, as it found it.
  const std::string crash(
      "\x45\x4d\x42\x50\x52\x49\x56\x54\x01\x00\x00\x00\x03\x00\x00\xcd"
      "\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00"
      "\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x02"
      "\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\xfe\x63"
      "\x34\x74\x03\x00\x00\x00\x73\x61\x74",
      73);
  write_file(dir / "claims.embt", crash);
  CHECK_THROWS_WITH(read_table_cache(dir / "claims.embt"),
                    Contains("is truncated: its header claims 3439329283 x 2 vectors, more than its 73 bytes hold"));
}
