"""Same seeds, same numbers: the module redoes a command-line run's grid point row for row.

Type perturbation seeds its inputs with derive_seed(seed, fnv1a64(flow_yaml(data)), "inputs")
and its mechanism with derive_seed(seed, fnv1a64(point key), "mechanism") (the key of a run
without a sweep is ""). The run stores statistics of y = M(x), not y: the module's y must give
the same 200-bin cosine histogram and the same means.
"""
import numpy as np
import torch

import embpriv
from conftest import cli

CONFIG = """type: perturbation
name: determinism
seed: 11
data: {dim: 48, samples: 300, norm_min: 0.5, norm_max: 2.0, text_fraction: 0.5}
mechanism: {name: vmf, epsilon: 3, beta: 1, alpha: 0.5}
"""


def welford_mean(values):
    # metrics/running_stats.cpp: Welford (1962), in row order.
    mean = 0.0
    for count, value in enumerate(values, start=1):
        mean += (value - mean) / count
    return mean


def serial_row_sum(values):
    # metrics/similarity.cpp sums each row in double, in index order: cumsum does the same.
    return np.cumsum(values, axis=1)[:, -1]


def statistics(x, y):
    xd, yd = x.double().numpy(), y.double().numpy()
    cos = serial_row_sum(xd * yd) / np.sqrt(serial_row_sum(xd * xd) * serial_row_sum(yd * yd))
    bins = np.clip(((cos + 1.0) / 2.0 * 200).astype(np.int64), 0, 199)
    return np.bincount(bins, minlength=200).astype(np.float64), welford_mean(cos.tolist())


def test_module_reproduces_the_command_line_run(workdir):
    config = workdir / "determinism.yaml"
    config.write_text(CONFIG)
    out = workdir / "determinism.h5"
    code, _, stderr = cli("run", config, "--out", out, "--no-plot", "-q")
    assert code == 0, stderr
    results = embpriv.Results(out)
    df = results.table()
    assert len(df) == 1 and df.status[0] == "ok"
    seed = int(df.seed[0])
    input_seed = embpriv.derive_seed(seed, embpriv.fnv1a64(embpriv.flow_yaml(df.attrs["config"], "data")), "inputs")
    mechanism_seed = embpriv.derive_seed(seed, embpriv.fnv1a64(""), "mechanism")
    x = embpriv.random_directions(300, 48, 0.5, 2.0, seed=input_seed)
    # Row i is text when floor((i+1) f) > floor(i f), f = text_fraction (the experiment's rule).
    modality = torch.tensor([int((i + 1) * 0.5) > int(i * 0.5) for i in range(300)], dtype=torch.long)
    m = embpriv.mechanism(embpriv.flow_yaml(df.attrs["config"], "mechanism"))
    counts, mean_cosine = statistics(x, m.perturb(x, seed=mechanism_seed, modality=modality))
    stored_counts = results.curve(df.row[0], "cosine_histogram_counts")
    assert np.array_equal(counts, stored_counts)
    assert mean_cosine == df.mean_cosine[0]
    # The check can fail: the next seed's outputs give other statistics.
    other_counts, other_mean = statistics(x, m.perturb(x, seed=mechanism_seed + 1, modality=modality))
    assert not np.array_equal(other_counts, stored_counts) and other_mean != df.mean_cosine[0]
