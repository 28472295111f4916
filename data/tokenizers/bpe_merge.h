#pragma once
// The rank-based BPE merge of one word (Sennrich et al. 2016, as HF tokenizers' BPE model
// applies it): repeatedly merge the adjacent pair with the lowest merge rank, the leftmost of
// equal ranks, until no adjacent pair has a merge. A min-heap of candidate pairs over a linked
// list of symbols makes it O(n log n) in the word's length n.
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace embpriv {

class MergeTable {
 public:
  // Adds the merge (left, right) -> merged with the next rank (the order of tokenizer.json's
  // "merges"); a pair given again takes its later rank, as a map built from the list does.
  void add(std::int64_t left, std::int64_t right, std::int64_t merged);
  std::size_t size() const { return merges_.size(); }

  struct Merge {
    std::int64_t rank, merged;
  };
  const Merge* find(std::int64_t left, std::int64_t right) const;

 private:
  std::unordered_map<std::uint64_t, Merge> merges_;
  std::int64_t next_rank_ = 0;
};

// The ids of `symbols` after every merge applies.
std::vector<std::int64_t> bpe_merge(const std::vector<std::int64_t>& symbols, const MergeTable& merges);

}  // namespace embpriv
