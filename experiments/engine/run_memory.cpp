#include "experiments/engine/run_memory.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/error.h"
#include "platform/memory_limit.h"

namespace embpriv {
namespace {

// "data.dim = 100000000 (with data.samples = 20000)": the size keys and their values at a point.
std::string size_keys_text(const MemoryEstimate& m, const YAML::Node& config) {
  std::ostringstream text;
  for (std::size_t i = 0; i < m.size_keys.size(); ++i) {
    const YAML::Node value = find_path(config, m.size_keys[i]);
    text << (i == 1 ? " (with " : i > 1 ? ", " : "") << m.size_keys[i] << " = "
         << (value ? flow_yaml(value) : std::string("?"));
  }
  if (m.size_keys.size() > 1) text << ")";
  return text.str();
}

// "lower data.dim or data.samples".
std::string lower_keys_text(const std::vector<std::string>& keys) {
  std::string text = "lower ";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == keys.size() ? " or " : ", ") + keys[i];
  }
  return text;
}

}  // namespace

RunMemory estimate_run_memory(const RunPlan& plan, const Shard& shard) {
  RunMemory memory;
  std::map<std::string, double> shared;  // RunCache entries of the run, counted once each
  double largest_working = 0;
  for (const GridPoint& point : plan.grid) {
    if (!shard.contains(point.row)) continue;
    const MemoryEstimate m = plan.type->estimate_memory(resolve_point(plan.base, point));
    if (!memory.largest_point || m.peak_bytes() > memory.largest.peak_bytes()) {
      memory.largest_point = &point;
      memory.largest = m;
    }
    largest_working = std::max(largest_working, m.working_bytes);
    if (m.shared_bytes > 0) {
      const std::string key = m.shared_key + (m.shared_per_seed ? "|seed " + std::to_string(point.seed) : "");
      shared[key] = std::max(shared[key], m.shared_bytes);
    }
  }
  memory.run_bytes = largest_working;
  for (const auto& entry : shared) memory.run_bytes += entry.second;
  memory.shared_entries = shared.size();
  return memory;
}

void check_run_memory(const RunPlan& plan, const RunMemory& memory) {
  if (!memory.largest_point) return;
  const MemoryEstimate& m = memory.largest;
  const GridPoint& point = *memory.largest_point;
  const YAML::Node config = resolve_point(plan.base, point);
  const std::string first_key = m.size_keys.empty() ? "type" : m.size_keys.front();
  const std::string where = point_location(plan, point, first_key);
  const std::string point_problem = batch_memory_problem(m.peak_bytes());
  EMBPRIV_CHECK(point_problem.empty(), where << ": " << size_keys_text(m, config) << ": one grid point needs "
                                             << m.what << ", which " << point_problem << "; "
                                             << lower_keys_text(m.size_keys));
  const std::string run_problem = batch_memory_problem(memory.run_bytes);
  EMBPRIV_CHECK(run_problem.empty(),
                where << ": " << size_keys_text(m, config) << ": the run keeps the shared data of "
                      << memory.shared_entries << " settings (seeds x sweep values) until it ends; with the "
                      << "largest point's working memory that " << run_problem << "; "
                      << lower_keys_text(m.size_keys) << ", or split the sweep into several runs or shards");
}

}  // namespace embpriv
