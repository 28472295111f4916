"""`pip install --no-build-isolation --no-deps <checkout>` (pyproject.toml, python/build_backend/)
into a virtual environment over this interpreter's torch: the wheel holds the module this build
already compiled (EMBPRIV_BUILD_DIR: nothing is compiled twice), the installed package imports
from outside the checkout and works, and its check of the LibTorch refuses a module recorded as
built against another one (docs/python.md)."""
import os
import site
import subprocess
import sys
import sysconfig

import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _clean_environment(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PIP_REQUIRE_VIRTUALENV")}
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", **extra)
    return env


def _make_venv(root):
    env_dir = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env_dir)], check=True)
    python = str(env_dir / "bin" / "python")
    # When this interpreter is itself a venv (a pip PyTorch in one), the new venv's "system"
    # packages are the base interpreter's, without that torch: a .pth file adds this
    # interpreter's own package folders after the new venv's.
    subprocess.run([python, "-c", "import site, sys; open(site.getsitepackages()[0] + '/outer.pth', 'w')"
                    ".write('\\n'.join(sys.argv[1:]) + '\\n')"] + site.getsitepackages(), check=True)
    return python


def _pip_install(python, cwd, build_dir):
    """pip install of the checkout, called in `cwd`, with EMBPRIV_BUILD_DIR=build_dir: pip's output."""
    # The interpreter's own pip (Debian's python3-pip) installs into the venv it runs in.
    result = subprocess.run([python, "-m", "pip", "install", "-v", "--no-deps", "--no-build-isolation", SOURCE],
                            cwd=str(cwd), env=_clean_environment(EMBPRIV_BUILD_DIR=build_dir),
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # -v shows the backend's lines: that module imported.
    assert "the module imports beside torch" in result.stdout + result.stderr
    return result.stdout + result.stderr


def _build_dir():
    binary = os.environ.get("EMBPRIV_BINARY")
    assert binary, "EMBPRIV_BINARY (the built embpriv, beside the build's python/ folder) is not set"
    return os.path.dirname(os.path.abspath(binary))


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    build_dir = _build_dir()
    root = tmp_path_factory.mktemp("pip_install")
    python = _make_venv(root)
    output = _pip_install(python, root, build_dir)
    assert "reusing the module built in " + build_dir in output  # it packed the build's module
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


# Issue 38, item 8: what the wheel packs from a build folder that is not the checkout's copy.
@pytest.fixture(scope="module")
def venv_of_a_relative_stale_build(tmp_path_factory):
    """A build folder, named relative to the folder pip is called in, whose .py files are older than
    the checkout's and which holds the module of another Python as well as this one's."""
    module_dir = os.path.join(_build_dir(), "python", "embpriv")
    root = tmp_path_factory.mktemp("pip_install_relative")
    caller = root / "caller"
    package = caller / "stale_build" / "python" / "embpriv"
    package.mkdir(parents=True)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    for name in os.listdir(module_dir):
        if name.endswith(".py"):
            text = open(os.path.join(module_dir, name)).read()
            (package / name).write_text(text + ("\n# an older copy than the checkout's\n" if name == "wrap.py" else ""))
    os.symlink(os.path.join(module_dir, "_embpriv" + suffix), str(package / ("_embpriv" + suffix)))
    other = suffix.replace("-%d%d-" % sys.version_info[:2], "-399-")
    assert other != suffix
    (package / ("_embpriv" + other)).write_bytes(b"the module of another Python")
    python = _make_venv(root)
    output = _pip_install(python, caller, "stale_build")
    assert "reusing the module built in " + str(caller / "stale_build") in output
    return python, root


def test_a_relative_build_dir_is_read_from_the_callers_folder_and_the_checkouts_py_files_are_packed(
        venv_of_a_relative_stale_build):
    python, root = venv_of_a_relative_stale_build
    result = _run(python, root, "import embpriv, os; print(os.path.dirname(embpriv.__file__))")
    assert result.returncode == 0, result.stderr
    installed = result.stdout.strip()
    # The checkout's python/embpriv/*.py, byte for byte: never the build folder's older copies.
    for name in os.listdir(os.path.join(SOURCE, "python", "embpriv")):
        if name.endswith(".py"):
            with open(os.path.join(SOURCE, "python", "embpriv", name), "rb") as a, \
                    open(os.path.join(installed, name), "rb") as b:
                assert a.read() == b.read(), name
    # Only this interpreter's module.
    modules = sorted(name for name in os.listdir(installed) if name.startswith("_embpriv"))
    assert modules == ["_embpriv" + sysconfig.get_config_var("EXT_SUFFIX")]
