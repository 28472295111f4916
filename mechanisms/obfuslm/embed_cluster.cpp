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
  // Rows of D are computed lazily, a batch of the next unassigned rows in visiting order at a
  // time: a row absorbed into an earlier cluster never opens one, so its row of D is never
  // needed. About V / k rows open clusters, so this computes a fraction of the V x V product.
  // Each computed row keeps gamma_i (over all V cosines, as the algorithm defines it) and its C
  // most similar rows among those unassigned when it was computed, cut below gamma_i: rows
  // only get assigned later, so the list stays exact (assigned rows are skipped when read).
  const std::int64_t most_rows =
      options.block > 0 ? options.block : std::max<std::int64_t>(1, (std::int64_t{1} << 25) / V);
  std::vector<std::int64_t> list(static_cast<std::size_t>(V * C), -1);
  std::vector<float> floor(static_cast<std::size_t>(V), 0.0f);  // gamma_i, float as the slab holds it
  std::vector<char> computed(static_cast<std::size_t>(V), 0);
  std::vector<char> assigned(static_cast<std::size_t>(V), 0);
  std::int64_t unassigned_count = V;
  EmbedClusterStats counted;
  // Computes the rows `rows` of D against the rows unassigned now: their lists, and their gamma_i
  // where not known yet.
  const auto compute_lists = [&](const std::vector<std::int64_t>& rows) {
    const at::Tensor row_ids = at::tensor(rows, at::kLong);
    const at::Tensor unassigned = at::from_blob(assigned.data(), {V}, at::kChar).eq(0);
    at::Tensor gamma;
    const SimilarCandidates fresh = most_similar_rows(unit, row_ids, unassigned, at::Tensor(), candidate_options,
                                                      options.threshold, &gamma);
    const at::Tensor indices = fresh.indices.contiguous(), scores = fresh.scores.contiguous();
    const at::Tensor gamma_float = gamma.to(at::kFloat).contiguous();
    const std::int64_t* index = indices.data_ptr<std::int64_t>();
    const float* score = scores.data_ptr<float>();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto row = static_cast<std::size_t>(rows[r]);
      floor[row] = gamma_float.data_ptr<float>()[r];
      computed[row] = 1;
      // Candidates below gamma_i never join i's cluster (the list is sorted: a suffix goes).
      for (std::int64_t c = 0; c < C; ++c) {
        const std::size_t at = r * static_cast<std::size_t>(C) + static_cast<std::size_t>(c);
        list[row * static_cast<std::size_t>(C) + static_cast<std::size_t>(c)] =
            score[at] < floor[row] ? -1 : index[at];
      }
    }
    counted.similarity_rows += static_cast<std::int64_t>(rows.size());
  };
  // The next unassigned rows in visiting order from `position` (the row there first), at most
  // `count` of them.
  const auto next_unassigned = [&](std::size_t position, std::int64_t count) {
    std::vector<std::int64_t> rows;
    for (std::size_t p = position; p < order.size() && static_cast<std::int64_t>(rows.size()) < count; ++p) {
      if (p == position || !assigned[static_cast<std::size_t>(order[p])]) rows.push_back(order[p]);
    }
    return rows;
  };

  for (std::size_t position = 0; position < order.size(); ++position) {
    const std::int64_t i = order[position];
    if (assigned[static_cast<std::size_t>(i)]) continue;
    if (!computed[static_cast<std::size_t>(i)]) {
      // A batch small enough that few of its rows get absorbed before their turn: its openers
      // take up to k - 1 rows each from the unassigned ones, so U / (4 k) rows lose at most
      // about a quarter of the batch.
      const std::int64_t batch = std::clamp<std::int64_t>(unassigned_count / (4 * options.k), 16, most_rows);
      compute_lists(next_unassigned(position, batch));
    }
    assigned[static_cast<std::size_t>(i)] = 1;
    --unassigned_count;
    clusters.members.push_back(i);
    std::int64_t size = 1;
    while (size < options.k) {
      const std::int64_t* candidates = list.data() + i * C;
      std::int64_t c = 0;
      for (; c < C && size < options.k; ++c) {
        const std::int64_t j = candidates[c];
        if (j < 0) break;  // the rest are below gamma_i (or there are no more rows)
        if (assigned[static_cast<std::size_t>(j)]) continue;
        assigned[static_cast<std::size_t>(j)] = 1;
        --unassigned_count;
        clusters.members.push_back(j);
        ++size;
      }
      // Stop when full or when the list ended (a candidate below gamma_i, or no more rows).
      // A list used up while still valid may miss rows: refill it. Each pass adds a row, since
      // a refilled list holds unassigned rows only.
      const bool exhausted = c == C && candidates[C - 1] >= 0;
      if (size >= options.k || !exhausted) break;
      // Refill: recompute the lists of i and of the next unassigned rows in visiting order
      // against the rows still unassigned.
      const std::vector<std::int64_t> rows = next_unassigned(position, 256);
      compute_lists(rows);
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
