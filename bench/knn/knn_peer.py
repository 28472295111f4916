#!/usr/bin/env python3
"""faiss IndexFlatIP (python3-faiss from Debian), the peer of knn_bench.cpp: the same
cases (top-5 by cosine = inner product of L2-normalised rows), timed the same way (best of
--repeats after a warm-up, normalisation and index building included, as embpriv's
nearest_rows() normalises its table on every call). Prints one JSON line per case; for the GloVe
case it also reads the queries and embpriv's top-5 that knn_bench wrote to --dump and reports how
often the two agree on the nearest row.
"""
import argparse
import json
import os
import sys

import faiss
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_timing import best_seconds  # noqa: E402
from glove_cache import glove_table  # noqa: E402


def search(table, queries, k):
    t = table / np.linalg.norm(table, axis=1, keepdims=True)
    q = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    index = faiss.IndexFlatIP(t.shape[1])
    index.add(t)
    return index.search(q, k)


def report(name, q, v, d, seconds, threads, **extra):
    line = {"name": name, "impl": "faiss", "queries": q, "rows": v, "d": d, "threads": threads,
            "seconds": seconds, "queries_per_s": q / seconds, "gflops": 2 * q * v * d / 1e9 / seconds}
    line.update(extra)
    print(json.dumps(line), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--glove", required=True, help="embpriv's GloVe cache (.embt)")
    parser.add_argument("--dump", required=True, help="folder knn_bench wrote its GloVe queries and top-5 to")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--queries", type=int, default=10000, help="queries per random case")
    args = parser.parse_args()
    faiss.omp_set_num_threads(args.threads)

    table = glove_table(args.glove, 100000)
    queries = np.fromfile(f"{args.dump}/glove_queries.f32", dtype="<f4").reshape(-1, 100)
    theirs = np.fromfile(f"{args.dump}/glove_top5.i64", dtype="<i8").reshape(-1, 5)
    result = {}
    seconds = best_seconds(args.repeats, lambda: result.update(found=search(table, queries, 5)))
    ours = result["found"][1]
    report("glove_100k_d100", len(queries), len(table), 100, seconds, args.threads,
           top1_agreement=float(np.mean(ours[:, 0] == theirs[:, 0])),
           top5_set_agreement=float(np.mean([len(set(a) & set(b)) / 5 for a, b in zip(ours, theirs)])))
    rng = np.random.default_rng(1)
    for v, d in [(100000, 768), (32000, 4096)]:
        t = rng.standard_normal((v, d), dtype=np.float32)
        q = rng.standard_normal((args.queries, d), dtype=np.float32)
        report(f"random_{v // 1000}k_d{d}", args.queries, v, d, best_seconds(args.repeats, lambda: search(t, q, 5)), args.threads)


if __name__ == "__main__":
    main()
