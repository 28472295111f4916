#!/usr/bin/env python3
"""Prints the comparison table of run_knn.sh from its JSON lines (embpriv and faiss)."""
import json
import sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print(f"{'case':18s} thr  embpriv q/s  GFLOP/s   faiss q/s  GFLOP/s   ratio  target>=1.0")
for r in rows:
    if r["impl"] != "embpriv":
        continue
    peer = next(p for p in rows if p["impl"] == "faiss" and p["name"] == r["name"] and p["threads"] == r["threads"])
    ratio = r["queries_per_s"] / peer["queries_per_s"]
    print(f"{r['name']:18s} {r['threads']:3d} {r['queries_per_s']:12.0f} {r['gflops']:8.1f} "
          f"{peer['queries_per_s']:11.0f} {peer['gflops']:8.1f} {ratio:7.2f}  {'PASS' if ratio >= 1 else 'FAIL'}")
for p in rows:
    if "top1_agreement" in p:
        print(f"glove, {p['threads']} thread(s): faiss and embpriv agree on the nearest row for "
              f"{p['top1_agreement']:.4f} of the queries, on the top-5 set for {p['top5_set_agreement']:.4f}")
