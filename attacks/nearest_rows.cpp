#include "attacks/nearest_rows.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "platform/blas_threads.h"
#include "core/running_top_k.h"
#include "core/error.h"

namespace embpriv {

KnnMetric parse_knn_metric(std::string_view name) {
  if (name == "cosine") return KnnMetric::cosine;
  if (name == "l2") return KnnMetric::l2;
  throw Error("knn metric must be cosine or l2, got '" + std::string(name) + "'");
}

namespace {

// An Inf or NaN in a table row turns its cosine or distance into NaN, which topk ranks above
// every real score: refuse it, naming the first such row (excluded rows are never returned).
void check_table_rows_finite(const at::Tensor& table, const at::Tensor& excluded) {
  at::Tensor bad_rows = at::isfinite(table).all(1).logical_not();
  if (excluded.defined()) bad_rows = bad_rows.logical_and(excluded.logical_not());
  const at::Tensor bad = bad_rows.nonzero();
  EMBPRIV_CHECK(bad.size(0) == 0, "knn: the table holds NaN or Inf in row " << bad[0][0].item<std::int64_t>()
                                                                            << " (" << bad.size(0)
                                                                            << " such rows in all)");
}

// The k scores kept for each query [nq, k], computed again row by row in float64 in a fixed order,
// and the k sorted by them (best first; a tie goes to the lower row): the GEMM's last bits depend
// on the block's shape and on the BLAS's threads (seen with OpenBLAS's Haswell kernel on a Zen 5
// CPU), these do not, so the scores and their order are the same whatever the blocks, the chunks
// or the thread count. q [nq, d] raw queries; t [V, d] the table as searched (unit rows for
// cosine); cosine: q.t / ||q||; l2: -||q - t||^2.
void rescore_exactly(const at::Tensor& q, const at::Tensor& t, KnnMetric metric, at::Tensor& indices,
                     at::Tensor& scores) {
  const at::Tensor qc = q.contiguous(), tc = t.contiguous();
  const std::int64_t nq = qc.size(0), d = qc.size(1), k = indices.size(1);
  at::Tensor kept = indices.contiguous(), exact = at::empty({nq, k}, at::kFloat);
  const float* qp = qc.data_ptr<float>();
  const float* tp = tc.data_ptr<float>();
  const std::int64_t* ip = kept.data_ptr<std::int64_t>();
  float* sp = exact.data_ptr<float>();
  std::vector<std::pair<float, std::int64_t>> row(static_cast<std::size_t>(k));
  at::Tensor sorted = at::empty({nq, k}, at::kLong);
  std::int64_t* op = sorted.data_ptr<std::int64_t>();
  for (std::int64_t i = 0; i < nq; ++i) {
    const float* qi = qp + i * d;
    double q_squares = 0;
    for (std::int64_t c = 0; c < d; ++c) q_squares += static_cast<double>(qi[c]) * qi[c];
    const double q_norm = std::max(std::sqrt(q_squares), 1e-12);
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t r = ip[i * k + j];
      const float* tr = tp + r * d;
      double sum = 0;
      if (metric == KnnMetric::cosine) {
        for (std::int64_t c = 0; c < d; ++c) sum += static_cast<double>(qi[c]) * tr[c];
        sum /= q_norm;
      } else {
        for (std::int64_t c = 0; c < d; ++c) {
          const double diff = static_cast<double>(qi[c]) - tr[c];
          sum -= diff * diff;
        }
      }
      row[static_cast<std::size_t>(j)] = {static_cast<float>(sum), r};
    }
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    for (std::int64_t j = 0; j < k; ++j) {
      sp[i * k + j] = row[static_cast<std::size_t>(j)].first;
      op[i * k + j] = row[static_cast<std::size_t>(j)].second;
    }
  }
  indices = sorted;
  scores = exact;
}

// The CPU search: for each block of queries, one pass over the table in chunks, each chunk's
// scores [block, chunk] from one GEMM and merged into the block's running top-k
// (core/running_top_k.h). With several LibTorch threads the query blocks are split among them
// and every GEMM runs in its caller's thread (platform/blas_threads.h): a block's GEMM and its scan
// then share one core and its cache, and no thread pool waits on another. A score does not
// depend on the block it is computed in, so neither do the neighbours.
Neighbours nearest_rows_on_cpu(const at::Tensor& q_all, const at::Tensor& t_all, const at::Tensor& t_squared,
                               const at::Tensor& excluded, const KnnOptions& options, std::int64_t query_chunk) {
  const std::int64_t N = q_all.size(0), V = t_all.size(0);
  const int threads = at::get_num_threads();
  // With several threads: a multiple of the thread count of equal blocks, so that every thread
  // gets the same work (10,000 queries in blocks of 4096 would leave one thread 1,808 of them).
  if (threads > 1 && N > 0) {
    std::int64_t count = (N + query_chunk - 1) / query_chunk;
    count = (count + threads - 1) / threads * threads;
    query_chunk = std::max<std::int64_t>(1, (N + count - 1) / count);
  }
  const std::int64_t blocks = (N + query_chunk - 1) / query_chunk;
  std::vector<at::Tensor> indices(static_cast<std::size_t>(blocks)), scores(static_cast<std::size_t>(blocks));
  const auto search_block = [&](std::int64_t b) {
    const std::int64_t q0 = b * query_chunk;
    const at::Tensor q_raw = q_all.narrow(0, q0, std::min(query_chunk, N - q0));
    at::Tensor q = q_raw;
    if (options.metric == KnnMetric::cosine) q = q / q.norm(2, 1, true).clamp_min(1e-12);
    RunningTopK top(q.size(0), options.k);
    for (std::int64_t t0 = 0; t0 < V; t0 += options.table_chunk) {
      const std::int64_t n = std::min(options.table_chunk, V - t0);
      at::Tensor s = at::mm(q, t_all.narrow(0, t0, n).t());  // [nq, n]
      // l2: -||q - t||^2 = (2 q.t - ||t||^2) - ||q||^2, the last term once per row below.
      if (options.metric == KnnMetric::l2) s.mul_(2);
      top.add(s, t0, options.metric == KnnMetric::l2 ? t_squared.narrow(0, t0, n) : at::Tensor(),
              excluded.defined() ? excluded.narrow(0, t0, n) : at::Tensor());
    }
    at::Tensor block_indices = top.indices(), block_scores;
    rescore_exactly(q_raw, t_all, options.metric, block_indices, block_scores);
    indices[static_cast<std::size_t>(b)] = block_indices;
    scores[static_cast<std::size_t>(b)] = block_scores;
  };
  bool searched = false;
  if (threads > 1 && blocks > 1) {
    const SingleThreadedBlas blas;
    if (blas.in_caller_thread()) {
      at::parallel_for(0, blocks, 1, [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t b = begin; b < end; ++b) search_block(b);
      });
      searched = true;
    }
  }
  if (!searched) {  // one block at a time; the BLAS's own threads share each GEMM
    for (std::int64_t b = 0; b < blocks; ++b) search_block(b);
  }
  if (blocks == 0) return {at::empty({0, options.k}, at::kLong), at::empty({0, options.k}, at::kFloat)};
  return {at::cat(indices), at::cat(scores)};
}

}  // namespace

