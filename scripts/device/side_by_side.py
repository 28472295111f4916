#!/usr/bin/env python3
"""Prints results files of one config side by side (scripts/device/check.sh, step 3): one line
per /table column and per /timing phase, the rows' values of each file in turn, and for numeric
columns the largest difference between the first file and each other one, relative to the
first's magnitude (so a CUDA run and a CPU run can be compared at a glance).
Usage: side_by_side.py LABEL=FILE.h5 [LABEL=FILE.h5 ...]   (needs h5py and numpy)."""
import sys

import h5py
import numpy as np


def columns(path):
    with h5py.File(path, "r") as f:
        table = {name: f["table"][name][()] for name in f["table"]}
        timing = {"time/" + name: f["timing"][name][()] for name in f["timing"]} if "timing" in f else {}
    return table, timing


def shown(values):
    out = []
    for v in values:
        if isinstance(v, bytes):
            v = v.decode()
        text = ("%.6g" % v) if isinstance(v, (float, np.floating)) else str(v)
        out.append(text if len(text) <= 32 else text[:29] + "...")
    return " ".join(out)


def main():
    labels, tables = [], []
    for argument in sys.argv[1:]:
        label, path = argument.split("=", 1)
        table, timing = columns(path)
        table.update(timing)
        labels.append(label)
        tables.append(table)
    names = [n for n in tables[0] if n not in ("row", "replicate", "seed", "error")]
    width = max(len(n) for n in names) + 2
    print("%-*s %s" % (width, "column", " | ".join(labels)) + ("   max rel. difference" if len(tables) > 1 else ""))
    for name in names:
        cells = [shown(t.get(name, [])) for t in tables]
        line = "%-*s %s" % (width, name, " | ".join(cells))
        first = tables[0][name]
        if len(tables) > 1 and np.issubdtype(np.asarray(first).dtype, np.number) and not name.startswith("time/"):
            worst = 0.0
            for other in tables[1:]:
                if name in other and len(other[name]) == len(first):
                    a, b = np.asarray(first, dtype=float), np.asarray(other[name], dtype=float)
                    both = np.isfinite(a) & np.isfinite(b)
                    if both.any():
                        worst = max(worst, float(np.max(np.abs(a[both] - b[both]) / np.maximum(np.abs(a[both]), 1e-12))))
            line += "   %.2g" % worst
        print(line)


if __name__ == "__main__":
    main()
