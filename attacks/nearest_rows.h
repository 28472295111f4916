#pragma once
// The KNN embedding-inversion attack: for each (perturbed) embedding, the k nearest rows of a
// vocabulary's embedding table, by cosine similarity or L2 distance. Chunked GEMM with a
// running top-k: memory stays O(query_chunk x table_chunk) whatever V is (GUIDE.md, sec. 6).
// Runs on the device of the inputs (a CUDA table stays on the GPU).
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string_view>

namespace embpriv {

enum class KnnMetric { cosine, l2 };
KnnMetric parse_knn_metric(std::string_view name);  // "cosine" | "l2"

struct Neighbours {
  at::Tensor indices;  // [N, k] int64: table rows, best first
  at::Tensor scores;   // [N, k] float: cosine, or -||q - t||^2 for l2 (larger is nearer)
};

struct KnnOptions {
  KnnMetric metric = KnnMetric::cosine;
  std::int64_t k = 5;
  at::Tensor excluded;  // optional bool [V]: rows never returned (special tokens)
  // Rows of the queries and of the table per GEMM. query_chunk 0 (the default) chooses by d:
  // 256 rows below d = 256, where a [rows x table_chunk] score block much larger than the CPU's
  // caches makes the GEMM bound by its writes (d = 100: 34 -> 64 GFLOP/s measured with 256
  // instead of 4096 rows), else 4096. The results do not depend on the chunks.
  std::int64_t query_chunk = 0, table_chunk = 16384;
};

// queries [N, d], table [V, d] (float). Throws embpriv::Error on shapes, k > usable rows, NaN or
// Inf in a query or in a usable table row (naming the first such row).
Neighbours nearest_rows(const at::Tensor& queries, const at::Tensor& table, const KnnOptions& options);

}  // namespace embpriv
