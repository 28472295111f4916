"""embpriv.run and embpriv.read_results on a small real sweep (configs/ci/perturbation_small.yaml)."""
import h5py
import numpy as np
import pytest

import embpriv
from conftest import SOURCE_DIR, cli_error

CI_CONFIG = SOURCE_DIR / "configs" / "ci" / "perturbation_small.yaml"


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("results") / "perturbation_small.h5"
    assert embpriv.run(str(CI_CONFIG), ["data.samples=200"], out=str(out)) == str(out)
    return out


def test_read_results_gives_the_table_with_text_as_str(small_run):
    df = embpriv.read_results(small_run)
    assert len(df) == 3 * 4 * 2 and list(df.row) == list(range(24))
    assert (df.status == "ok").all()
    assert all(type(v) is str for v in df.mechanism_name) and all(type(v) is str for v in df.mechanism)
    assert set(df.mechanism_name) == {"vmf_tangent", "vmf", "gaussian"}
    assert df["mechanism.epsilon"].dtype == np.float64
    with h5py.File(small_run, "r") as f:
        assert np.array_equal(df.mean_cosine.to_numpy(), f["table/mean_cosine"][:])
        assert df.attrs["config"] == f.attrs["config"]
    assert df.attrs["type"] == "perturbation" and df.attrs["complete"] == "true"
    assert "samples: 200" in df.attrs["config"]


def test_curves_on_demand(small_run):
    df = embpriv.read_results(small_run)
    counts = embpriv.curve(df, df.row[3], "cosine_histogram_counts")
    assert counts.shape == (200,) and counts.sum() == 200
    results = embpriv.Results(small_run)
    assert results.curve_names(0) == ["cosine_histogram_counts", "cosine_histogram_edges"]
    with pytest.raises(ValueError, match="no curve 'roc'"):
        results.curve(0, "roc")
    assert len(results.timing()) == len(df)


def test_run_refuses_an_existing_file_as_the_command_line_does(small_run):
    message = cli_error("run", CI_CONFIG, "--out", small_run, "--no-plot")
    with pytest.raises(ValueError) as error:
        embpriv.run(str(CI_CONFIG), out=str(small_run))
    assert str(error.value) == message


def test_bad_override_raises_the_command_lines_message(workdir):
    args = [str(CI_CONFIG), "data.dim=1"]
    message = cli_error("run", *args, "--out", workdir / "x.h5", "--no-plot")
    with pytest.raises(ValueError) as error:
        embpriv.run(args[0], args[1:], out=str(workdir / "x.h5"))
    assert str(error.value) == message


def test_read_results_of_a_file_that_is_not_a_results_file(workdir):
    path = workdir / "other.h5"
    with h5py.File(path, "w") as f:
        f["x"] = [1, 2]
    with pytest.raises(ValueError, match="no /table"):
        embpriv.read_results(path)
