#!/usr/bin/env python3
"""The table of run_mechanisms.sh: from the JSON lines of mechanisms_bench and mechanisms_peer.py
(each tagged with the run's peak RSS and the CPU load seen before it), embpriv's speed-up over
PyTorch eager and its time over the torch.randn floor for each mechanism and thread count, the
reference lines, and the sanity checks (both sides compute the same thing, and agree with the
vMF paper's theory where it is exact). Writes the whole as JSON.

Usage: mechanisms_table.py RAW_LINES OUT_JSON SPEEDUP_TARGET FLOOR_TARGET
"""
import json, os, platform, subprocess, sys, time

raw, out, speedup_target, floor_target = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
lines = [json.loads(l) for l in open(raw) if l.strip()]
by = {(l["impl"], l["threads"], l["name"]): l for l in lines}
mechanisms = ["vmf_tangent", "vmf", "gaussian", "laplace", "npgaussian"]
threads = sorted({l["threads"] for l in lines if l["impl"] == "embpriv"})
rows = []
for t in threads:
    floor = by[("pytorch", t, "randn_floor")]
    for name in mechanisms:
        e, p = by[("embpriv", t, name)], by[("pytorch", t, name)]
        speedup = p["seconds"] / e["seconds"]
        vs_floor = e["seconds"] / floor["seconds"]
        rows.append({
            "threads": t, "mechanism": name, "n": e["n"], "d": e["d"],
            "embpriv_seconds": e["seconds"], "embpriv_vectors_per_s": e["vectors_per_s"],
            "embpriv_cpu_per_wall": e["cpu_per_wall"],
            "pytorch_seconds": p["seconds"], "pytorch_vectors_per_s": p["vectors_per_s"],
            "randn_floor_seconds": floor["seconds"],
            "speedup_vs_pytorch": speedup, "time_over_randn_floor": vs_floor,
            "pytorch_over_randn_floor": p["seconds"] / floor["seconds"],
            "pass_speedup": speedup >= speedup_target, "pass_floor": vs_floor <= floor_target,
            # Another process was using the CPUs just before one of the two runs, or took CPU
            # time from the embpriv run (which keeps at least one thread busy all the time).
            "contended": max(e["cpu_busy_before"], p["cpu_busy_before"],
                             floor["cpu_busy_before"]) > 0.10 or e["cpu_per_wall"] < 0.95,
            # Sanity: both implementations must agree on what they compute.
            "embpriv_mean_cos": e["mean_cos"], "pytorch_mean_cos": p["mean_cos"],
            "embpriv_mean_norm_ratio": e["mean_norm_ratio"],
            "pytorch_mean_norm_ratio": p["mean_norm_ratio"],
            "sigma_or_scale": {"embpriv": e.get("sigma", e.get("scale")),
                               "pytorch": p.get("sigma", p.get("scale"))},
        })

def fmt(x):
    return f"{x:,.0f}"

header = (f"{'thr':>3} {'mechanism':<12} {'embpriv vec/s':>14} {'pytorch vec/s':>14} "
          f"{'speedup':>8} {'t/randn':>8} {'>=5x PT':>8} {'<=1.5x floor':>12}  {'cpu/wall':>8}")
print()
print(header)
print("-" * len(header))
for r in rows:
    print(f"{r['threads']:>3} {r['mechanism']:<12} {fmt(r['embpriv_vectors_per_s']):>14} "
          f"{fmt(r['pytorch_vectors_per_s']):>14} {r['speedup_vs_pytorch']:>7.2f}x "
          f"{r['time_over_randn_floor']:>7.2f}x {'PASS' if r['pass_speedup'] else 'FAIL':>8} "
          f"{'PASS' if r['pass_floor'] else 'FAIL':>12}  {r['embpriv_cpu_per_wall']:>8.2f}"
          + ("  (CPU shared with another process: unreliable)" if r["contended"] else ""))
