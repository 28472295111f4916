#!/usr/bin/env python3
"""Prints the comparison table of run_embed_cluster.sh from its JSON lines (embpriv's
embed_cluster_bench and the numpy peer embed_cluster_peer.py)."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
by = {(r["name"], r["impl"]): r for r in rows}
SPEEDUP_TARGET = 20.0  # the issue: embpriv >= 20x the vectorised numpy version


def note(r):
    return "  (CPU busy {:.0%} before the run)".format(r["cpu_busy_before"]) if r.get("cpu_busy_before", 0) > 0.10 else ""


print(f"{'case':16s} {'impl':18s} {'seconds':>9s} {'GEMM s':>8s} {'GEMM share':>10s} {'peak RSS MB':>11s} "
      f"{'clusters':>8s} {'singletons':>10s} {'mean size':>9s}")
for r in rows:
    print(f"{r['name']:16s} {r['impl']:18s} {r['seconds']:9.2f} {r.get('gemm_seconds', float('nan')):8.2f} "
          f"{r.get('gemm_share', float('nan')):10.2f} {r['peak_rss_mb']:11.0f} {r.get('clusters', ''):>8} "
          f"{r.get('singleton_share', float('nan')):10.4f} {r.get('mean_size', float('nan')):9.3f}{note(r)}")
print()
g = by.get(("glove5k", "numpy"))
if g:
    print(f"glove5k: {g['identical']} of embpriv's {g['embpriv_clusters']} clusters are identical (as sets) to "
          f"numpy's intended algorithm ({g['identical_ordered']} also in member order); numpy has {g['clusters']}")
p = by.get(("glove5k", "numpy_published"))
if p:
    print(f"glove5k: the published reference gives {p['clusters']} clusters, {p['singleton_share']:.1%} singletons; "
          f"{p['identical_to_embpriv_published']} identical to embpriv's C++ port (embed_cluster_published)")
e, n = by.get(("random30k_d768", "embpriv")), by.get(("random30k_d768", "numpy"))
if e and n:
    speedup = n["seconds"] / e["seconds"]
    print(f"random30k_d768: embpriv {speedup:.2f}x numpy ({'PASS' if speedup >= SPEEDUP_TARGET else 'FAIL'} "
          f">= {SPEEDUP_TARGET:.0f}x); peak RSS {e['peak_rss_mb']:.0f} MB vs {n['peak_rss_mb']:.0f} MB "
          f"(V^2 float32 = {30000 ** 2 * 4 / 2 ** 20:.0f} MB); {n['identical']} of embpriv's "
          f"{n['embpriv_clusters']} clusters identical to numpy's ({n['identical_ordered']} in member order)")
    print(f"  embpriv: GEMM floor {e['gemm_seconds']:.1f} s, first pass (est. from {e['slice']} rows) "
          f"{e['first_pass_seconds_est']:.1f} s, of which quantiles "
          f"{e['first_pass_seconds_est'] - e['first_pass_no_quantile_seconds_est']:.1f} s; "
          f"refills {e['refills']} ({e['refilled_rows']} rows)")
    print(f"  numpy: D {n['gemm_seconds']:.1f} s, np.quantile {n['quantile_seconds']:.1f} s, "
          f"greedy loop {n['loop_seconds']:.1f} s")
q, nq = by.get(("qwen150k_d4096", "embpriv")), by.get(("qwen150k_d4096", "numpy"))
if q:
    print(f"qwen150k_d4096 (a slice of {q['slice']} query rows, extrapolated x V/slice): first pass "
          f"{q['seconds']:.1f} s, GEMM {q['gemm_seconds']:.1f} s, ratio {q['seconds'] / q['gemm_seconds']:.2f}; "
          f"full first pass ~{q['extrapolated_seconds'] / 60:.0f} min (GEMM ~{q['extrapolated_gemm_seconds'] / 60:.0f} "
          f"min); peak RSS {q['peak_rss_mb']:.0f} MB (table {q['peak_rss_mb_table']:.0f} MB; unit_rows took it to "
          f"{q['peak_rss_mb_unit']:.0f} MB)")
if nq:
    print(f"  numpy, {nq['slice']} rows: D rows {nq['gemm_seconds']:.1f} s + np.quantile {nq['quantile_seconds']:.1f} s, "
          f"~{nq['extrapolated_seconds'] / 60:.0f} min for all rows (and a {nq['full_D_gb']:.0f} GB D); "
          f"peak RSS {nq['peak_rss_mb']:.0f} MB")
