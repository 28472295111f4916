#include "experiments/engine/sweep_grid.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "core/error.h"
#include "core/rng.h"
#include "experiments/engine/config_document.h"

namespace embpriv {

namespace {

// The product a * b, or kMaxGridRows + 1 when it exceeds the limit (or overflows): a count
// that saturates, so a grid of 2^64 points cannot wrap around to a small number.
std::int64_t saturating_product(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product) || product > kMaxGridRows) return kMaxGridRows + 1;
  return product;
}

// The points of the product of `axes`, saturated at kMaxGridRows + 1.
std::int64_t saturating_point_count(const std::vector<SweepAxis>& axes) {
  std::int64_t points = 1;
  for (const SweepAxis& axis : axes) {
    points = saturating_product(points, static_cast<std::int64_t>(axis.steps.size()));
  }
  return points;
}

void check_point_count(std::int64_t points, const std::string& what) {
  EMBPRIV_CHECK(points <= kMaxGridRows, what << " has more than " << kMaxGridRows
                                             << " points (the limit of a sweep); sweep fewer values, or "
                                             << "split the sweep into several configs");
}

// Every step of the product of `axes` (the last axis varies fastest), as the values of `paths`.
std::vector<std::vector<YAML::Node>> product_steps(const std::vector<SweepAxis>& axes,
                                                   const std::vector<std::string>& paths);

SweepAxis any_of_axis(const YAML::Node& blocks) {
  SweepAxis axis;
  axis.any_of = true;
  std::vector<std::vector<SweepAxis>> block_axes;
  for (const auto& block : blocks) {
    block_axes.push_back(read_sweep_axes(block));
    std::vector<std::string> seen;
    for (const std::string& path : swept_paths(block_axes.back())) {
      EMBPRIV_CHECK(std::find(seen.begin(), seen.end(), path) == seen.end(),
                    "sweep.any_of: a block sweeps '" << path << "' twice");
      seen.push_back(path);
      if (std::find(axis.paths.begin(), axis.paths.end(), path) == axis.paths.end()) axis.paths.push_back(path);
    }
  }
  std::set<std::string> keys;
  std::int64_t total = 0;
  for (const auto& axes : block_axes) {
    total += saturating_point_count(axes);  // each term is at most kMaxGridRows + 1: no overflow
    check_point_count(total, "sweep.any_of");
  }
  for (const auto& axes : block_axes) {
    for (auto& step : product_steps(axes, axis.paths)) {
      std::string key;
      for (std::size_t k = 0; k < step.size(); ++k) {
        if (step[k].IsDefined()) key += axis.paths[k] + "=" + flow_yaml(step[k]) + "; ";
      }
      EMBPRIV_CHECK(keys.insert(key).second, "sweep.any_of: two blocks give the same point (" << key << ")");
      axis.steps.push_back(std::move(step));
    }
  }
  return axis;
}

