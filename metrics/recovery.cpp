#include "metrics/recovery.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <limits>

#include "core/error.h"

namespace embpriv {

double top_k_recovery(const at::Tensor& truth, const at::Tensor& guesses, std::int64_t k,
                      const at::Tensor& counted) {
  EMBPRIV_CHECK(truth.dim() == 1 && guesses.dim() == 2 && guesses.size(0) == truth.size(0),
                "recovery: truth must be [N] and guesses [N, k], got " << truth.sizes() << " and "
                                                                       << guesses.sizes());
  EMBPRIV_CHECK(k >= 1 && k <= guesses.size(1),
                "recovery: k must be in [1, " << guesses.size(1) << "], got " << k);
  const at::Tensor hit =
      (guesses.narrow(1, 0, k).to(at::kLong) == truth.to(guesses.device(), at::kLong).unsqueeze(1)).any(1);
  at::Tensor mask = counted.defined() ? counted.to(hit.device(), at::kBool) : at::ones_like(hit);
  EMBPRIV_CHECK(mask.sizes() == hit.sizes(), "recovery: the counted mask must have shape [N]");
  const double n = mask.sum().item<double>();
  if (n == 0) return std::numeric_limits<double>::quiet_NaN();
  return (hit & mask).sum().item<double>() / n;
}

std::int64_t longest_common_subsequence(const std::vector<std::int64_t>& a,
                                        const std::vector<std::int64_t>& b) {
  std::vector<std::int64_t> row(b.size() + 1, 0), previous(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::swap(row, previous);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      row[j] = a[i - 1] == b[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], row[j - 1]);
    }
  }
  return row[b.size()];
}

double rouge_l_f1(const std::vector<std::int64_t>& reference, const std::vector<std::int64_t>& candidate) {
  if (reference.empty() || candidate.empty()) return 0.0;
  const double lcs = static_cast<double>(longest_common_subsequence(reference, candidate));
  if (lcs == 0) return 0.0;
  const double precision = lcs / static_cast<double>(candidate.size());
  const double recall = lcs / static_cast<double>(reference.size());
  return 2 * precision * recall / (precision + recall);
}

}  // namespace embpriv
