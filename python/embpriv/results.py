"""Results files of `embpriv run` (docs/results.md) as pandas DataFrames."""
import h5py
import numpy as np
import pandas as pd

from . import _embpriv


def _column(dataset):
    if h5py.check_string_dtype(dataset.dtype) is not None:
        return dataset.asstr()[:].astype(object)
    return dataset[:]


def _attribute(value):
    return value.decode() if isinstance(value, bytes) else str(value)


class Results:
    """An open results file: `table()`, `attrs` and the per-row `curve(row, name)` arrays."""

    def __init__(self, path):
        self.path = str(path)
        # The checks of `embpriv info` first (the checksum fence, then the table), so that a
        # damaged file raises ValueError with the command line's message before h5py reads it.
        _embpriv.check_results_file(self.path)
        with h5py.File(self.path, "r") as f:
            if "table" not in f:
                raise ValueError(f"{self.path} has no /table: not an embpriv results file")
            self.attrs = {k: _attribute(v) for k, v in f.attrs.items()}

    def table(self):
        """/table as a DataFrame, sorted by `row`: text columns as str, attributes in df.attrs."""
        with h5py.File(self.path, "r") as f:
            table = f["table"]
            df = pd.DataFrame({name: _column(table[name]) for name in table})
            df.attrs.update(self.attrs)
            df.attrs["path"] = self.path
            return df

    def curve_names(self, row):
        with h5py.File(self.path, "r") as f:
            group = f.get(f"curves/{int(row)}")
            return sorted(group) if group is not None else []

    def curve(self, row, name):
        """The float64 array /curves/<row>/<name> (e.g. a cosine histogram, an ROC curve)."""
        with h5py.File(self.path, "r") as f:
            key = f"curves/{int(row)}/{name}"
            if key not in f:
                have = ", ".join(self.curve_names(row)) or "none"
                raise ValueError(f"{self.path}: no curve '{name}' for row {int(row)}; that row has: {have}")
            return np.asarray(f[key][:], dtype=np.float64)

    def timing(self):
        """/timing: the seconds of each row and of each phase, one column each."""
        with h5py.File(self.path, "r") as f:
            if "timing" not in f:
                return pd.DataFrame()
            return pd.DataFrame({name: f["timing"][name][:] for name in f["timing"]})


def read_results(path):
    """The /table of a results file as a DataFrame: one row per grid point x seed, text
    columns as str, the root attributes (config, seed, git_commit, ...) in df.attrs, and
    df.attrs["path"]; curves on demand with Results(path).curve(row, name) or curve(df, row, name)."""
    return Results(path).table()


def curve(df, row, name):
    """The curve `name` of table row `row` of a DataFrame from read_results."""
    return Results(df.attrs["path"]).curve(row, name)
