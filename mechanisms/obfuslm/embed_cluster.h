#pragma once
// EmbedCluster (ObfusLM, Algorithm EmbedCluster): a partition of a vocabulary's embedding rows
// into clusters of at most k rows. Visiting the rows in order, an unassigned row i opens a
// cluster and takes the still unassigned rows j most similar to it (cosine), most similar
// first, until the cluster holds k rows or the next similarity falls below
// gamma_i = quantile(D_i, beta), the "cluster threshold". Every row is in exactly one cluster.
//
// The published reference code differs (docs/errata.md, "ObfusLM"): it sorts similarities in
// ascending order (so every cluster is a singleton), puts i itself among its neighbours, and
// lets a row join several clusters. embed_cluster_published reproduces it for comparison.
#include <ATen/core/Tensor.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace embpriv {

enum class ClusterOrder { index, random };  // the order rows open clusters in
ClusterOrder parse_cluster_order(std::string_view name);  // "index" | "random"

struct Clusters {
  std::vector<std::int64_t> members;  // rows, cluster by cluster; a cluster's opener first
  std::vector<std::int64_t> offsets;  // cluster c is members[offsets[c], offsets[c + 1])
  std::int64_t count() const { return static_cast<std::int64_t>(offsets.size()) - 1; }
  std::int64_t size(std::int64_t c) const { return offsets[c + 1] - offsets[c]; }
  // cluster_of()[row]: the cluster holding row (every row is in exactly one).
  std::vector<std::int64_t> cluster_of() const;
};

struct EmbedClusterOptions {
  std::int64_t k = 10;         // the largest cluster size (k of (k, eps)-anonymity)
  double threshold = 0.5;      // beta: a row's cluster takes no row below its beta-quantile
  ClusterOrder order = ClusterOrder::index;
  std::uint64_t seed = 0;      // used by order = random only
  std::int64_t candidates = 0; // neighbours kept per row before a refill; 0: 2k + 16
  std::int64_t block = 0;      // rows of the similarity matrix at once (0: automatic)
};

struct EmbedClusterStats {
  std::int64_t refills = 0;          // rows whose candidate list ran out and was recomputed
  std::int64_t refilled_rows = 0;    // rows recomputed by those refills
  std::int64_t similarity_rows = 0;  // rows of D computed in all (of V x V), refills included
};

// Deterministic for given options (ties go to the lower row index). Throws embpriv::Error on
// k < 1, threshold outside [0, 1], or a NaN/Inf table.
Clusters embed_cluster(const at::Tensor& table, const EmbedClusterOptions& options,
                       EmbedClusterStats* stats = nullptr);

// The published reference's semantics, step for step (with the V x V matrix it builds, so
// limited to V <= 20,000): sort D_i ascending (or descending, to show the other differences),
// stop at |S| = k or D[i, j] < gamma_i, mark only the joined rows. Returns each cluster as
// built, duplicates and overlaps included.
std::vector<std::vector<std::int64_t>> embed_cluster_published(const at::Tensor& table, std::int64_t k,
                                                               double threshold, bool ascending = true);

}  // namespace embpriv
