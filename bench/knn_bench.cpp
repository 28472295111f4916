// Throughput of embpriv's KNN inversion (attacks/nearest_rows.h): Q queries against a table
// [V, d], top-5 by cosine, best of --repeats runs after a warm-up. Cases (bench/README.md):
// the 100,000 most frequent GloVe words (d = 100) with 10,000 noisy GloVe rows as queries, and
// random [100,000 x 768] and [32,000 x 4096] tables with 10,000 random queries. Prints one JSON
// line per case. For the GloVe case it also writes the queries and embpriv's top-5 to --dump so
// that bench/knn_peer.py (faiss IndexFlatIP) can check it found the same neighbours.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "bench/bench_timing.h"
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
  int repeats = 3, threads = 1;
  std::int64_t q = 10000;  // queries per case (make bench's quick size uses fewer)
  std::string dump;
  std::int64_t query_chunk = 0, table_chunk = KnnOptions{}.table_chunk;  // nearest_rows' defaults
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--repeats") repeats = std::atoi(argv[i + 1]);
    else if (key == "--threads") threads = std::atoi(argv[i + 1]);
    else if (key == "--dump") dump = argv[i + 1];
    else if (key == "--queries") q = std::atoll(argv[i + 1]);
    else if (key == "--query-chunk") query_chunk = std::atoll(argv[i + 1]);
    else if (key == "--table-chunk") table_chunk = std::atoll(argv[i + 1]);
    else {
      std::cerr << "usage: knn_bench [--repeats R] [--threads T] [--queries Q] [--dump DIR] [--query-chunk N]"
                   " [--table-chunk N]\n";
      return 2;
    }
  }
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
    std::ofstream(dump + "/glove_queries.f32", std::ios::binary)
        .write(static_cast<const char*>(queries.contiguous().data_ptr()), queries.numel() * 4);
    std::ofstream(dump + "/glove_top5.i64", std::ios::binary)
        .write(static_cast<const char*>(found.indices.contiguous().data_ptr()), found.indices.numel() * 8);
  }
  for (const auto& [v, d] : {std::pair<std::int64_t, std::int64_t>{100000, 768}, {32000, 4096}}) {
    const at::Tensor table = at::randn({v, d});
    const at::Tensor random_queries = at::randn({q, d});
    report("random_" + std::to_string(v / 1000) + "k_d" + std::to_string(d), q, v, d,
           best_seconds(repeats, [&] { nearest_rows(random_queries, table, options); }), threads);
  }
  return 0;
}
