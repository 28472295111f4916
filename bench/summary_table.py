#!/usr/bin/env python3
"""The one table of `make bench` (bench/run_all.sh): for each hot path, embpriv's rate, its peer's
rate on the same OpenBLAS kernel, the ratio, the peer as installed (when OpenBLAS alone would
pick another kernel), and the share of the machine's SGEMM rate measured in the same run.

Usage: summary_table.py OUTDIR   (the folder run_all.sh wrote its JSON lines to)
"""
import json
import os
import re
import sys

out = sys.argv[1]


def lines(name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return []
    return [json.loads(l) for l in open(path) if l.strip()]


system = open(os.path.join(out, "system.txt")).read()
sgemm = float(re.search(r"best of 3: (\d+) GFLOP/s", system).group(1))
kernel = (re.search(r"^  kernel:  (.*)$", system, re.M) or [None, "(not OpenBLAS)"])[1]
kernels = open(os.path.join(out, "kernels.txt")).read().strip()
rows = []  # (path, case, threads, embpriv, peer, ratio, installed, sgemm share, goal, verdict)


def add(path, case, threads, ours, peer, ratio, installed, share, goal, ok):
    rows.append((path, case, str(threads), ours, peer, f"{ratio:.2f}x" if ratio is not None else "-",
                 installed, f"{share:.0%}" if share is not None else "-", goal,
                 "-" if ok is None else ("PASS" if ok else "FAIL")))


# KNN inversion: queries/s against faiss IndexFlatIP.
knn = lines("knn.json.lines")
knn_installed = lines("knn_installed.json.lines")
for e in (r for r in knn if r["impl"] == "embpriv"):
    p = next(r for r in knn if r["impl"] == "faiss" and r["name"] == e["name"] and r["threads"] == e["threads"])
    i = next((r for r in knn_installed if r["name"] == e["name"] and r["threads"] == e["threads"]), None)
    ratio, share = e["queries_per_s"] / p["queries_per_s"], e["gflops"] / sgemm
    need = 0.5 if e["d"] <= 100 else 0.7
    add("KNN top-5 vs faiss", e["name"], e["threads"], f"{e['queries_per_s']:,.0f} q/s",
        f"{p['queries_per_s']:,.0f} q/s", ratio, f"{i['queries_per_s']:,.0f} q/s" if i else "same kernel", share,
        f">= {need:.0%} SGEMM, >= 1.0x", share >= need and ratio >= 1.0)

# EmbedCluster: seconds against numpy's vectorised intended algorithm, and its own GEMM floor.
cluster = lines("embed_cluster.json.lines")
cluster_installed = lines("embed_cluster_installed.json.lines")
e = next((r for r in cluster if r["name"] == "random30k_d768" and r["impl"] == "embpriv"), None)
p = next((r for r in cluster if r["name"] == "random30k_d768" and r["impl"] == "numpy"), None)
if e and p:
    i = next((r for r in cluster_installed if r["name"] == "random30k_d768" and r["impl"] == "numpy"), None)
    speedup, floor = p["seconds"] / e["seconds"], e["seconds"] / e["gemm_seconds"]
    share = 2 * 30000 ** 2 * 768 / e["seconds"] / 1e9 / sgemm
    add("EmbedCluster vs numpy", "random30k_d768", e.get("threads", "-"), f"{e['seconds']:.1f} s",
        f"{p['seconds']:.1f} s", speedup, f"{i['seconds']:.1f} s" if i else "same kernel", share,
        ">= 20x, <= 1.3x GEMM floor", speedup >= 20 and floor <= 1.3)
    rows.append(("", f"  (time / own GEMM floor: {floor:.2f}x)", "", "", "", "", "", "", "", ""))

# Mechanisms: vectors/s against PyTorch eager, and time over the torch.randn floor.
mech_path = os.path.join(out, "mechanisms.json")
if os.path.exists(mech_path):
    for r in json.load(open(mech_path))["rows"]:
        two = r["threads"] == 2
        ok = (r["speedup_vs_pytorch"] >= 1.7 and r["time_over_randn_floor"] <= 1.0) if two else None
        add("mechanism vs PyTorch", f"{r['mechanism']} {r['n']}x{r['d']}", r["threads"],
            f"{r['embpriv_vectors_per_s']:,.0f} vec/s", f"{r['pytorch_vectors_per_s']:,.0f} vec/s",
            r["speedup_vs_pytorch"], "(not GEMM)", None,
            f">= 1.7x, <= 1.0x randn ({r['time_over_randn_floor']:.2f}x)" if two else "(2 threads)", ok)


def against_pytorch(path, name, rate, unit, note, case, keep=lambda e: True):
    """Rows of a bench whose peer is PyTorch eager on the same inputs: rate `rate` in `unit`;
    `note` is the key of the largest difference of the peer's results from embpriv's, or a
    function (embpriv's line, the peer's line) -> the text beside the goal."""
    runs = lines(name)
    for e in (r for r in runs if r["impl"] == "embpriv" and keep(r)):
        p = next(r for r in runs if r["impl"] == "pytorch" and r["threads"] == e["threads"]
                 and r.get("name") == e.get("name"))
        ratio = e[rate] / p[rate]
        text = note(e, p) if callable(note) else f"max |diff| {p[note]:.1e}"
        add(path, case(e), e["threads"], f"{e[rate]:,.1f} {unit}", f"{p[rate]:,.1f} {unit}", ratio, "same kernel",
            None, f">= 1.0x ({text})", ratio >= 1.0)


# The language model's forward pass on the same weights and ids; LiRA's shadow models (Newton
# fits) on the same data and halves.
against_pytorch("LM forward vs PyTorch", "lm_forward.json.lines", "tokens_per_s", "tok/s",
                "max_abs_logit_difference", lambda e: f"{e['name']} {e['batch']}x{e['length']}")
# The HF model's memory: embpriv's peak RSS against the goal, the bf16 file plus 2 GiB.
for f in (r for r in lines("lm_forward.json.lines") if r["impl"] == "file"):
    for e in (r for r in lines("lm_forward.json.lines") if r["impl"] == "embpriv" and r["name"] == f["name"]):
        p = next(r for r in lines("lm_forward.json.lines") if r["impl"] == "pytorch" and r["name"] == f["name"]
                 and r["threads"] == e["threads"])
        limit = f["file_mib"] + 2048
        add("LM peak memory", f"{f['name']} ({f['file_mib']} MiB file)", e["threads"], f"{e['peak_rss_mib']:,.0f} MiB",
            f"{p['peak_rss_mib']:,.0f} MiB", e["peak_rss_mib"] / p["peak_rss_mib"], "(not GEMM)", None,
            f"<= file + 2 GiB ({limit:,} MiB)", e["peak_rss_mib"] <= limit)
against_pytorch("LiRA shadows vs PyTorch", "shadow_training.json.lines", "models_per_s", "models/s",
                "max_abs_probability_difference", lambda e: f"{e['name']} x{e['models']}")

# The training paths: the learned inversion MLP (final losses side by side: same data, own draws)
# and a PrivateAI client's Transformer (the peer loads embpriv's initial weights first).
against_pytorch("training vs PyTorch", "training.json.lines", "tokens_per_s", "tok/s",
                lambda e, p: f"loss {e['final_loss']:.3f} vs {p['final_loss']:.3f}",
                lambda e: f"learned inversion {e['tokens']} x{e['epochs']}", lambda e: e["name"] == "learned_inversion")
against_pytorch("training vs PyTorch", "training.json.lines", "units_per_s", "units/s",
                "max_abs_probability_difference", lambda e: f"PrivateAI client {e['units']} x{e['epochs']}",
                lambda e: e["name"] == "privateai_client")
# InvBert's training (attacks/invbert.h) against the same network in PyTorch (final losses side by side).
against_pytorch("training vs PyTorch", "invbert.json.lines", "tokens_per_s", "tok/s",
                lambda e, p: f"loss {e['final_loss']:.3f} vs {p['final_loss']:.3f}",
                lambda e: f"InvBert {e['tokens']} x{e['epochs']}")
# The encoder forward pass on a random BERT-base-sized model (same weights and ids), and its memory
# against the goal: the float32 file plus 1 GiB.
against_pytorch("encoder forward vs PyTorch", "encoder_forward.json.lines", "tokens_per_s", "tok/s",
                "max_abs_hidden_difference", lambda e: f"{e['name']} {e['batch']}x{e['length']}")
for e in (r for r in lines("encoder_forward.json.lines") if r["impl"] == "embpriv"):
    p = next(r for r in lines("encoder_forward.json.lines") if r["impl"] == "pytorch" and r["threads"] == e["threads"])
    limit = e["file_mib"] + 1024
    add("encoder peak memory", f"{e['name']} ({e['file_mib']:,.0f} MiB file)", e["threads"],
        f"{e['peak_rss_mib']:,.0f} MiB", f"{p['peak_rss_mib']:,.0f} MiB", e["peak_rss_mib"] / p["peak_rss_mib"],
        "(not GEMM)", None, f"<= file + 1 GiB ({limit:,.0f} MiB)", e["peak_rss_mib"] <= limit)

header = ("hot path", "case", "thr", "embpriv", "peer", "ratio", "peer as installed", "of SGEMM", "goal", "")
widths = [max(len(str(r[c])) for r in rows + [header]) for c in range(len(header))]
print(f"\nSGEMM 2048^3 (this run): {sgemm:.0f} GFLOP/s; {kernels}")
print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
print("  ".join("-" * w for w in widths))
for r in rows:
    print("  ".join(str(v).ljust(w) for v, w in zip(r, widths)))
