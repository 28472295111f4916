#include "mechanisms/obfuslm/embed_cluster.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <numeric>
#include <utility>

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

// EmbedCluster's state while it runs, with the algorithm's steps as named functions. Rows of D
// are computed lazily, a batch of the next unassigned rows in visiting order at a time: a row
// absorbed into an earlier cluster never opens one, so its row of D is never needed. About V / k
// rows open clusters, so this computes a fraction of the V x V product. Each computed row keeps
// gamma_i (over all V cosines, as the algorithm defines it) and its C most similar rows among
// those unassigned when it was computed, cut below gamma_i: rows only get assigned later, so
// the list stays exact (assigned rows are skipped when read).
class ClusterBuilder {
 public:
  ClusterBuilder(const at::Tensor& unit, const EmbedClusterOptions& options, std::vector<std::int64_t> order)
      : unit_(unit),
        options_(options),
        order_(std::move(order)),
        V_(unit.size(0)),
        candidate_options_{options.candidates > 0 ? options.candidates : 2 * options.k + 16, options.block},
        C_(std::min(candidate_options_.candidates, V_ - 1)),
        most_rows_(options.block > 0 ? options.block : std::max<std::int64_t>(1, (std::int64_t{1} << 25) / V_)),
        list_(static_cast<std::size_t>(V_ * C_), -1),
        floor_(static_cast<std::size_t>(V_), 0.0f),
        computed_(static_cast<std::size_t>(V_), 0),
        assigned_(static_cast<std::size_t>(V_), 0),
        unassigned_count_(V_) {
    candidate_options_.candidates = C_;
    clusters_.offsets.push_back(0);
  }

  // Visits the rows in order; each row still unassigned opens a cluster and fills it.
  Clusters run() {
    for (std::size_t position = 0; position < order_.size(); ++position) {
      const std::int64_t i = order_[position];
      if (assigned_[static_cast<std::size_t>(i)]) continue;
      if (!computed_[static_cast<std::size_t>(i)]) compute_ahead(position);
      open_cluster(i);
      fill_cluster(i, position);
      clusters_.offsets.push_back(static_cast<std::int64_t>(clusters_.members.size()));
    }
    return std::move(clusters_);
  }

  const EmbedClusterStats& stats() const { return stats_; }

 private:
  // Computes the lists of the row at `position` and of the next unassigned rows after it. The
  // batch is small enough that few of its rows get absorbed before their turn: its openers take
  // up to k - 1 rows each from the unassigned ones, so U / (4 k) rows lose at most about a
  // quarter of the batch.
  void compute_ahead(std::size_t position) {
    const std::int64_t batch = std::clamp<std::int64_t>(unassigned_count_ / (4 * options_.k), 16, most_rows_);
    compute_lists(next_unassigned(position, batch));
  }

  // Row i opens a cluster and is its first member.
  void open_cluster(std::int64_t i) {
    assign(i);
    size_ = 1;
  }

  // Takes the unassigned rows of i's list, most similar first, until the cluster holds k rows or
  // the list ends (a candidate below gamma_i, or no more rows). A list used up while still
  // valid may miss rows: it is refilled against the rows still unassigned and read again. Each
  // pass adds a row, since a refilled list holds unassigned rows only.
  void fill_cluster(std::int64_t i, std::size_t position) {
    while (size_ < options_.k) {
      const bool exhausted = take_from_list(i);
      if (size_ >= options_.k || !exhausted) break;
      refill(position);
    }
  }

  // One read of i's list; returns whether it was used up while still valid (every entry a row
  // at or above gamma_i), so that rows may be missing from it.
  bool take_from_list(std::int64_t i) {
    const std::int64_t* candidates = list_.data() + i * C_;
    std::int64_t c = 0;
    for (; c < C_ && size_ < options_.k; ++c) {
      const std::int64_t j = candidates[c];
      if (j < 0) break;  // the rest are below gamma_i (or there are no more rows)
      if (assigned_[static_cast<std::size_t>(j)]) continue;
      assign(j);
      ++size_;
    }
    return c == C_ && candidates[C_ - 1] >= 0;
  }

