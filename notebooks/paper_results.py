"""Finds, checks and summarises the results files the notebooks draw (docs/python.md, "Notebooks").

The results of a config are read from the file named by EMBPRIV_<CONFIG> (the config's file name
in upper case: EMBPRIV_OBFUSLM_STORIES260K for configs/paper/obfuslm_stories260k.yaml), or else
from results/<config>.h5 at the top of the checkout, where `embpriv run` writes them. `load()`
raises, naming the file, on a missing file, a run of another type, a missing column or a run
without successful rows, so that a notebook run in CI fails instead of drawing nothing.
EMBPRIV_PYTHONPATH names the folder of the built module (default build/python of the checkout).
"""
import os
import sys

import numpy as np
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.abspath(os.environ.get("EMBPRIV_PYTHONPATH", os.path.join(ROOT, "build", "python"))))
import embpriv  # noqa: E402  (the built module, found through the path above)


def results_path(config):
    """The results file of `config`: $EMBPRIV_<CONFIG>, or results/<config>.h5."""
    return os.environ.get("EMBPRIV_" + config.upper(), os.path.join(ROOT, "results", config + ".h5"))


def require_columns(df, columns):
    """Raises KeyError naming the file and every column of `columns` that `df` lacks."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise KeyError(f"{df.attrs.get('path', '?')}: missing columns {missing} (has {sorted(df.columns)})")


def load(config, run_type, columns):
    """The successful rows of `config`'s results, checked: type `run_type`, every column of
    `columns` present, at least one row with status ok."""
    path = results_path(config)
    if not os.path.exists(path):
        raise FileNotFoundError(f"{path}: no results of {config} (run `embpriv run configs/paper/{config}.yaml`, "
                                f"or set EMBPRIV_{config.upper()} to a results file)")
    df = embpriv.read_results(path)
    if df.attrs.get("type") != run_type:
        raise ValueError(f"{path} holds a {df.attrs.get('type')!r} run, not a {run_type!r} run")
    require_columns(df, ["row", "seed", "status"] + list(columns))
    ok = df[df.status == "ok"].copy()
    if ok.empty:
        raise ValueError(f"{path}: no row ran successfully")
    ok.attrs.update(df.attrs)
    print(f"{config}: {path} ({df.attrs.get('name')}, {len(df)} rows, {len(ok)} ok, "
          f"commit {df.attrs.get('git_commit', '?')[:10]})")
    return ok


def with_setting(df, key, default):
    """`df` with a column `key` (a dotted config key such as "method" or "distill.mu"): the swept
    column when the run sweeps it, else the config's value, else the type's default `default`."""
    if key in df.columns:
        return df
    value = yaml.safe_load(df.attrs.get("config", "")) or {}
    for part in key.split("."):
        value = value.get(part, default) if isinstance(value, dict) else default
    out = df.copy()
    out[key] = value
    out.attrs.update(df.attrs)
    return out


def mean_sem(df, by, value):
    """Mean and standard error over seeds of `value` per group of `by` (sem 0 for one seed)."""
    g = df.groupby(by, dropna=False)[value].agg(["mean", "std", "count"]).reset_index()
    g["sem"] = (g["std"] / np.sqrt(g["count"])).fillna(0)
    return g


def style(ax, df, what, *, probability=False, chance=None, chance_label="chance", legend=True):
    """Title naming the config and what is swept; 0..1 axis for probabilities; a chance line;
    the legend outside the axes, so it never covers data or axis labels."""
    ax.set_title(f"{df.attrs.get('name', '?')}: {what}", fontsize=9)
    if probability:
        ax.set_ylim(0, 1)
    if chance is not None:
        ax.axhline(chance, color="0.4", ls=":", lw=1, label=chance_label)
    ax.grid(alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1), fontsize=7, borderaxespad=0)
