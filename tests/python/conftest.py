"""Shared fixtures of the Python module's tests (run by ctest with PYTHONPATH=build/python)."""
import os
import pathlib
import subprocess
import tempfile

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def workdir():
    """A fresh folder under the build's test-results (EMBPRIV_TEST_TMP), else a temporary one."""
    base = os.environ.get("EMBPRIV_TEST_TMP")
    if base:
        os.makedirs(base, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=base) as path:
        yield pathlib.Path(path)


def cli(*args):
    """The `embpriv` command line of the same build: (exit code, stdout, stderr)."""
    binary = os.environ.get("EMBPRIV_BINARY", str(SOURCE_DIR / "build" / "embpriv"))
    done = subprocess.run([binary, *map(str, args)], capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def cli_error(*args):
    """The message the command line prints after `embpriv: error: ` (it must fail with exit 2)."""
    code, _, stderr = cli(*args)
    assert code == 2, f"expected exit 2, got {code}: {stderr}"
    prefix = "embpriv: error: "
    assert stderr.startswith(prefix), stderr
    return stderr[len(prefix):].rstrip("\n")
