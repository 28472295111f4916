#!/usr/bin/env python3
"""numpy peer of embed_cluster_bench.cpp (ObfusLM's EmbedCluster), one case per process
(--case NAME) so that the peak RSS printed (getrusage ru_maxrss) belongs to that case:

  glove5k         (a) the published reference's semantics with a vectorised similarity matrix
                  (np.argsort(D[i]) ASCENDING, break on len(S) == k or D[i, j] < gamma, S takes j
                  even when j == i, only B[j] is set, B[j] never checked) and (b) the intended
                  algorithm, vectorised; compares both with the clusters embed_cluster_bench
                  wrote to --dump.
  random30k_d768  (b) on the float32 table embed_cluster_bench wrote to --dump: D = U @ U.T
                  (float32), gamma = np.quantile(D, beta, axis=1), then the greedy loop with
                  np.argsort(-D[i], kind="stable") for each opening row only; each step timed.
  qwen150k_d4096  the vectorised first step for the first --slice rows of a random
                  [150,000 x 4096] table (D rows, their quantiles), extrapolated x V / slice:
                  the full D would be 90 GB, so numpy cannot run the whole algorithm here.

The thread count is set through OPENBLAS_NUM_THREADS before numpy is imported. Prints one JSON
line per measurement; time is the best of --repeats runs after a warm-up for glove5k, of
--big-repeats runs (default 1, no warm-up) for the big cases (with the breakdown of that run).
"""
import argparse
import json
import os
import resource
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--case", required=True, choices=["glove5k", "random30k_d768", "qwen150k_d4096"])
parser.add_argument("--glove", help="embpriv's GloVe cache (.embt); glove5k only")
parser.add_argument("--dump", required=True, help="folder embed_cluster_bench wrote its table and clusters to")
parser.add_argument("--repeats", type=int, default=3, help="glove5k: best of this many runs after a warm-up")
parser.add_argument("--big-repeats", type=int, default=1, help="the big cases: best of this many runs")
parser.add_argument("--threads", type=int, default=1)
parser.add_argument("--k", type=int, default=10)
parser.add_argument("--beta", type=float, default=0.5)
parser.add_argument("--slice", type=int, default=2048)
args = parser.parse_args()
os.environ["OPENBLAS_NUM_THREADS"] = str(args.threads)  # read when numpy loads OpenBLAS

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from glove_cache import glove_table  # noqa: E402


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def seconds_of(run):
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def best(repeats, warm_up, run, times=None):
    """Best wall time of `repeats` runs; `times` (a dict the run fills) ends up with the best run's."""
    if warm_up:
        run()
    best_seconds, best_times = float("inf"), {}
    for _ in range(repeats):
        seconds = seconds_of(run)
        if seconds < best_seconds:
            best_seconds, best_times = seconds, dict(times or {})
    if times is not None:
        times.update(best_times)
    return best_seconds


def unit_rows(table):
    # As embpriv's unit_rows(): the norm and the division in double, the result in float32.
    t = table.astype(np.float64)
    return (t / np.maximum(np.linalg.norm(t, axis=1, keepdims=True), 1e-300)).astype(np.float32)


def published(table, k, beta):
    """The published reference code, step for step, with a vectorised similarity matrix."""
    u = unit_rows(table)
    D = u @ u.T
    n = len(D)
    B = np.zeros(n)
    M = []
    for i in range(n):
        if B[i] == 1:
            continue
        S = [i]
        I = np.argsort(D[i])  # ascending, as published
        gamma = np.quantile(D[i], beta)
        for j in I:
            if len(S) == k or D[i, j] < gamma:
                break
            S.append(j)
            B[j] = 1
        M.append(S)
    return M


