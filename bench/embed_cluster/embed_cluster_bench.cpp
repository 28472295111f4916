// EmbedCluster (ObfusLM; mechanisms/obfuslm/embed_cluster.h): time and peak memory of
// embpriv's embed_cluster() against the GEMM it cannot avoid (the V x V x d similarity
// product, done in the same row blocks). One case per process (--case NAME), so that the peak
// RSS printed (getrusage ru_maxrss) belongs to that case. Cases (bench/README.md):
//   glove5k         the 5,000 most frequent GloVe words, k = 10, beta = 0.5; writes embpriv's
//                   clusters and those of embed_cluster_published() to --dump for the numpy
//                   peer (embed_cluster_peer.py) to compare.
//   random30k_d768  30,000 rows i.i.d. N(0, 1), d = 768 (at::manual_seed(--seed)); writes the
//                   float32 table and the clusters to --dump; full embed_cluster() and the GEMM.
//   qwen150k_d4096  150,000 x 4096 random rows (2.4 GB): the first pass (most_similar_rows with
//                   quantiles) for the first --slice query rows only, and the GEMM of the same
//                   rows; the full time is extrapolated (x V / slice).
// Time: glove5k, the best of --repeats runs after a warm-up; the big cases, the best of
// --big-repeats runs (default 1) without a warm-up. Prints one JSON line per measurement.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>

#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "platform/allocator_settings.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"
#include "mechanisms/obfuslm/embed_cluster.h"
#include "mechanisms/obfuslm/similarity_candidates.h"

using namespace embpriv;

namespace {

// The big cases: the best of `repeats` runs without a warm-up (each run is minutes long).
double best_seconds_cold(int repeats, const std::function<void()>& run) { return best_seconds(repeats, run, false); }

// The same V x V x d product embed_cluster() does, in the same row blocks, nothing else.
// `rows`: the first `rows` rows of `unit` as queries.
double gemm_floor(const at::Tensor& unit, std::int64_t rows, std::int64_t block, int repeats) {
  return best_seconds_cold(repeats, [&] {
    for (std::int64_t q0 = 0; q0 < rows; q0 += block) {
      const at::Tensor slab = at::matmul(unit.narrow(0, q0, std::min(block, rows - q0)), unit.t());
    }
  });
}

// most_similar_rows()'s automatic block: a slab of at most 2^25 entries.
std::int64_t automatic_block(std::int64_t v) { return std::max<std::int64_t>(1, (std::int64_t{1} << 25) / v); }

struct Summary {
  std::int64_t count = 0;
  double singleton_share = 0, mean_size = 0;
};

Summary summarise(const Clusters& clusters) {
  Summary s;
  s.count = clusters.count();
  std::int64_t singletons = 0;
  for (std::int64_t c = 0; c < s.count; ++c) singletons += clusters.size(c) == 1;
  s.singleton_share = static_cast<double>(singletons) / static_cast<double>(s.count);
  s.mean_size = static_cast<double>(clusters.members.size()) / static_cast<double>(s.count);
  return s;
}

void write_clusters(const std::string& path, const Clusters& clusters) {
  std::ofstream out(path);
  for (std::int64_t c = 0; c < clusters.count(); ++c) {
    for (std::int64_t m = clusters.offsets[c]; m < clusters.offsets[c + 1]; ++m) {
      out << (m > clusters.offsets[c] ? " " : "") << clusters.members[m];
    }
    out << '\n';
  }
}

void write_clusters(const std::string& path, const std::vector<std::vector<std::int64_t>>& clusters) {
  std::ofstream out(path);
  for (const auto& cluster : clusters) {
    for (std::size_t m = 0; m < cluster.size(); ++m) out << (m ? " " : "") << cluster[m];
    out << '\n';
  }
}

// A JSON line: the common fields, then `extra` (already formatted ", \"key\": value" pairs).
void report(const std::string& name, const std::string& impl, std::int64_t v, std::int64_t d, std::int64_t k,
            double beta, int threads, double seconds, const std::string& extra) {
  std::cout << "{\"name\": \"" << name << "\", \"impl\": \"" << impl << "\", \"rows\": " << v << ", \"d\": " << d
            << ", \"k\": " << k << ", \"beta\": " << beta << ", \"threads\": " << threads
            << ", \"seconds\": " << seconds << extra << ", \"peak_rss_mb\": " << peak_rss_mib() << "}"
            << std::endl;
}

std::string summary_fields(const Summary& s) {
  std::ostringstream out;
  out << ", \"clusters\": " << s.count << ", \"singleton_share\": " << s.singleton_share
      << ", \"mean_size\": " << s.mean_size;
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: embed_cluster_bench --case glove5k|random30k_d768|qwen150k_d4096 [--threads T] "
                 "[--repeats R] [--big-repeats R] [--dump DIR] [--k K] [--beta B] [--slice ROWS] [--seed S]");
  const std::string name = args.text("--case", ""), dump = args.text("--dump", "");
  const int repeats = args.count("--repeats", 3), big_repeats = args.count("--big-repeats", 1),
            threads = args.count("--threads", 1);
  const std::int64_t k = args.integer("--k", 10), slice = args.integer("--slice", 2048), seed = args.integer("--seed", 1);
  const double beta = args.real("--beta", 0.5);
  args.finish();
  if (name != "glove5k" && name != "random30k_d768" && name != "qwen150k_d4096") {
    args.fail("unknown --case '" + name + "'");
  }
  at::set_num_threads(threads);
  EmbedClusterOptions options;
  options.k = k;
  options.threshold = beta;
  const std::int64_t candidates = 2 * k + 16;