  // Recomputes the lists of the opener at `position` and of the next unassigned rows in
  // visiting order against the rows still unassigned.
  void refill(std::size_t position) {
    const std::vector<std::int64_t> rows = next_unassigned(position, 256);
    compute_lists(rows);
    ++stats_.refills;
    stats_.refilled_rows += static_cast<std::int64_t>(rows.size());
  }

  void assign(std::int64_t row) {
    assigned_[static_cast<std::size_t>(row)] = 1;
    --unassigned_count_;
    clusters_.members.push_back(row);
  }

  // Computes the rows `rows` of D against the rows unassigned now: their lists, and their
  // gamma_i.
  void compute_lists(const std::vector<std::int64_t>& rows) {
    const at::Tensor row_ids = at::tensor(rows, at::kLong);
    const at::Tensor unassigned = at::from_blob(assigned_.data(), {V_}, at::kChar).eq(0);
    at::Tensor gamma;
    const SimilarCandidates fresh =
        most_similar_rows(unit_, row_ids, unassigned, at::Tensor(), candidate_options_, options_.threshold, &gamma);
    const at::Tensor indices = fresh.indices.contiguous(), scores = fresh.scores.contiguous();
    const at::Tensor gamma_float = gamma.to(at::kFloat).contiguous();
    const std::int64_t* index = indices.data_ptr<std::int64_t>();
    const float* score = scores.data_ptr<float>();
    const auto C = static_cast<std::size_t>(C_);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      const auto row = static_cast<std::size_t>(rows[r]);
      floor_[row] = gamma_float.data_ptr<float>()[r];  // gamma_i, float as the slab holds it
      computed_[row] = 1;
      // Candidates below gamma_i never join i's cluster (the list is sorted: a suffix goes).
      for (std::size_t c = 0; c < C; ++c) {
        const std::size_t at = r * C + c;
        list_[row * C + c] = score[at] < floor_[row] ? -1 : index[at];
      }
    }
    stats_.similarity_rows += static_cast<std::int64_t>(rows.size());
  }

  // The next unassigned rows in visiting order from `position` (the row there first), at most
  // `count` of them.
  std::vector<std::int64_t> next_unassigned(std::size_t position, std::int64_t count) const {
    std::vector<std::int64_t> rows;
    for (std::size_t p = position; p < order_.size() && static_cast<std::int64_t>(rows.size()) < count; ++p) {
      if (p == position || !assigned_[static_cast<std::size_t>(order_[p])]) rows.push_back(order_[p]);
    }
    return rows;
  }

  const at::Tensor& unit_;
  const EmbedClusterOptions& options_;
  const std::vector<std::int64_t> order_;
  const std::int64_t V_;
  CandidateOptions candidate_options_;
  const std::int64_t C_;          // candidates kept per row
  const std::int64_t most_rows_;  // the largest batch of rows of D at once
  std::vector<std::int64_t> list_;  // row i's candidates: list_[i * C, (i + 1) * C), -1 past the end
  std::vector<float> floor_;        // gamma_i of each computed row
  std::vector<char> computed_;
  std::vector<char> assigned_;
  std::int64_t unassigned_count_;
  std::int64_t size_ = 0;  // rows in the cluster being filled
  Clusters clusters_;
  EmbedClusterStats stats_;
};

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
  std::vector<std::int64_t> order = visiting_order(V, options);
  if (options.k == 1 || V == 1) {  // singletons: no similarity needed
    Clusters clusters;
    clusters.offsets.push_back(0);
    for (std::int64_t i : order) {
      clusters.members.push_back(i);
      clusters.offsets.push_back(static_cast<std::int64_t>(clusters.members.size()));
    }
    if (stats) *stats = EmbedClusterStats{};
    return clusters;
  }
  ClusterBuilder builder(unit, options, std::move(order));
  Clusters clusters = builder.run();
  if (stats) *stats = builder.stats();
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
