"""`pip install --no-build-isolation --no-deps <checkout>` (pyproject.toml, python/build_backend/)
into a virtual environment over this interpreter's torch: the wheel holds the module this build
already compiled (EMBPRIV_BUILD_DIR: nothing is compiled twice), the installed package imports
from outside the checkout and works, and its check of the LibTorch refuses a module recorded as
built against another one (docs/python.md)."""
import os
import site
import subprocess
import sys

import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _clean_environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_REQUIRE_VIRTUALENV")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    binary = os.environ.get("EMBPRIV_BINARY")
    assert binary, "EMBPRIV_BINARY (the built embpriv, beside the build's python/ folder) is not set"
    build_dir = os.path.dirname(os.path.abspath(binary))
    root = tmp_path_factory.mktemp("pip_install")
    env_dir = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    # When this interpreter is itself a venv (a pip PyTorch in one), the new venv's "system"
    # packages are the base interpreter's, without that torch: a .pth file adds this
    # interpreter's own package folders after the new venv's.
    subprocess.run([python, "-c", "import site, sys; open(site.getsitepackages()[0] + '/outer.pth', 'w')"
                    ".write('\\n'.join(sys.argv[1:]) + '\\n')"] + site.getsitepackages(), check=True)
    # The interpreter's own pip (Debian's python3-pip) installs into the venv it runs in.
    result = subprocess.run([python, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation", SOURCE],
                            cwd=str(root), env=_clean_environment(EMBPRIV_BUILD_DIR=build_dir),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # -v shows the backend's lines: it packed the build's module, and that module imported.
    assert "reusing the module built in " + build_dir in result.stdout + result.stderr
    assert "the module imports beside torch" in result.stdout + result.stderr
    return python, root


def _run(python, cwd, code):
    return subprocess.run([python, "-c", code], cwd=str(cwd), env=_clean_environment(), capture_output=True, text=True)


def test_the_installed_module_imports_from_the_venv_and_perturbs(venv):
    python, root = venv
    result = _run(python, root, "import embpriv, sys, torch\n"
                                "m = embpriv.mechanism({'name': 'vmf', 'epsilon': 2, 'beta': 1})\n"
                                "x = torch.nn.functional.normalize(torch.randn(6, 16), dim=1)\n"
                                "y = m.perturb(x, seed=3)\n"
                                "assert y.shape == x.shape and not torch.equal(x, y)\n"
                                "assert torch.equal(y, m.perturb(x, seed=3))\n"
                                "print(embpriv.__file__)")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().startswith(os.path.join(str(root), "venv", "lib"))


def test_a_module_recorded_against_another_libtorch_is_refused(venv):
    python, root = venv
    located = _run(python, root, "import embpriv._build_info as b; print(b.__file__)")
    assert located.returncode == 0, located.stderr
    info_path = located.stdout.strip()
    original = open(info_path).read()
    try:
        with open(info_path, "w") as f:
            f.write(original.replace('libtorch = "', 'libtorch = "/elsewhere'))
        result = _run(python, root, "import embpriv")
        assert result.returncode != 0
        assert "ImportError: embpriv was built against torch" in result.stderr
        assert "/elsewhere" in result.stderr and "pip install --no-build-isolation" in result.stderr
    finally:
        with open(info_path, "w") as f:
            f.write(original)
    assert _run(python, root, "import embpriv").returncode == 0