def intended(table, k, beta, times=None):
    """EmbedCluster as described: descending cosine, still-unassigned rows only, stop at k or below
    gamma_i; ties to the lower index (stable argsort of -D[i])."""
    start = time.perf_counter()
    u = unit_rows(table)
    D = u @ u.T  # float32
    gemm = time.perf_counter()
    gamma = np.quantile(D, beta, axis=1)
    quantile = time.perf_counter()
    n = len(D)
    assigned = np.zeros(n, dtype=bool)
    clusters = []
    for i in range(n):
        if assigned[i]:
            continue
        assigned[i] = True
        row = D[i]
        order = np.argsort(-row, kind="stable")
        # Descending, so "break at the first j below gamma_i" keeps exactly the rows >= gamma_i;
        # i itself is assigned already, so the filter also drops it.
        keep = order[(row[order] >= gamma[i]) & ~assigned[order]][: k - 1]
        assigned[keep] = True
        clusters.append([i] + keep.tolist())
    if times is not None:
        end = time.perf_counter()
        times.update(gemm_seconds=gemm - start, quantile_seconds=quantile - gemm, loop_seconds=end - quantile)
    return clusters


def read_clusters(path):
    return [[int(x) for x in line.split()] for line in open(path) if line.strip()]


def summary(clusters):
    sizes = np.array([len(c) for c in clusters])
    return {"clusters": len(clusters), "singleton_share": float(np.mean(sizes == 1)), "mean_size": float(sizes.mean())}


def identical(theirs, ours):
    """How many of `theirs` (embpriv's) clusters are, as sets, also clusters of `ours`; and how
    many are identical including the order of their members."""
    as_sets = {frozenset(c) for c in ours}
    as_lists = {tuple(c) for c in ours}
    return (sum(frozenset(c) in as_sets for c in theirs), sum(tuple(c) in as_lists for c in theirs))


def report(name, impl, v, d, seconds, **extra):
    line = {"name": name, "impl": impl, "rows": v, "d": d, "k": args.k, "beta": args.beta,
            "threads": args.threads, "seconds": seconds}
    line.update(extra)
    line["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(line), flush=True)


def main():
    k, beta = args.k, args.beta
    if args.case == "glove5k":
        table = glove_table(args.glove, 5000)
        result = {}
        seconds = best(args.repeats, True, lambda: result.update(a=published(table, k, beta)))
        theirs = read_clusters(f"{args.dump}/glove5k_published_clusters.txt")
        report("glove5k", "numpy_published", *table.shape, seconds, **summary(result["a"]),
               identical_to_embpriv_published=identical(theirs, result["a"])[1])
        seconds = best(args.repeats, True, lambda: result.update(b=intended(table, k, beta)))
        theirs = read_clusters(f"{args.dump}/glove5k_clusters.txt")
        sets, ordered = identical(theirs, result["b"])
        report("glove5k", "numpy", *table.shape, seconds, **summary(result["b"]),
               embpriv_clusters=len(theirs), identical=sets, identical_ordered=ordered)
    elif args.case == "random30k_d768":
        table = np.fromfile(f"{args.dump}/random30k_d768.f32", dtype="<f4").reshape(30000, 768)
        times = {}
        clusters = []
        seconds = best(args.big_repeats, False,
                       lambda: clusters.__setitem__(slice(None), intended(table, k, beta, times)), times)
        theirs = read_clusters(f"{args.dump}/random30k_d768_clusters.txt")
        sets, ordered = identical(theirs, clusters)
        report("random30k_d768", "numpy", *table.shape, seconds, **summary(clusters), **times,
               gemm_share=times["gemm_seconds"] / seconds, embpriv_clusters=len(theirs), identical=sets,
               identical_ordered=ordered)
    else:
        v, d, r = 150000, 4096, args.slice
        # Random rows (not embpriv's: only the time matters here), normalised in place in float32
        # so that the table is held once.
        u = np.random.default_rng(1).standard_normal((v, d), dtype=np.float32)
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        times = {}

        def first_step():
            start = time.perf_counter()
            D = u[:r] @ u.T
            gemm = time.perf_counter()
            np.quantile(D, beta, axis=1)
            times.update(gemm_seconds=gemm - start, quantile_seconds=time.perf_counter() - gemm)

        seconds = best(args.big_repeats, False, first_step, times)
        report("qwen150k_d4096", "numpy", v, d, seconds, slice=r, **times,
               gemm_share=times["gemm_seconds"] / seconds, extrapolated_seconds=seconds * v / r,
               full_D_gb=v * v * 4 / 1e9)


if __name__ == "__main__":
    main()
