#!/usr/bin/env bash
# Benchmarks the five per-vector mechanisms of embpriv against PyTorch eager and against the
# torch.randn floor (bench/README.md). Builds mechanisms_bench, runs it and
# bench/mechanisms_peer.py one after the other on this machine for each thread count, prints a
# table and writes it as JSON to results/bench_mechanisms.json.
#
# Settings (environment variables):
#   BUILD_DIR  build directory               (default <repo>/build-bench)
#   N, D       batch shape                   (default 65536 x 4096: 1 GiB per float32 tensor)
#   REPEATS    timed runs after one warm-up   (default 3; the best is kept)
#   THREADS    thread counts to measure       (default "1 2")
#   IDLE_WAIT  seconds to wait for an idle CPU before each run (default 600; 0: do not wait)
#   OUT        JSON output                    (default <repo>/results/bench_mechanisms.json)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$ROOT/bench/common.sh"
BUILD_DIR=${BUILD_DIR:-$ROOT/build-bench}
N=${N:-65536}
D=${D:-4096}
REPEATS=${REPEATS:-3}
THREADS=${THREADS:-"1 2"}
IDLE_WAIT=${IDLE_WAIT:-600}
OUT=${OUT:-$ROOT/results/bench_mechanisms.json}
PYTHON=/usr/bin/python3  # Debian's python3-torch; the pyenv python3 on PATH has no torch
SPEEDUP_TARGET=5.0       # embpriv must be >= 5x PyTorch eager
FLOOR_TARGET=1.5         # and take <= 1.5x the time of torch.randn(N, D)

# --- Build ---------------------------------------------------------------------------------
if [[ ! -f $BUILD_DIR/CMakeCache.txt ]]; then
  cmake -S "$ROOT" -B "$BUILD_DIR" -DEMBPRIV_TESTS=OFF
fi
cmake --build "$BUILD_DIR" -j2 --target mechanisms_bench

# --- Memory --------------------------------------------------------------------------------
# The peer holds up to ~5 [N, D] float32 tensors at once (input, output, normals, temporaries);
# the C++ bench 3 (input, output, the previous output while it is being released).
tensor_bytes=$((N * D * 4))
need_bytes=$((6 * tensor_bytes))
avail_bytes=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) * 1024))
echo "one [N, D] float32 tensor: $((tensor_bytes >> 20)) MiB; need ~$((need_bytes >> 20)) MiB," \
  "available $((avail_bytes >> 20)) MiB"
if ((avail_bytes < need_bytes)); then
  echo "not enough free memory for N=$N D=$D; lower N" >&2
  exit 1
fi

# --- Idle CPU ------------------------------------------------------------------------------
# Other people compile on this machine: wait (up to IDLE_WAIT s) until under 10% is busy.
wait_idle() {
  local waited=0 busy
  busy=$(cpu_busy)
  while awk -v b="$busy" 'BEGIN { exit !(b > 0.10) }' && ((waited < IDLE_WAIT)); do
    sleep 4
    waited=$((waited + 5))
    busy=$(cpu_busy)
  done
  echo "$busy"
}

# --- Runs ----------------------------------------------------------------------------------
raw=$(mktemp)
trap 'rm -f "$raw" "$raw".*' EXIT
trap 'exit 130' INT TERM
for t in $THREADS; do
  for impl in embpriv pytorch; do
    busy=$(wait_idle)
    echo "threads=$t $impl: CPU busy before the run: $busy" >&2
    if [[ $impl == embpriv ]]; then
      cmd=("$BUILD_DIR/mechanisms_bench" --n "$N" --d "$D" --repeats "$REPEATS" --threads "$t")
    else
      cmd=("$PYTHON" "$ROOT/bench/mechanisms_peer.py" --n "$N" --d "$D" --repeats "$REPEATS"
           --threads "$t")
    fi
    /usr/bin/time -f "%M" -o "$raw.rss" "${cmd[@]}" | tee "$raw.out" >&2
    rss_kib=$(tail -1 "$raw.rss")
    # Tag every line with the run's peak RSS and the CPU load seen just before it.
    sed "s/}\$/, \"peak_rss_mib\": $((rss_kib / 1024)), \"cpu_busy_before\": $busy}/" \
      "$raw.out" >>"$raw"
  done
done

# --- Table ---------------------------------------------------------------------------------
mkdir -p "$(dirname "$OUT")"
"$PYTHON" - "$raw" "$OUT" "$SPEEDUP_TARGET" "$FLOOR_TARGET" <<'EOF'
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
EOF
