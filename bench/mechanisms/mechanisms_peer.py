#!/usr/bin/python3
"""PyTorch eager peer of mechanisms_bench.cpp (bench/README.md).

The five per-vector mechanisms of embpriv written the way one would write them in PyTorch eager
(whole-batch tensor ops, in place where that is natural), timed exactly like the C++ bench: one
warm-up run, then the best of --repeats runs, each run's output released before the next.
Also times the floor of drawing the N*d normals alone: torch.randn(N, d).

Prints one JSON line per mechanism, with the same fields as the C++ bench.
Run it with Debian's interpreter, /usr/bin/python3 (python3-torch); a pyenv python3 has no torch.

Mechanisms and parameters (the same as in mechanisms_bench.cpp):
  vmf_tangent  vMF paper, Algorithm 1, epsilon 2, beta 1 (lambda = beta / epsilon)
  vmf          exact von Mises-Fisher, kappa = epsilon / beta = 2, w by Wood (1994)
  gaussian     clip to L2 norm C = 1, add N(0, sigma^2), analytic sigma (Balle & Wang 2018,
               eps 2, delta 1e-5, Delta2 = 2C)
  laplace      clip to L1 norm C = 1, add Laplace(0, b), b = 2C / eps
  npgaussian   gaussian, then rescale each row to ||x|| (vMF paper, Def. 7.3)
"""
import argparse
import json
import math
import sys
import time

import torch

EPSILON = 2.0
BETA = 1.0
DELTA = 1e-5
CLIP_NORM = 1.0


# ---------------------------------------------------------------------------------------------
# Noise calibration
# ---------------------------------------------------------------------------------------------
def normal_cdf(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def analytic_gaussian_delta(epsilon, sigma, sensitivity):
    """Balle & Wang (2018), Thm 8: the delta that sigma achieves at epsilon."""
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return normal_cdf(a - b) - math.exp(epsilon) * normal_cdf(-a - b)


def analytic_gaussian_sigma(epsilon, delta, sensitivity):
    """The smallest sigma with analytic_gaussian_delta(...) <= delta, by bisection."""
    lo, hi = 1e-12 * sensitivity, sensitivity
    while analytic_gaussian_delta(epsilon, hi, sensitivity) > delta:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if analytic_gaussian_delta(epsilon, mid, sensitivity) > delta:
            lo = mid
        else:
            hi = mid
    return hi


SIGMA = analytic_gaussian_sigma(EPSILON, DELTA, 2.0 * CLIP_NORM)
LAPLACE_SCALE = 2.0 * CLIP_NORM / EPSILON


# ---------------------------------------------------------------------------------------------
# Mechanisms
# ---------------------------------------------------------------------------------------------
def unit_tangent(mu):
    """A uniform unit vector orthogonal to each row of mu (vMF paper, Algorithm 1, step 2)."""
    n = torch.randn_like(mu)
    n.sub_((n * mu).sum(dim=1, keepdim=True) * mu)
    return n.div_(n.norm(dim=1, keepdim=True))


def vmf_tangent(x):
    """vMF paper, Algorithm 1: deflect every direction by the angle arctan(beta / eps)."""
    r = x.norm(dim=1, keepdim=True)
    mu = x / r
    z = unit_tangent(mu).mul_(BETA / EPSILON).add_(mu)  # z = mu + lambda n_perp
    return z.mul_(r / z.norm(dim=1, keepdim=True))


def wood_w(n, kappa, d):
    """Wood (1994): n draws of w = mu^T z for z ~ vMF(mu, kappa) on S^{d-1}, vectorised
    rejection (every pending row draws once per round; rejected rows retry)."""
    m1 = float(d - 1)
    b = m1 / (2.0 * kappa + math.sqrt(4.0 * kappa * kappa + m1 * m1))
    x0 = (1.0 - b) / (1.0 + b)
    c = kappa * x0 + m1 * math.log(1.0 - x0 * x0)
    half = torch.tensor(0.5 * m1, dtype=torch.float64)
    beta = torch.distributions.Beta(half, half)
    w = torch.empty(n, dtype=torch.float64)
    pending = torch.arange(n)
    while pending.numel() > 0:
        m = pending.numel()
        z = beta.sample((m,))
        candidate = (1.0 - (1.0 + b) * z) / (1.0 - (1.0 - b) * z)
        u = torch.rand(m, dtype=torch.float64)
        accept = kappa * candidate + m1 * torch.log1p(-x0 * candidate) - c >= torch.log(u)
        w[pending[accept]] = candidate[accept]
        pending = pending[~accept]
    return w


def vmf(x):
    """Exact vMF around mu = x / ||x||, kappa = eps / beta: y = r (w mu + sqrt(1 - w^2) v)."""
    r = x.norm(dim=1, keepdim=True)
    mu = x / r
    w = wood_w(x.shape[0], EPSILON / BETA, x.shape[1]).unsqueeze(1)
    across = torch.sqrt(1.0 - w * w).to(x.dtype).mul_(r)
    along = w.to(x.dtype).mul_(r)
    return unit_tangent(mu).mul_(across).add_(mu.mul_(along))


def clip_l2(x):
    norm = x.norm(dim=1, keepdim=True)
    return x * (CLIP_NORM / norm).clamp_(max=1.0), norm


def gaussian(x):
    clipped, _ = clip_l2(x)
    return torch.randn_like(x).mul_(SIGMA).add_(clipped)


def laplace(x):
    """Clip to L1 norm C, add Laplace(0, b) by inversion, as torch.distributions.Laplace does."""
    scale = (CLIP_NORM / x.abs().sum(dim=1, keepdim=True)).clamp_(max=1.0)
    u = torch.empty_like(x).uniform_(torch.finfo(x.dtype).eps - 1.0, 1.0)
    noise = u.sign().mul_(torch.log1p(u.abs_().neg_())).mul_(-LAPLACE_SCALE)
    return noise.add_(x * scale)


def npgaussian(x):
    clipped, norm = clip_l2(x)
    y = torch.randn_like(x).mul_(SIGMA).add_(clipped)
    return y.mul_(norm / y.norm(dim=1, keepdim=True))


MECHANISMS = {
    "vmf_tangent": vmf_tangent,
    "vmf": vmf,
    "gaussian": gaussian,
    "laplace": laplace,
    "npgaussian": npgaussian,
}


# ---------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------
def best_time(repeats, run):
    """Best wall time of `repeats` calls after one warm-up; returns (seconds, last output)."""
    run()
    best, out = math.inf, None
    for _ in range(repeats):
        out = None  # release the previous output first, as the C++ bench does
        start = time.perf_counter()
        out = run()
        best = min(best, time.perf_counter() - start)
    return best, out


def make_inputs(n, d, seed):
    """N random directions with norms uniform in [0.5, 2] (as in mechanisms_bench.cpp)."""
    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=gen)
    norms = torch.empty(n, 1).uniform_(0.5, 2.0, generator=gen)
    return x.mul_(norms / x.norm(dim=1, keepdim=True))


