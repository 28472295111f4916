#!/usr/bin/python3
"""Independent reference values for tests/experiments/types/accountant/accountant_experiment_test.cpp:
PrivateAI's per-client totals from the papers' formulas, with the functions of
tests/accounting/rdp_reference.py (numpy/scipy; no privacy library).
Run `/usr/bin/python3 tests/experiments/types/accountant/accountant_reference.py`.

A release is a Gaussian mechanism with Delta2 = 2 theta, so only the noise multiplier
s = sigma / (2 theta) matters:
- classic (PrivateAI, sigma^2 = 8 theta^2 ln(1.25/delta) / eps^2): s = sqrt(2 ln(1.25/delta)) / eps;
- analytic (Balle & Wang 2018, Thm 8): the s whose one release is exactly (eps, delta)-DP.
T releases: exact = the analytic eps of s / sqrt(T); RDP = T alpha / (2 s^2), tight conversion.
"""
import math
import os
import sys

from scipy import optimize

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "accounting"))
from rdp_reference import analytic_gaussian_eps, gaussian_eps  # noqa: E402

DELTA, ROUNDS = 0.0025, 10


def analytic_multiplier(eps, delta):
    return optimize.brentq(lambda s: analytic_gaussian_eps(s, delta) - eps, 1e-2, 1e3, xtol=1e-14)


for eps in [0.1, 1, 10]:
    for name, s in [("classic", math.sqrt(2 * math.log(1.25 / DELTA)) / eps),
                    ("analytic", analytic_multiplier(eps, DELTA))]:
        exact = analytic_gaussian_eps(s / math.sqrt(ROUNDS), DELTA)
        rdp = gaussian_eps(s, ROUNDS, DELTA)[0]
        one = analytic_gaussian_eps(s, DELTA)
        print(f"eps={eps} {name}: multiplier {s:.8g} one release {one:.8g} total exact {exact:.8g} rdp {rdp:.8g}")
