#include "platform/memory_limit.h"

#include <unistd.h>

#include <cstdio>
#include <string>

#include "core/error.h"

namespace embpriv {

double physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  EMBPRIV_ASSERT(pages > 0 && page_size > 0,
                 "sysconf cannot tell the physical memory: " << pages << " pages of " << page_size);
  return static_cast<double>(pages) * static_cast<double>(page_size);
}

double batch_memory_limit_bytes() { return kBatchMemoryShare * physical_memory_bytes(); }

double batch_bytes(std::int64_t rows, std::int64_t cols, double bytes_per_value) {
  return static_cast<double>(rows) * static_cast<double>(cols) * bytes_per_value;
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 6) {
    bytes /= 1000.0;
    ++unit;
  }
  char text[64];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.3g %s", bytes, kUnits[unit]);
  return text;
}

std::string batch_memory_problem(double bytes) {
  const double limit = batch_memory_limit_bytes();
  if (bytes <= limit) return "";
  return "takes " + format_bytes(bytes) + ", more than the limit of " + format_bytes(limit) +
         " (half of this machine's " + format_bytes(physical_memory_bytes()) +
         " of physical memory)";
}

}  // namespace embpriv