std::int64_t knn_query_chunk(const KnnOptions& options, std::int64_t dim) {
  return options.query_chunk > 0 ? options.query_chunk : dim < 256 ? 512 : 4096;
}

double knn_score_block_bytes(const KnnOptions& options, std::int64_t dim, std::int64_t table_rows) {
  const double block = static_cast<double>(knn_query_chunk(options, dim)) *
                       static_cast<double>(std::min(options.table_chunk, table_rows)) * 4.0;
  return 2.0 * block * static_cast<double>(at::get_num_threads());
}

Neighbours nearest_rows(const at::Tensor& queries, const at::Tensor& table, const KnnOptions& options) {
  EMBPRIV_CHECK(queries.dim() == 2 && table.dim() == 2 && queries.size(1) == table.size(1),
                "knn: queries must be [N, d] and the table [V, d] with the same d, got "
                    << queries.sizes() << " and " << table.sizes());
  EMBPRIV_CHECK(options.query_chunk >= 0 && options.table_chunk > 0,
                "knn: chunk sizes must be > 0 (query_chunk 0: chosen by d)");
  const std::int64_t query_chunk = knn_query_chunk(options, queries.size(1));
  const std::int64_t V = table.size(0);
  std::int64_t usable = V;
  at::Tensor excluded;
  if (options.excluded.defined()) {
    EMBPRIV_CHECK(options.excluded.dim() == 1 && options.excluded.size(0) == V,
                  "knn: the excluded mask must have shape [" << V << "]");
    excluded = options.excluded.to(table.device(), at::kBool);
    usable -= excluded.sum().item<std::int64_t>();
  }
  EMBPRIV_CHECK(options.k >= 1 && options.k <= usable,
                "knn: k must be in [1, " << usable << "] (the usable table rows), got " << options.k);
  EMBPRIV_CHECK(at::isfinite(queries).all().item<bool>(), "knn: the queries hold NaN or Inf");
  const at::Tensor q_all = queries.to(table.device(), at::kFloat);
  at::Tensor t_all = table.to(at::kFloat);
  at::Tensor t_squared;  // ||t||^2 per row, for l2
  at::Tensor row_sizes;  // what is computed per row anyway: ||t|| (cosine) or ||t||^2 (l2)
  if (options.metric == KnnMetric::cosine) {
    row_sizes = t_all.norm(2, 1, true);
    t_all = t_all / row_sizes.clamp_min(1e-12);
  } else {
    t_squared = t_all.pow(2).sum(1);
    row_sizes = t_squared;
  }
  // A NaN or Inf in a row makes its norm NaN or Inf, so the table is read element by element (to
  // name the row, and to let excluded rows pass) only when some row's norm is not finite: one pass
  // over the table fewer, the same verdict.
  if (!at::isfinite(row_sizes).all().item<bool>()) check_table_rows_finite(table, excluded);
  if (q_all.device().is_cpu()) return nearest_rows_on_cpu(q_all, t_all, t_squared, excluded, options, query_chunk);
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  std::vector<at::Tensor> indices, scores;
  for (std::int64_t q0 = 0; q0 < q_all.size(0); q0 += query_chunk) {
    at::Tensor q = q_all.narrow(0, q0, std::min(query_chunk, q_all.size(0) - q0));
    if (options.metric == KnnMetric::cosine) q = q / q.norm(2, 1, true).clamp_min(1e-12);
    at::Tensor best_scores, best_indices;  // elsewhere (CUDA): at::topk per chunk
    for (std::int64_t t0 = 0; t0 < V; t0 += options.table_chunk) {
      const std::int64_t n = std::min(options.table_chunk, V - t0);
      at::Tensor s = at::matmul(q, t_all.narrow(0, t0, n).t());  // [nq, n]
      if (options.metric == KnnMetric::l2) {
        // -||q - t||^2 = 2 q.t - ||t||^2 - ||q||^2; ||q||^2 is the same for every t of a row.
        s = 2 * s - t_squared.narrow(0, t0, n) - q.pow(2).sum(1, true);
      }
      if (excluded.defined()) s.masked_fill_(excluded.narrow(0, t0, n), minus_infinity);
      const std::int64_t take = std::min(options.k, n);
      auto [chunk_scores, chunk_indices] = s.topk(take, 1);
      chunk_indices += t0;
      if (!best_scores.defined()) {
        best_scores = chunk_scores;
        best_indices = chunk_indices;
      } else {  // the running top-k: the best k of (best so far, this chunk's best)
        const at::Tensor merged_scores = at::cat({best_scores, chunk_scores}, 1);
        const at::Tensor merged_indices = at::cat({best_indices, chunk_indices}, 1);
        auto [top_scores, position] = merged_scores.topk(std::min(options.k, merged_scores.size(1)), 1);
        best_scores = top_scores;
        best_indices = merged_indices.gather(1, position);
      }
    }
    indices.push_back(best_indices);
    scores.push_back(best_scores);
  }
  if (indices.empty()) {
    return {at::empty({0, options.k}, at::kLong), at::empty({0, options.k}, at::kFloat)};
  }
  return {at::cat(indices), at::cat(scores)};
}

}  // namespace embpriv
