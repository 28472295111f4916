// glibc keeps freed blocks up to 64 MiB in the heap (platform/allocator_settings.h); tests/main.cpp
// calls keep_freed_memory() as the embpriv binary's main() does.
#include "tests/catch.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

#include "platform/allocator_settings.h"

TEST_CASE("a freed 32 MiB block stays in the process's heap instead of going back to the kernel", "[core]") {
#if defined(__SANITIZE_ADDRESS__)
  WARN("skipped: AddressSanitizer replaces glibc's malloc, so mallopt() and mallinfo2() do not apply");
  return;
#endif
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("MALLOC_MMAP_THRESHOLD_") || std::getenv("MALLOC_TRIM_THRESHOLD_")) {
    WARN("skipped: malloc is tuned by the environment, which keep_freed_memory() leaves alone");
    return;
  }
  embpriv::keep_freed_memory();
  constexpr std::size_t kBlock = 32u << 20;
  const struct mallinfo2 before = mallinfo2();
  void* block = std::malloc(kBlock);
  REQUIRE(block != nullptr);
  std::memset(block, 1, kBlock);
  const struct mallinfo2 held = mallinfo2();
  // From the heap (arena), not from its own mmap: glibc's default would map a block this size
  // (without keep_freed_memory() both checks fail). In-use heap bytes, not the heap's size: a
  // process that already freed that much (every test case in one process) reuses its free heap.
  CHECK(held.hblkhd == before.hblkhd);
  CHECK(held.uordblks >= before.uordblks + kBlock);
  std::free(block);
  // Freed, it stays as free heap memory for the next tensor of that size.
  CHECK(mallinfo2().fordblks >= kBlock);
}
