#!/usr/bin/python3
"""Independent reference values for tests/accounting/*_test.cpp, computed from the papers'
formulas with numpy/scipy (no privacy library): run `/usr/bin/python3 tests/accounting/rdp_reference.py`.

- RDP of the Gaussian, alpha / (2 sigma^2) (Mironov 2017, Prop. 7), composed over T rounds,
  converted with eps = rdp + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1) (Balle et
  al. 2020, Thm 21), minimised with scipy.optimize.minimize_scalar (bounded).
- Poisson-subsampled Gaussian, integer alpha (Mironov, Talwar & Zhang 2019, Sec. 3.3):
  A = sum_k C(alpha,k) (1-q)^(alpha-k) q^k exp((k^2-k)/(2 sigma^2)), with exact integer binomials
  (math.comb) and scipy.special.logsumexp; orders 2..512.
- Poisson-subsampled Gaussian at any real alpha: A_alpha = E_{z ~ N(0, sigma^2)}[((1-q) + q
  e^((2z-1)/(2 sigma^2)))^alpha] (MTZ 2019, Sec. 3.3, the definition, before any series),
  integrated numerically with mpmath at 40 digits; orders 1.1..11.9 (tenths) and 2..512.
- The analytic Gaussian (Balle & Wang 2018, Thm 8) for T rounds = one round of sigma/sqrt(T):
  the eps solving Phi(1/(2s) - eps s) - e^eps Phi(-1/(2s) - eps s) = delta (Delta2 = 1).
- Laplace composition: DRV 2010 Thm III.3 and KOV 2015 Thm 3.4.
"""
import math

import mpmath as mp
import numpy as np
from scipy import optimize, special, stats


def convert(alpha, rdp, delta):
    return rdp + math.log((alpha - 1) / alpha) - (math.log(delta) + math.log(alpha)) / (alpha - 1)


def gaussian_eps(sigma, rounds, delta):
    f = lambda a: convert(a, rounds * a / (2 * sigma ** 2), delta)
    grid = np.exp(np.linspace(math.log(1.0001), math.log(1e6), 200001))
    values = [f(a) for a in grid[::100]]
    i = int(np.argmin(values))
    lo, hi = grid[max(0, (i - 1) * 100)], grid[min(len(grid) - 1, (i + 1) * 100)]
    r = optimize.minimize_scalar(f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12})
    return max(0.0, r.fun), r.x


def subsampled_rdp(alpha, q, sigma):
    logs = [math.log(math.comb(alpha, k)) + (alpha - k) * math.log(1 - q) + k * math.log(q)
            + (k * k - k) / (2 * sigma ** 2) for k in range(alpha + 1)]
    return special.logsumexp(logs) / (alpha - 1)


def subsampled_rdp_integral(alpha, q, sigma):
    mp.mp.dps = 40
    alpha, q, sigma = mp.mpf(alpha), mp.mpf(q), mp.mpf(sigma)
    density = lambda z: mp.npdf(z, 0, sigma) * ((1 - q) + q * mp.e ** ((2 * z - 1) / (2 * sigma ** 2))) ** alpha
    a = mp.quad(density, [-mp.inf, -10 * sigma, 0, 0.5, 10 * sigma, 40 * sigma + alpha, mp.inf])
    return float(mp.log(a) / (alpha - 1))


def subsampled_eps(sigma, q, rounds, delta):
    best = (math.inf, 0)
    for tenths in range(11, 120):
        if tenths % 10:
            alpha = tenths / 10
            best = min(best, (convert(alpha, rounds * subsampled_rdp_integral(alpha, q, sigma), delta), alpha))
    for alpha in range(2, 513):
        e = convert(alpha, rounds * subsampled_rdp(alpha, q, sigma), delta)
        best = min(best, (e, alpha))
    return best


def analytic_gaussian_eps(s, delta):
    def excess(eps):
        return (stats.norm.cdf(1 / (2 * s) - eps * s)
                - math.exp(eps + stats.norm.logcdf(-1 / (2 * s) - eps * s)) - delta)
    if excess(0) <= 0:
        return 0.0
    return optimize.brentq(excess, 0, 1e5, xtol=1e-13)


def drv(eps, t, delta):
    return math.sqrt(2 * t * math.log(1 / delta)) * eps + t * eps * (math.exp(eps) - 1)


def kov(eps, t, delta):
    drift = t * eps * (math.exp(eps) - 1) / (math.exp(eps) + 1)
    return min(t * eps, drift + eps * math.sqrt(2 * t * math.log(math.e + math.sqrt(t * eps * eps) / delta)),
               drift + eps * math.sqrt(2 * t * math.log(1 / delta)))


if __name__ == "__main__":
    for sigma, t, delta in [(1.0, 1, 1e-5), (1.0, 100, 1e-5), (4.0, 10000, 1e-5), (0.5, 10, 1e-6)]:
        e, a = gaussian_eps(sigma, t, delta)
        print(f"gaussian sigma={sigma} T={t} delta={delta}: eps={e:.10g} alpha={a:.6g}"
              f"  analytic={analytic_gaussian_eps(sigma / math.sqrt(t), delta):.10g}")
    for alpha, q, sigma in [(2, 0.01, 4.0), (32, 0.01, 4.0), (8, 0.1, 1.0), (256, 0.001, 0.8)]:
        print(f"subsampled rdp alpha={alpha} q={q} sigma={sigma}: {subsampled_rdp(alpha, q, sigma):.12g}")
    for alpha, q, sigma in [(2.5, 0.01, 4.0), (1.5, 0.1, 1.0), (7.3, 0.05, 2.0), (8, 0.1, 1.0)]:
        print(f"subsampled rdp (integral) alpha={alpha} q={q} sigma={sigma}:"
              f" {subsampled_rdp_integral(alpha, q, sigma):.12g}")
    for sigma, q, t, delta in [(4.0, 0.01, 10000, 1e-5), (1.1, 0.01, 10000, 1e-5), (2.0, 0.05, 500, 1e-6),
                               (4.0, 0.01, 100, 1e-5)]:
        e, a = subsampled_eps(sigma, q, t, delta)
        print(f"subsampled sigma={sigma} q={q} T={t} delta={delta}: eps={e:.10g} alpha={a}")
    for eps, t, delta in [(0.1, 100, 1e-5), (1.0, 10, 1e-5), (0.01, 10000, 1e-6)]:
        print(f"laplace eps={eps} T={t} delta={delta}: basic={eps * t:.10g} drv={drv(eps, t, delta):.10g}"
              f" kov={kov(eps, t, delta):.10g}")
