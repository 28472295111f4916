#pragma once
// What one grid point holds in memory at its peak, estimated from its config before any work
// (ExperimentType::estimate_memory): the engine refuses a point or a run that would not fit in
// the batch memory limit (platform/memory_limit.h), naming the keys that drive the size, and the dry
// run prints the estimate next to the time.
#include <string>
#include <vector>

namespace embpriv {

struct MemoryEstimate {
  // The tensors the point holds at once at its peak; freed when the point ends.
  double working_bytes = 0;
  // Data the point keeps in the run's RunCache (a table, a model, shared inputs): held until the
  // run ends. Points with the same shared_key share it; the engine counts each key once per run
  // (once per seed when shared_per_seed: the cached data depend on the seed).
  double shared_bytes = 0;
  std::string shared_key;
  bool shared_per_seed = false;
  // The config keys that drive the size, most important first ("data.dim", "data.samples").
  std::vector<std::string> size_keys;
  // What the peak holds, for messages: "one chunk of 4096 rows x 4096 values, 24 bytes each".
  std::string what;

  double peak_bytes() const { return working_bytes + shared_bytes; }
};

}  // namespace embpriv
