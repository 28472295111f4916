#pragma once
// What every C++ bench of bench/ measures (bench/README.md): the best wall time of `repeats`
// runs, after one untimed warm-up run unless warm_up is false, and the process's peak resident
// memory.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <functional>

namespace embpriv {

// The wall time of one call of `run`, in seconds.
inline double seconds_of(const std::function<void()>& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double best_seconds(int repeats, const std::function<void()>& run, bool warm_up = true) {
  if (warm_up) run();
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) best = std::min(best, seconds_of(run));
  return best;
}

// The peak resident memory of this process so far, in MiB (getrusage's ru_maxrss is in KiB on
// Linux).
inline double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

}  // namespace embpriv
