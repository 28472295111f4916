#pragma once
// The timing rule every C++ bench of bench/ shares (bench/README.md): the best wall time of
// `repeats` runs, after one untimed warm-up run unless warm_up is false.
#include <algorithm>
#include <chrono>
#include <functional>

namespace embpriv {

inline double best_seconds(int repeats, const std::function<void()>& run, bool warm_up = true) {
  if (warm_up) run();
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

}  // namespace embpriv