std::vector<std::vector<YAML::Node>> product_steps(const std::vector<SweepAxis>& axes,
                                                   const std::vector<std::string>& paths) {
  // Step indices first (YAML::Node assignment would write through shared nodes), values last.
  std::vector<std::vector<std::size_t>> indices{{}};
  for (const SweepAxis& axis : axes) {
    std::vector<std::vector<std::size_t>> next;
    for (const auto& partial : indices) {
      for (std::size_t i = 0; i < axis.steps.size(); ++i) {
        next.push_back(partial);
        next.back().push_back(i);
      }
    }
    indices = std::move(next);
  }
  std::vector<std::vector<YAML::Node>> steps;
  for (const auto& choice : indices) {
    std::vector<YAML::Node> step;
    for (const std::string& path : paths) {
      YAML::Node value(YAML::NodeType::Undefined);  // left at its configured value
      for (std::size_t a = 0; a < axes.size(); ++a) {
        const auto at = std::find(axes[a].paths.begin(), axes[a].paths.end(), path);
        if (at != axes[a].paths.end()) value.reset(axes[a].steps[choice[a]][static_cast<std::size_t>(at - axes[a].paths.begin())]);
      }
      step.push_back(value);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace

std::vector<SweepAxis> read_sweep_axes(const YAML::Node& sweep) {
  std::vector<SweepAxis> axes;
  if (!sweep || !sweep.IsMap()) return axes;
  for (const auto& entry : sweep) {
    const std::string key = entry.first.as<std::string>();
    if (key == "any_of") {
      axes.push_back(any_of_axis(entry.second));
      continue;
    }
    if (key != "zip") {
      SweepAxis axis{{key}, {}};
      for (const auto& value : entry.second) axis.steps.push_back({value});
      axes.push_back(std::move(axis));
      continue;
    }
    for (const auto& group : entry.second) {
      SweepAxis axis;
      for (const auto& member : group) axis.paths.push_back(member.first.as<std::string>());
      const std::size_t length = group.begin()->second.size();
      for (std::size_t i = 0; i < length; ++i) {
        std::vector<YAML::Node> step;
        for (const auto& member : group) step.push_back(member.second[i]);
        axis.steps.push_back(std::move(step));
      }
      axes.push_back(std::move(axis));
    }
  }
  return axes;
}

std::int64_t checked_grid_rows(const std::vector<SweepAxis>& axes, std::int64_t seeds) {
  EMBPRIV_CHECK(seeds >= 1, "seeds must be >= 1, got " << seeds);
  const std::int64_t points = saturating_point_count(axes);
  check_point_count(points, "the sweep");
  const std::int64_t rows = saturating_product(points, seeds);
  EMBPRIV_CHECK(rows <= kMaxGridRows, "the sweep has " << points << " points x " << seeds
                                                      << " seeds, more than " << kMaxGridRows
                                                      << " rows (the limit of a sweep); use fewer seeds or values");
  return rows;
}

std::vector<std::string> swept_paths(const std::vector<SweepAxis>& axes) {
  std::vector<std::string> paths;
  for (const SweepAxis& axis : axes) paths.insert(paths.end(), axis.paths.begin(), axis.paths.end());
  return paths;
}

std::vector<GridPoint> expand_grid(const std::vector<SweepAxis>& axes, std::uint64_t seed,
                                   std::int64_t seeds) {
  const std::int64_t points = checked_grid_rows(axes, seeds) / seeds;
  std::vector<GridPoint> grid;
  grid.reserve(static_cast<std::size_t>(points * seeds));
  for (std::int64_t p = 0; p < points; ++p) {
    std::vector<Assignment> assignment;
    std::int64_t rest = p;
    std::vector<std::size_t> step_of(axes.size());
    for (std::size_t a = axes.size(); a-- > 0;) {  // the last axis varies fastest
      const auto n = static_cast<std::int64_t>(axes[a].steps.size());
      step_of[a] = static_cast<std::size_t>(rest % n);
      rest /= n;
    }
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (std::size_t k = 0; k < axes[a].paths.size(); ++k) {
        const YAML::Node& value = axes[a].steps[step_of[a]][k];
        if (value.IsDefined()) assignment.push_back({axes[a].paths[k], value});
      }
    }
    std::vector<std::string> parts;
    for (const Assignment& a : assignment) parts.push_back(a.path + "=" + flow_yaml(a.value));
    std::sort(parts.begin(), parts.end());
    std::string key;
    for (const std::string& part : parts) key += (key.empty() ? "" : "; ") + part;
    for (std::int64_t r = 0; r < seeds; ++r) {
      GridPoint point;
      point.row = p * seeds + r;
      point.replicate = r;
      point.seed = seed + static_cast<std::uint64_t>(r);
      point.assignment = assignment;
      point.key = key;
      point.point_id = fnv1a64(key);
      grid.push_back(std::move(point));
    }
  }
  return grid;
}

YAML::Node resolve_point(const YAML::Node& base, const GridPoint& point) {
  YAML::Node config = YAML::Clone(base);
  config.remove("sweep");
  std::vector<const Assignment*> order;
  for (const Assignment& a : point.assignment) order.push_back(&a);
  std::stable_sort(order.begin(), order.end(), [](const Assignment* a, const Assignment* b) {
    return split_path(a->path).size() < split_path(b->path).size();
  });
  for (const Assignment* a : order) set_path(config, a->path, YAML::Clone(a->value));
  return config;
}

std::string Shard::describe() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

Shard parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  Shard shard;
  try {
    EMBPRIV_CHECK(slash != std::string::npos, "");
    std::size_t used = 0;
    shard.index = std::stoll(text.substr(0, slash), &used);
    EMBPRIV_CHECK(used == slash, "");
    shard.count = std::stoll(text.substr(slash + 1), &used);
    EMBPRIV_CHECK(used == text.size() - slash - 1, "");
  } catch (const std::exception&) {
    throw Error("--shard must look like i/N (e.g. 2/8), got '" + text + "'");
  }
  EMBPRIV_CHECK(shard.count >= 1 && shard.index >= 1 && shard.index <= shard.count,
                "--shard i/N needs 1 <= i <= N, got '" << text << "'");
  return shard;
}

}  // namespace embpriv
