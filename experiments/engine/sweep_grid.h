#pragma once
// The grid of a sweep: the cartesian product of the `sweep:` lists (a `zip:` group varies its
// keys together, as one axis; an `any_of:` list of sweep blocks is one axis whose steps are the
// points of each block's own grid, one block after the other), times the seeds. Every row of the grid has a fixed index and an
// identity that depends only on its parameter values, so its random draws do not depend on the
// order of the sweep, on sharding, or on which other values the lists hold.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <vector>

namespace embpriv {

struct SweepAxis {
  std::vector<std::string> paths;             // one key, the keys of a zip group, or of any_of
  // steps[i][k]: the value of paths[k] at step i; undefined where an any_of block leaves
  // paths[k] at its configured value.
  std::vector<std::vector<YAML::Node>> steps;
  bool any_of = false;  // the axis of an any_of list: its keys do not vary together
};

struct Assignment {
  std::string path;
  YAML::Node value;
};

struct GridPoint {
  std::int64_t row = 0;        // index in the full grid: point index * seeds + replicate
  std::int64_t replicate = 0;  // 0 .. seeds-1
  std::uint64_t seed = 0;      // the replicate's run seed: config seed + replicate
  std::vector<Assignment> assignment;  // the swept values, in sweep order
  std::string key;             // canonical "path=value; ..." of the assignment
  std::uint64_t point_id = 0;  // hash of key: the "point" of derive_seed()
};

// The most rows (points x seeds) a grid may have: every row is held in memory and checked before
// any work, so a larger grid is refused before it is expanded.
constexpr std::int64_t kMaxGridRows = 1'000'000;

// The rows of the grid of `axes` times `seeds`, counted without overflow. Throws embpriv::Error
// when they exceed kMaxGridRows, naming the count (or saying that it overflows).
std::int64_t checked_grid_rows(const std::vector<SweepAxis>& axes, std::int64_t seeds);

// The axes of a (checked) sweep block, in the order they are written. Throws embpriv::Error when
// an any_of block sweeps a key twice, two of its steps are the same point, or its points exceed
// kMaxGridRows.
std::vector<SweepAxis> read_sweep_axes(const YAML::Node& sweep);
// Every swept key, in axis order.
std::vector<std::string> swept_paths(const std::vector<SweepAxis>& axes);
// The full grid: the last axis varies fastest, the replicate fastest of all. Throws
// embpriv::Error, before expanding anything, when the grid exceeds kMaxGridRows.
std::vector<GridPoint> expand_grid(const std::vector<SweepAxis>& axes, std::uint64_t seed,
                                   std::int64_t seeds);
// A point's config: base (defaults + document, without `sweep`) with the point's values set;
// whole maps first, then the keys inside them (so `mechanism` then `mechanism.epsilon`).
YAML::Node resolve_point(const YAML::Node& base, const GridPoint& point);

// Which 1/N of the rows shard i (1-based) of N runs: rows with row % N == i - 1.
struct Shard {
  std::int64_t index = 1, count = 1;
  bool contains(std::int64_t row) const { return row % count == index - 1; }
  std::string describe() const;
};
// Parses "i/N" (1 <= i <= N); throws embpriv::Error naming the problem.
Shard parse_shard(const std::string& text);

}  // namespace embpriv
