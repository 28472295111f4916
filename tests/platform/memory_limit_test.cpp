// Tests of platform/memory_limit.h: the batch memory limit every experiment type checks.
#include "platform/memory_limit.h"

#include <unistd.h>

#include "tests/catch.h"

using Catch::Matchers::Contains;

TEST_CASE("the batch memory limit is half the machine's physical memory", "[limits]") {
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) *
                          static_cast<double>(sysconf(_SC_PAGESIZE));
  CHECK(embpriv::physical_memory_bytes() == physical);
  CHECK(embpriv::batch_memory_limit_bytes() == 0.5 * physical);
  CHECK(physical > 1e8);  // any machine that builds LibTorch has more than 100 MB
}

TEST_CASE("batch sizes are counted without overflow and refused above the limit", "[limits]") {
  // 4096 rows x 1e9 values x 24 bytes = 9.8304e13 bytes: exact in double; the same product in
  // int64 at dim 1e18 would wrap around.
  CHECK(embpriv::batch_bytes(4096, 1000000000, 24) == 98304000000000.0);
  CHECK(embpriv::batch_bytes(4096, 1000000000000000000, 24) > 9e22);
  CHECK(embpriv::batch_memory_problem(1.0).empty());
  CHECK(embpriv::batch_memory_problem(embpriv::batch_memory_limit_bytes()).empty());
  const std::string problem = embpriv::batch_memory_problem(98304000000000.0);
  CHECK_THAT(problem, Contains("takes 98.3 TB") && Contains("physical memory"));
  CHECK(embpriv::format_bytes(512) == "512 bytes");
  CHECK(embpriv::format_bytes(1.5e9) == "1.5 GB");
}
