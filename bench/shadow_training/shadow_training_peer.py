#!/usr/bin/env python3
"""PyTorch eager (python3-torch from Debian), the peer of shadow_training_bench.cpp: the
same L2-penalised logistic regressions fitted by Newton's method (standardised features, a bias
column without penalty, float64, stop when a step moves no weight by 1e-10), on the features,
labels and random halves embpriv used, timed the same way. Prints one JSON line with the largest
difference from embpriv's probabilities of the first model.
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_timing import best_seconds  # noqa: E402


def fit(x, y, l2=1e-2, max_iterations=50):
    mean, scale = x.mean(0), x.std(0).clamp_min(1e-12)
    design = torch.cat([(x - mean) / scale, torch.ones(x.shape[0], 1, dtype=x.dtype)], 1)
    p = design.shape[1]
    penalty = torch.eye(p, dtype=x.dtype) * l2 * x.shape[0]
    penalty[p - 1, p - 1] = 0
    w = torch.zeros(p, dtype=x.dtype)
    for _ in range(max_iterations):
        mu = torch.sigmoid(design @ w)
        s = (mu * (1 - mu)).clamp_min(1e-12)
        step = torch.linalg.solve((design.T * s) @ design + penalty, design.T @ (y - mu) - penalty @ w)
        w = w + step
        if step.abs().max().item() < 1e-10:
            break
    return mean, scale, w


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dump", required=True)
    # The bench's sizes, which the dump holds anyway: when given, they must match it.
    parser.add_argument("--n", type=int)
    parser.add_argument("--d", type=int)
    parser.add_argument("--models", type=int)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    labels = torch.from_numpy(np.fromfile(f"{args.dump}/shadow_labels.i64", dtype="<i8"))
    n = labels.numel()
    features = torch.from_numpy(np.fromfile(f"{args.dump}/shadow_features.f32", dtype="<f4").reshape(n, -1))
    d = features.shape[1]
    halves = torch.from_numpy(np.fromfile(f"{args.dump}/shadow_rows.i64", dtype="<i8")).reshape(-1, n // 2)
    for given, found, name in [(args.n, n, "--n"), (args.d, d, "--d"), (args.models, len(halves), "--models")]:
        if given is not None and given != found:
            parser.error(f"{name} {given} does not match the dump in {args.dump} ({found})")
    theirs = torch.from_numpy(np.fromfile(f"{args.dump}/shadow_first_probabilities.f64", dtype="<f8"))
    x_all, y_all = features.double(), labels.double()
    result = {}

    def fit_all():
        for m, rows in enumerate(halves):
            mean, scale, w = fit(x_all[rows], y_all[rows])
            if m == 0:
                design = torch.cat([(x_all - mean) / scale, torch.ones(n, 1, dtype=torch.float64)], 1)
                result["first"] = torch.sigmoid(design @ w)

    seconds = best_seconds(args.repeats, fit_all)
    print(json.dumps({"name": f"logistic_{n}x{d}", "impl": "pytorch", "n": n, "d": d,
                      "models": len(halves), "threads": args.threads, "seconds": seconds,
                      "models_per_s": len(halves) / seconds,
                      "max_abs_probability_difference": float((result["first"] - theirs).abs().max())}), flush=True)


if __name__ == "__main__":
    main()
