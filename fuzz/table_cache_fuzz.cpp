// The binary cache of an embedding table (data/tables/embedding_table.h), and its source stamp.
#include "data/tables/embedding_table.h"
#include "fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = embpriv::fuzz::input_file(data, size, "table_cache");
  embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_table_cache_source(path); });
  return embpriv::fuzz::expect_only_embpriv_errors([&] { embpriv::read_table_cache(path); });
}