print()
references = []
for t in threads:
    for impl, name, label in [("pytorch", "randn_floor", "torch.randn(N, d) (Python)"),
                              ("embpriv", "randn_floor", "at::randn(N, d) (C++)"),
                              ("embpriv", "embpriv_normals", "embpriv Rng normals (C++)")]:
        l = by.get((impl, t, name))
        if l:
            references.append({"threads": t, "what": label, "seconds": l["seconds"],
                               "vectors_per_s": l["vectors_per_s"]})
            print(f"{t:>3} {label:<30} {l['seconds']:8.3f} s  {fmt(l['vectors_per_s']):>10} vec/s")
print()
# Sanity: both implementations compute the same thing. Algorithm 1 puts every output at
# cos = 1/sqrt(1 + (beta/eps)^2) (vMF paper, Prop. 3.1); exact vMF has E[cos] = A_d(kappa)
# (Thm 5.3), sd about 1/sqrt(d) per row; the noise mechanisms are compared with each other.
def bessel_ratio(d, kappa, terms=400):
    """A_d(kappa) = I_{d/2}(kappa) / I_{d/2-1}(kappa) by the backward continued fraction."""
    nu, r = d / 2.0 - 1.0, 0.0
    for k in range(terms, 0, -1):
        r = 1.0 / (2.0 * (nu + k) / kappa + r)
    return r

def expected_cos(name, d):
    eps, beta = 2.0, 1.0  # the parameters of mechanisms_bench.cpp and mechanisms_peer.py
    if name == "vmf_tangent":
        return 1.0 / (1.0 + (beta / eps) ** 2) ** 0.5, 1e-5
    if name == "vmf":
        return bessel_ratio(d, eps / beta), 5.0 / (d ** 0.5 * rows[0]["n"] ** 0.5)
    return None, None

print("sanity over all rows: mean cos(x, y) and mean ||y||/||x||, embpriv vs pytorch (vs theory):")
sanity_ok = True
for r in rows:
    if r["threads"] != threads[0]:
        continue
    expected, tol = expected_cos(r["mechanism"], r["d"])
    checks = [abs(r["embpriv_mean_cos"] - r["pytorch_mean_cos"]) <= 0.002,
              abs(r["embpriv_mean_norm_ratio"] / r["pytorch_mean_norm_ratio"] - 1) <= 0.01]
    if expected is not None:
        checks += [abs(r["embpriv_mean_cos"] - expected) <= tol,
                   abs(r["pytorch_mean_cos"] - expected) <= tol]
    ss = r["sigma_or_scale"]
    if ss["embpriv"] is not None:
        checks.append(abs(ss["embpriv"] / ss["pytorch"] - 1) <= 1e-9)
    r["sanity_ok"] = all(checks)
    sanity_ok = sanity_ok and r["sanity_ok"]
    print(f"    {r['mechanism']:<12} cos {r['embpriv_mean_cos']:+.6f} vs {r['pytorch_mean_cos']:+.6f}"
          + (f" (theory {expected:+.6f} +- {tol:.1g})" if expected is not None else " " * 27)
          + f"  norm ratio {r['embpriv_mean_norm_ratio']:.4f} vs {r['pytorch_mean_norm_ratio']:.4f}"
          + (f"  sigma/scale {ss['embpriv']:.10g} vs {ss['pytorch']:.10g}" if ss["embpriv"] else "")
          + ("  ok" if r["sanity_ok"] else "  MISMATCH"))
peaks = {(l["impl"], l["threads"]): l["peak_rss_mib"] for l in lines}
print("peak RSS (MiB):", ", ".join(f"{i} {t} thr: {m}" for (i, t), m in sorted(peaks.items())))

cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
document = {
    "benchmark": "bench/mechanisms",
    "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    "machine": {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release()},
    "targets": {"speedup_vs_pytorch_at_least": speedup_target,
                "time_over_randn_floor_at_most": floor_target},
    "sanity_ok": sanity_ok,
    "rows": rows,
    "references": references,
    "raw": lines,
}
with open(out, "w") as f:
    json.dump(document, f, indent=1)
print(f"wrote {out}")
