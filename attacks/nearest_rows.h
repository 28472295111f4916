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
  // 512 rows below d = 256, else 4096. A [query_chunk x table_chunk] score block is scanned
  // right after its GEMM, so it should stay in the CPU's caches: at d = 100 with two threads,
  // table chunks of 16384 instead of 2048 rows drop the search from 157 to 90 GFLOP/s
  // (bench/README.md). The results do not depend on the chunks.
  std::int64_t query_chunk = 0, table_chunk = 2048;
};

// queries [N, d], table [V, d] (float). Throws embpriv::Error on shapes, k > usable rows, NaN or
// Inf in a query or in a usable table row (naming the first such row).
Neighbours nearest_rows(const at::Tensor& queries, const at::Tensor& table, const KnnOptions& options);

// The query chunk nearest_rows uses for queries of dimension `dim` (options.query_chunk, or
// the default chosen by d when it is 0).
std::int64_t knn_query_chunk(const KnnOptions& options, std::int64_t dim);

// The most memory a CPU search over a table of `table_rows` rows of dimension `dim` holds in
// score blocks at once: one [query_chunk x table_chunk] float block and its copy for each of
// LibTorch's threads (the query blocks are split among them).
double knn_score_block_bytes(const KnnOptions& options, std::int64_t dim, std::int64_t table_rows);

}  // namespace embpriv
