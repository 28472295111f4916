// Throughput of embpriv's KNN inversion (attacks/nearest_rows.h): Q queries against a table
// [V, d], top-5 by cosine, best of --repeats runs after a warm-up. Cases (bench/README.md):
// the 100,000 most frequent GloVe words (d = 100) with 10,000 noisy GloVe rows as queries, and
// random [100,000 x 768] and [32,000 x 4096] tables with 10,000 random queries. Prints one JSON
// line per case. For the GloVe case it also writes the queries and embpriv's top-5 to --dump so
// that knn_peer.py (faiss IndexFlatIP) can check it found the same neighbours.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <iostream>
#include <string>

#include "bench/common/bench_args.h"
#include "bench/common/bench_dump.h"
#include "bench/common/bench_timing.h"
#include "platform/allocator_settings.h"
#include "attacks/nearest_rows.h"
#include "data/tables/data_paths.h"
#include "data/tables/embedding_formats.h"

using namespace embpriv;

namespace {

void report(const std::string& name, std::int64_t q, std::int64_t v, std::int64_t d, double seconds, int threads) {
  const double gflop = 2.0 * static_cast<double>(q) * static_cast<double>(v) * static_cast<double>(d) / 1e9;
  std::cout << "{\"name\": \"" << name << "\", \"impl\": \"embpriv\", \"queries\": " << q << ", \"rows\": " << v
            << ", \"d\": " << d << ", \"threads\": " << threads << ", \"seconds\": " << seconds
            << ", \"queries_per_s\": " << static_cast<double>(q) / seconds << ", \"gflops\": " << gflop / seconds
            << "}" << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory();  // as the embpriv binary runs (platform/allocator_settings.h)
  BenchArgs args(argc, argv,
                 "usage: knn_bench [--repeats R] [--threads T] [--queries Q] [--dump DIR] [--query-chunk N]"
                 " [--table-chunk N]");
  const int repeats = args.count("--repeats", 3), threads = args.count("--threads", 1);
  const std::int64_t q = args.integer("--queries", 10000);  // queries per case (make bench's quick size uses fewer)
  const std::string dump = args.text("--dump", "");
  // nearest_rows' defaults
  const std::int64_t query_chunk = args.integer("--query-chunk", 0);
  const std::int64_t table_chunk = args.integer("--table-chunk", KnnOptions{}.table_chunk);
  args.finish();
  at::set_num_threads(threads);
  KnnOptions options;
  options.k = 5;
  options.metric = KnnMetric::cosine;
  options.query_chunk = query_chunk;
  options.table_chunk = table_chunk;

  // GloVe: the 100,000 most frequent words; queries: 10,000 of them plus Gaussian noise.
  const EmbeddingTable glove = load_cached_glove(resolve_data_path(kGloveJson)).first(100000);
  at::manual_seed(1);
  const at::Tensor picked = at::randint(0, 100000, {q}, at::kLong);
  const at::Tensor queries = glove.vectors().index_select(0, picked) + 0.3 * at::randn({q, 100});
  Neighbours found;
  report("glove_100k_d100", q, 100000, 100,
         best_seconds(repeats, [&] { found = nearest_rows(queries, glove.vectors(), options); }), threads);
  if (!dump.empty()) {
    write_tensor(dump, "glove_queries.f32", queries);
    write_tensor(dump, "glove_top5.i64", found.indices);
  }
  for (const auto& [v, d] : {std::pair<std::int64_t, std::int64_t>{100000, 768}, {32000, 4096}}) {
    const at::Tensor table = at::randn({v, d});
    const at::Tensor random_queries = at::randn({q, d});
    report("random_" + std::to_string(v / 1000) + "k_d" + std::to_string(d), q, v, d,
           best_seconds(repeats, [&] { nearest_rows(random_queries, table, options); }), threads);
  }
  return 0;
}
