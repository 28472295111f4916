#include "platform/allocator_settings.h"

#include <malloc.h>

#include <cstdlib>
#include <initializer_list>

namespace embpriv {

void keep_freed_memory() {
  for (const char* variable : {"GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"}) {
    if (std::getenv(variable) != nullptr) return;  // the user's choice
  }
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
}

}  // namespace embpriv
