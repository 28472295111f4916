#!/usr/bin/python3
"""Independent reference values for tests/attacks/rmia_test.cpp: RMIA (Zarifzadeh, Liu,
Mohapatra & Shokri, ICML 2024: LR_theta(x, z) and Score_MIA) on a small hand-made case, with numpy only.
Run `/usr/bin/python3 tests/attacks/rmia_reference.py`; the test holds its output.

- Pr(x|theta): the target's probability of the true label; Pr(x): online the mean over all
  reference models; offline ((1 + a) mean_OUT + (1 - a)) / 2, for x and z alike.
- A candidate that is "in" every reference model takes, offline, the mean over all "out" pairs.
- score(x) = mean over z of [ (px / Pr(x)) / (pz / Pr(z)) >= gamma ].
"""
import numpy as np

px = np.array([0.9, 0.6, 0.3, 0.75])
ref = np.array([[0.8, 0.5, 0.4, 0.7],
                [0.6, 0.7, 0.2, 0.9]])
ref_in = np.array([[1, 0, 0, 1],
                   [1, 1, 0, 0]], dtype=bool)
pz = np.array([0.5, 0.72, 0.2, 0.9, 0.35])
ref_z = np.array([[0.5, 0.6, 0.3, 0.8, 0.6],
                  [0.4, 0.8, 0.25, 0.72, 0.3]])


def scores(gamma, a):
    out = ~ref_in
    n_out = out.sum(axis=0)
    global_out = ref[out].mean()
    mean_out = np.array([ref[out[:, i], i].mean() if n_out[i] > 0 else global_out for i in range(len(px))])
    online_x, online_z = ref.mean(axis=0), ref_z.mean(axis=0)
    offline_x = ((1 + a) * mean_out + (1 - a)) / 2
    offline_z = ((1 + a) * online_z + (1 - a)) / 2
    def dominance(rx, rz):
        return np.array([np.mean([(x / z) >= gamma for z in rz]) for x in rx])
    return dominance(px / online_x, pz / online_z), dominance(px / offline_x, pz / offline_z)


for gamma, a in [(1.0, 0.3), (1.5, 0.3), (1.0, 1.0), (0.8, 0.0)]:
    on, off = scores(gamma, a)
    print(f"gamma={gamma} a={a}: online {on.tolist()} offline {off.tolist()}")