def stats(x, y):
    """Mean cos(x, y) and mean ||y|| / ||x|| over all rows (as mechanisms_bench.cpp)."""
    cos_sum, ratio_sum, finite = 0.0, 0.0, True
    for begin in range(0, x.shape[0], 4096):
        xs, ys = x[begin:begin + 4096].double(), y[begin:begin + 4096].double()
        nx, ny = xs.norm(dim=1), ys.norm(dim=1)
        cos_sum += ((xs * ys).sum(dim=1) / (nx * ny)).sum().item()
        ratio_sum += (ny / nx).sum().item()
        finite = finite and bool(torch.isfinite(ys).all().item())
    return {"mean_cos": cos_sum / x.shape[0], "mean_norm_ratio": ratio_sum / x.shape[0],
            "finite": finite}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=65536)
    parser.add_argument("--d", type=int, default=4096)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--only", default="", help="comma-separated subset (also randn_floor)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed + 1)
    only = [s for s in args.only.split(",") if s]

    def emit(name, seconds, extra=None):
        line = {"name": name, "impl": "pytorch", "n": args.n, "d": args.d, "seconds": seconds,
                "vectors_per_s": args.n / seconds, "threads": torch.get_num_threads(),
                "repeats": args.repeats, "torch": torch.__version__}
        line.update(extra or {})
        print(json.dumps(line), flush=True)

    x = make_inputs(args.n, args.d, args.seed)
    with torch.no_grad():
        for name, mechanism in MECHANISMS.items():
            if only and name not in only:
                continue
            seconds, y = best_time(args.repeats, lambda: mechanism(x))
            extra = {}
            if name in ("gaussian", "npgaussian"):
                extra["sigma"] = SIGMA
            if name == "laplace":
                extra["scale"] = LAPLACE_SCALE
            extra.update(stats(x, y))
            del y
            emit(name, seconds, extra)
        if not only or "randn_floor" in only:
            seconds, y = best_time(args.repeats, lambda: torch.randn(args.n, args.d))
            del y
            emit("randn_floor", seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