  if (name == "glove5k") {
    const at::Tensor table = load_cached_glove(resolve_data_path(kGloveJson)).first(5000).vectors();
    Clusters clusters;
    EmbedClusterStats stats;
    const double seconds = best_seconds(repeats, [&] { clusters = embed_cluster(table, options, &stats); });
    std::ostringstream extra;
    extra << summary_fields(summarise(clusters)) << ", \"refills\": " << stats.refills
          << ", \"refilled_rows\": " << stats.refilled_rows;
    report(name, "embpriv", table.size(0), table.size(1), k, beta, threads, seconds, extra.str());
    std::vector<std::vector<std::int64_t>> published;
    const double published_seconds =
        best_seconds(repeats, [&] { published = embed_cluster_published(table, k, beta); });
    std::int64_t singletons = 0, members = 0;
    for (const auto& c : published) singletons += c.size() == 1, members += static_cast<std::int64_t>(c.size());
    std::ostringstream published_extra;
    published_extra << ", \"clusters\": " << published.size()
                    << ", \"singleton_share\": " << static_cast<double>(singletons) / published.size()
                    << ", \"mean_size\": " << static_cast<double>(members) / published.size();
    report(name, "embpriv_published", table.size(0), table.size(1), k, beta, threads, published_seconds,
           published_extra.str());
    if (!dump.empty()) {
      write_clusters(dump + "/glove5k_clusters.txt", clusters);
      write_clusters(dump + "/glove5k_published_clusters.txt", published);
    }
    return 0;
  }

  if (name == "random30k_d768") {
    const std::int64_t V = 30000, d = 768;
    at::manual_seed(seed);
    const at::Tensor table = at::randn({V, d});
    if (!dump.empty()) {
      write_tensor(dump, "random30k_d768.f32", table);
    }
    const double table_rss = peak_rss_mib();
    Clusters clusters;
    EmbedClusterStats stats;
    const double seconds =
        best_seconds_cold(big_repeats, [&] { clusters = embed_cluster(table, options, &stats); });
    const double cluster_rss = peak_rss_mib();
    const at::Tensor unit = unit_rows(table);
    const double gemm = gemm_floor(unit, V, automatic_block(V), big_repeats);
    // Where the rest goes: the first pass (most_similar_rows over all rows, as embed_cluster()
    // calls it) with and without the quantiles, on the first `slice` rows, x V / slice.
    const at::Tensor queries = at::arange(std::min(slice, V), at::kLong);
    const double scale = static_cast<double>(V) / static_cast<double>(queries.numel());
    at::Tensor quantiles;
    const double with_quantiles = scale * best_seconds_cold(big_repeats, [&] {
      most_similar_rows(unit, queries, at::Tensor(), at::Tensor(), CandidateOptions{candidates, 0}, beta, &quantiles);
    });
    const double without_quantiles = scale * best_seconds_cold(big_repeats, [&] {
      most_similar_rows(unit, queries, at::Tensor(), at::Tensor(), CandidateOptions{candidates, 0});
    });
    std::ostringstream extra;
    extra << summary_fields(summarise(clusters)) << ", \"refills\": " << stats.refills
          << ", \"refilled_rows\": " << stats.refilled_rows << ", \"gemm_seconds\": " << gemm
          << ", \"gemm_share\": " << gemm / seconds << ", \"block\": " << automatic_block(V)
          << ", \"first_pass_seconds_est\": " << with_quantiles
          << ", \"first_pass_no_quantile_seconds_est\": " << without_quantiles << ", \"slice\": " << queries.numel()
          << ", \"peak_rss_mb_table\": " << table_rss << ", \"peak_rss_mb_cluster\": " << cluster_rss;
    report(name, "embpriv", V, d, k, beta, threads, seconds, extra.str());
    if (!dump.empty()) write_clusters(dump + "/random30k_d768_clusters.txt", clusters);
    return 0;
  }

  // qwen150k_d4096: the first pass for the first `slice` rows, extrapolated to all V rows.
  const std::int64_t V = 150000, d = 4096;
  at::manual_seed(seed);
  const at::Tensor table = at::randn({V, d});
  const double table_rss = peak_rss_mib();
  at::Tensor unit;
  const double unit_seconds = seconds_of([&] { unit = unit_rows(table); });
  const double unit_rss = peak_rss_mib();
  const at::Tensor queries = at::arange(slice, at::kLong);
  at::Tensor quantiles;
  const double seconds = best_seconds_cold(big_repeats, [&] {
    most_similar_rows(unit, queries, at::Tensor(), at::Tensor(), CandidateOptions{candidates, 0}, beta, &quantiles);
  });
  const double gemm = gemm_floor(unit, slice, automatic_block(V), big_repeats);
  const double scale = static_cast<double>(V) / static_cast<double>(slice);
  std::ostringstream extra;
  extra << ", \"slice\": " << slice << ", \"candidates\": " << candidates << ", \"gemm_seconds\": " << gemm
        << ", \"gemm_share\": " << gemm / seconds << ", \"block\": " << automatic_block(V)
        << ", \"extrapolated_seconds\": " << seconds * scale << ", \"extrapolated_gemm_seconds\": " << gemm * scale
        << ", \"unit_rows_seconds\": " << unit_seconds << ", \"peak_rss_mb_table\": " << table_rss
        << ", \"peak_rss_mb_unit\": " << unit_rss << ", \"median_gamma\": " << quantiles.median().item<double>();
  report(name, "embpriv", V, d, k, beta, threads, seconds, extra.str());
  return 0;
}
