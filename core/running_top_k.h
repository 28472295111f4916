#pragma once
// The k largest scores of each row of a [rows, V] score matrix that arrives in column chunks
// (the KNN attack's GEMM over a vocabulary, GUIDE.md sec. 6), without ever holding [rows, V].
// On the CPU one pass over each chunk: a value enters a row's list only when it beats the
// row's k-th best, so almost every score costs one comparison (at::topk would copy and
// partially sort every chunk). Ties keep the lower column first, whatever the chunking and the
// thread count.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <vector>

namespace embpriv {

// Offers (score, column) to one row's list of the k best so far, best[0..k) sorted descending
// (unfilled places hold -inf): kept when it beats the k-th best, inserted after every kept
// score >= it, so that among equal scores the column offered first stays first. Offering a
// row's columns in increasing order therefore breaks ties towards the lower column. -inf and
// NaN are never kept.
inline void offer_top_k(float* best, std::int64_t* column, std::int64_t k, float score, std::int64_t index) {
  if (!(score > best[k - 1])) return;
  std::int64_t at = k - 1;
  while (at > 0 && best[at - 1] < score) {
    best[at] = best[at - 1];
    column[at] = column[at - 1];
    --at;
  }
  best[at] = score;
  column[at] = index;
}

class RunningTopK {
 public:
  RunningTopK(std::int64_t rows, std::int64_t k);
  // Merges a chunk: scores [rows, n] (float, CPU) of columns first .. first + n - 1. Optional:
  // column_offset [n] is subtracted from every row's scores first (score = s - column_offset),
  // and excluded [n] (bool) columns are skipped.
  void add(const at::Tensor& scores, std::int64_t first, const at::Tensor& column_offset = {},
           const at::Tensor& excluded = {});
  // Columns [rows, k] (int64, best first) and their scores [rows, k] (float); a row that saw
  // fewer than k columns is padded with index -1 and score -inf.
  at::Tensor indices() const;
  at::Tensor scores() const;

 private:
  std::int64_t rows_, k_;
  std::vector<float> best_scores_;          // [rows, k], each row sorted descending
  std::vector<std::int64_t> best_columns_;  // [rows, k]
};

}  // namespace embpriv
