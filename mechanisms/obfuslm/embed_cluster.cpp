#include "mechanisms/obfuslm/embed_cluster.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"
#include "mechanisms/obfuslm/similarity_candidates.h"

namespace embpriv {
namespace {

void check_options(std::int64_t k, double threshold) {
  EMBPRIV_CHECK(k >= 1, "obfuslm: the cluster size k must be >= 1, got " << k);
  EMBPRIV_CHECK(threshold >= 0 && threshold <= 1,
                "obfuslm: the cluster threshold (beta) must be in [0, 1], got " << threshold);
}

std::vector<std::int64_t> visiting_order(std::int64_t V, const EmbedClusterOptions& options) {
  std::vector<std::int64_t> order(static_cast<std::size_t>(V));
  std::iota(order.begin(), order.end(), 0);
  if (options.order == ClusterOrder::random) {  // Fisher-Yates from one seeded stream
    Rng rng(derive_seed(options.seed, 0, "obfuslm.cluster_order"), 0);
    shuffle(order, rng);
  }
  return order;
}

}  // namespace

ClusterOrder parse_cluster_order(std::string_view name) {
  if (name == "index") return ClusterOrder::index;
  if (name == "random") return ClusterOrder::random;
  throw Error("obfuslm: order must be index or random, got '" + std::string(name) + "'");
}

std::vector<std::int64_t> Clusters::cluster_of() const {
  std::vector<std::int64_t> of(members.size(), -1);
  for (std::int64_t c = 0; c < count(); ++c) {
    for (std::int64_t m = offsets[c]; m < offsets[c + 1]; ++m) of[static_cast<std::size_t>(members[m])] = c;
  }
  return of;
}

Clusters embed_cluster(const at::Tensor& table, const EmbedClusterOptions& options, EmbedClusterStats* stats) {
  check_options(options.k, options.threshold);
  const at::Tensor unit = unit_rows(table);
  const std::int64_t V = unit.size(0);
  Clusters clusters;
  clusters.offsets.push_back(0);
  const std::vector<std::int64_t> order = visiting_order(V, options);
  if (options.k == 1 || V == 1) {  // singletons: no similarity needed
    for (std::int64_t i : order) {
      clusters.members.push_back(i);
      clusters.offsets.push_back(static_cast<std::int64_t>(clusters.members.size()));
    }
    return clusters;
  }
  CandidateOptions candidate_options{options.candidates > 0 ? options.candidates : 2 * options.k + 16,
                                     options.block};
  const std::int64_t C = std::min(candidate_options.candidates, V - 1);
  candidate_options.candidates = C;
  at::Tensor thresholds;  // gamma_i, float: compared with float cosines as the slab holds them
  SimilarCandidates lists = most_similar_rows(unit, at::arange(V, at::kLong), at::Tensor(), at::Tensor(),
                                              candidate_options, options.threshold, &thresholds);
  // Candidates below gamma_i never join i's cluster: drop them now (the floor of a refill too).
  const at::Tensor floor = thresholds.to(at::kFloat);
  lists.indices.masked_fill_(lists.scores < floor.unsqueeze(1), -1);
  // One row per vocabulary row; a refill overwrites the rows it recomputes.
  at::Tensor list_tensor = lists.indices.contiguous();
  std::int64_t* list = list_tensor.data_ptr<std::int64_t>();

  std::vector<char> assigned(static_cast<std::size_t>(V), 0);
  EmbedClusterStats counted;
  for (std::size_t position = 0; position < order.size(); ++position) {
    const std::int64_t i = order[position];
    if (assigned[static_cast<std::size_t>(i)]) continue;
    assigned[static_cast<std::size_t>(i)] = 1;
    clusters.members.push_back(i);
    std::int64_t size = 1;
    while (size < options.k) {
      const std::int64_t* candidates = list + i * C;
      std::int64_t c = 0;
      for (; c < C && size < options.k; ++c) {
        const std::int64_t j = candidates[c];
        if (j < 0) break;  // the rest are below gamma_i (or there are no more rows)
        if (assigned[static_cast<std::size_t>(j)]) continue;
        assigned[static_cast<std::size_t>(j)] = 1;
        clusters.members.push_back(j);
        ++size;
      }
      // Stop when full or when the list ended (a candidate below gamma_i, or no more rows).
      // A list used up while still valid may miss rows: refill it. Each pass adds a row, since
      // a refilled list holds unassigned rows only.
      const bool exhausted = c == C && candidates[C - 1] >= 0;
      if (size >= options.k || !exhausted) break;
      // Refill: recompute the lists of i and of the next unassigned rows in visiting order
      // against the rows still unassigned (later rows only lose candidates, so their new
      // lists stay exact).
      std::vector<std::int64_t> rows;
      for (std::size_t p = position; p < order.size() && static_cast<std::int64_t>(rows.size()) < 256; ++p) {
        if (p == position || !assigned[static_cast<std::size_t>(order[p])]) rows.push_back(order[p]);
      }
      const at::Tensor row_ids = at::tensor(rows, at::kLong);
      const at::Tensor unassigned = at::from_blob(assigned.data(), {V}, at::kChar).eq(0);
      const SimilarCandidates fresh = most_similar_rows(unit, row_ids, unassigned, floor.index_select(0, row_ids),
                                                        candidate_options);
      list_tensor.index_copy_(0, row_ids, fresh.indices);
      ++counted.refills;
      counted.refilled_rows += static_cast<std::int64_t>(rows.size());
    }
    clusters.offsets.push_back(static_cast<std::int64_t>(clusters.members.size()));
  }
  if (stats) *stats = counted;
  return clusters;
}

std::vector<std::vector<std::int64_t>> embed_cluster_published(const at::Tensor& table, std::int64_t k,
                                                               double threshold, bool ascending) {
  check_options(k, threshold);
  const at::Tensor unit = unit_rows(table).to(at::kDouble);
  const std::int64_t n = unit.size(0);
  EMBPRIV_CHECK(n <= 20000, "obfuslm: the published EmbedCluster builds the V x V matrix; V must be "
                            "<= 20000 here, got " << n);
  const at::Tensor D = at::matmul(unit, unit.t()).contiguous();  // D[i, j] = CosSim(x_i, x_j)
  const double* d = D.data_ptr<double>();
  std::vector<int> marked(static_cast<std::size_t>(n), 0);  // B
  std::vector<std::vector<std::int64_t>> M;
  std::vector<std::int64_t> I(static_cast<std::size_t>(n));
  std::vector<double> sorted(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    if (marked[static_cast<std::size_t>(i)] == 1) continue;
    std::vector<std::int64_t> S = {i};
    const double* row = d + i * n;
    std::iota(I.begin(), I.end(), 0);
    // np.argsort (ascending; the reference), or descending as the text intends.
    std::stable_sort(I.begin(), I.end(), [&](std::int64_t a, std::int64_t b) {
      return ascending ? row[a] < row[b] : row[a] > row[b];
    });
    for (std::int64_t j = 0; j < n; ++j) sorted[static_cast<std::size_t>(j)] = row[j];
    std::sort(sorted.begin(), sorted.end());
    const double position = threshold * static_cast<double>(n - 1);  // np.quantile, linear
    const auto lower = static_cast<std::size_t>(position);
    const double gamma = lower + 1 < sorted.size()
                             ? sorted[lower] + (position - static_cast<double>(lower)) * (sorted[lower + 1] - sorted[lower])
                             : sorted[lower];
    for (std::int64_t j : I) {
      if (static_cast<std::int64_t>(S.size()) == k || row[j] < gamma) break;
      S.push_back(j);
      marked[static_cast<std::size_t>(j)] = 1;
    }
    M.push_back(std::move(S));
  }
  return M;
}

}  // namespace embpriv
