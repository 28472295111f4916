#include "data/tokenizers/bpe_merge.h"

#include <queue>

namespace embpriv {
namespace {

std::uint64_t pair_key(std::int64_t left, std::int64_t right) {
  return (static_cast<std::uint64_t>(left) << 32) ^ static_cast<std::uint64_t>(static_cast<std::uint32_t>(right));
}

struct Candidate {
  std::int64_t rank;
  std::size_t pos;  // the left symbol's index (stable: merged symbols keep the left index)
  std::int64_t merged;
  // std::priority_queue pops the largest: the "largest" is the lowest rank, then leftmost.
  bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
};

}  // namespace

void MergeTable::add(std::int64_t left, std::int64_t right, std::int64_t merged) {
  merges_[pair_key(left, right)] = Merge{next_rank_++, merged};
}

const MergeTable::Merge* MergeTable::find(std::int64_t left, std::int64_t right) const {
  const auto found = merges_.find(pair_key(left, right));
  return found == merges_.end() ? nullptr : &found->second;
}

std::vector<std::int64_t> bpe_merge(const std::vector<std::int64_t>& symbols, const MergeTable& merges) {
  const std::size_t n = symbols.size();
  if (n < 2) return symbols;
  std::vector<std::int64_t> id = symbols;
  std::vector<std::size_t> next(n), prev(n);
  std::vector<bool> alive(n, true);
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < n; ++i) {
    next[i] = i + 1 < n ? i + 1 : kNone;
    prev[i] = i > 0 ? i - 1 : kNone;
  }
  std::priority_queue<Candidate> queue;
  const auto consider = [&](std::size_t left) {
    if (left == kNone || next[left] == kNone) return;
    if (const MergeTable::Merge* m = merges.find(id[left], id[next[left]])) queue.push({m->rank, left, m->merged});
  };
  for (std::size_t i = 0; i + 1 < n; ++i) consider(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    // A stale candidate: its left symbol merged away, or its pair changed since it was queued.
    if (!alive[top.pos] || next[top.pos] == kNone) continue;
    const std::size_t right = next[top.pos];
    const MergeTable::Merge* m = merges.find(id[top.pos], id[right]);
    if (m == nullptr || m->rank != top.rank || m->merged != top.merged) continue;
    id[top.pos] = top.merged;
    alive[right] = false;
    next[top.pos] = next[right];
    if (next[right] != kNone) prev[next[right]] = top.pos;
    consider(prev[top.pos]);
    consider(top.pos);
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i != kNone; i = next[i]) out.push_back(id[i]);
  return out;
}

}  // namespace embpriv
