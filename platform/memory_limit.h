#pragma once
// The memory limit of one batch, declared once: experiment types compare their largest
// allocation (rows x dim values) with it before any work, so `data.dim: 1e9` is refused with
// the key named instead of allocating until the machine runs out of memory.
#include <cstdint>
#include <string>

namespace embpriv {

// The share of the machine's physical memory one batch may take.
inline constexpr double kBatchMemoryShare = 0.5;

// The machine's physical memory in bytes: sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE)
// (POSIX; Linux reports the installed RAM, not what is free).
double physical_memory_bytes();
// kBatchMemoryShare of physical_memory_bytes().
double batch_memory_limit_bytes();

// rows x cols x bytes_per_value, in double so that no product overflows.
double batch_bytes(std::int64_t rows, std::int64_t cols, double bytes_per_value);

// Why a batch of `bytes` does not fit: "takes 98.3 TB, more than the limit of 11.8 GB (half of
// this machine's 23.6 GB of physical memory)"; empty when bytes <= batch_memory_limit_bytes().
std::string batch_memory_problem(double bytes);

// "1.5 GB", "980 MB": a byte count for messages (decimal units).
std::string format_bytes(double bytes);

}  // namespace embpriv
