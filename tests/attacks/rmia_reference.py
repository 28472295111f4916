#!/usr/bin/python3
"""Independent reference values for tests/attacks/rmia_test.cpp: RMIA (Zarifzadeh, Liu,
Mohapatra & Shokri, ICML 2024: LR_theta(x, z) and Score_MIA) on a small hand-made case, with numpy only.
Run `/usr/bin/python3 tests/attacks/rmia_reference.py`; the test holds its output.

- Pr(x|theta): the target's probability of the true label; Pr(x): online the mean over all
  reference models; offline ((1 + a) mean_OUT + (1 - a)) / 2, for x and z alike.
- A candidate that is "in" every reference model takes, offline, the mean over all "out" pairs.
- score(x) = mean over z of [ (px / Pr(x)) / (pz / Pr(z)) >= gamma ].
- Ties broken (embpriv's default): (count + r / (1 + r)) / P with r = px / Pr(x); the
  tie-broken scores are checked never to order two candidates against r.
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
    def tie_broken(rx, rz):
        counts = np.array([sum((x / z) >= gamma for z in rz) for x in rx])
        broken = (counts + rx / (1 + rx)) / len(rz)
        # Never out of the order of r (equal r, here 0.6 / 0.6 and 0.3 / 0.3 online, stay tied).
        assert all(broken[i] <= broken[j] for i in range(len(rx)) for j in range(len(rx)) if rx[i] < rx[j])
        return broken
    rx_on, rz_on = px / online_x, pz / online_z
    rx_off, rz_off = px / offline_x, pz / offline_z
    return (dominance(rx_on, rz_on), dominance(rx_off, rz_off), tie_broken(rx_on, rz_on),
            tie_broken(rx_off, rz_off))


for gamma, a in [(1.0, 0.3), (1.5, 0.3), (1.0, 1.0), (0.8, 0.0)]:
    on, off, on_tb, off_tb = scores(gamma, a)
    print(f"gamma={gamma} a={a}: online {on.tolist()} offline {off.tolist()}")
    print(f"  ties broken: online {[f'{v:.15f}' for v in on_tb]} offline {[f'{v:.15f}' for v in off_tb]}")
