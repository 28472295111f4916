"""PEP 517 build backend of embpriv's Python module (pyproject.toml, docs/python.md).

build_wheel configures embpriv with CMake against the torch of the interpreter that runs pip
(-DEMBPRIV_TORCH_PYTHON: torch.utils.cmake_prefix_path, its ABI flag and CUDA libraries come with
it, cmake/torch.cmake), builds only the module's target, imports the built package in a fresh
interpreter (embpriv/_libtorch_check.py: the LibTorch the module links must be the file that
torch loads, and only one copy may be mapped), and packs a wheel of python/embpriv/ with the
compiled _embpriv.

Settings, as environment variables or pip's --config-settings (-C key=value):
  EMBPRIV_BUILD_DIR / build-dir: a build folder that already holds the built module
      (BUILD/python/embpriv/_embpriv*.so): the backend configures and compiles nothing there and
      packs that module after the same checks (how the ctest python_pip_install reuses the
      build; docs/python.md). Without it the backend configures and builds in
      build-pip/<python tag>-torch<version> inside the checkout (kept for next time).
  EMBPRIV_DEPS_PREFIX / deps-prefix: a dpkg -x prefix of Debian packages (docs/gpu.md).
  EMBPRIV_CMAKE_ARGS / cmake-args: more arguments for the configure step (split on spaces).
  EMBPRIV_JOBS / jobs: parallel build jobs (default: all CPUs).
"""
import base64
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _version():
    text = open(os.path.join(SOURCE, "experiments", "engine", "provenance.cpp")).read()
    return re.search(r'embpriv_version\(\) \{ return "([^"]+)"', text).group(1)


def _setting(config_settings, key, variable, default=None):
    if config_settings and config_settings.get(key):
        return config_settings[key]
    return os.environ.get(variable) or default


def _tag():
    """The most specific tag of this interpreter on the plain platform (linux_x86_64: a wheel
    built here makes no manylinux promise)."""
    try:
        from packaging.tags import sys_tags
        platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
        return str(next(t for t in sys_tags() if t.platform == platform))
    except (ImportError, StopIteration):
        interpreter = "cp%d%d" % sys.version_info[:2]
        return "%s-%s-%s" % (interpreter, interpreter, re.sub(r"[-.]", "_", sysconfig.get_platform()))


def _torch():
    """(version, the libtorch.so file that this interpreter's torch loads)."""
    import torch
    return torch.__version__, os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch.so"))


def _run(command, **kwargs):
    print("embpriv_build: " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, **kwargs)


def _built_module(build_dir):
    return glob.glob(os.path.join(build_dir, "python", "embpriv", "_embpriv*.so"))


def _build(config_settings):
    torch_version, libtorch = _torch()
    given = _setting(config_settings, "build-dir", "EMBPRIV_BUILD_DIR")
    if given:
        # A build folder of someone else's (the project's build/, check.sh's): used as it is,
        # never configured or built from here.
        build_dir = os.path.abspath(given)
        if not _built_module(build_dir) or not os.path.exists(os.path.join(build_dir, "python", "embpriv", "_build_info.py")):
            raise RuntimeError("embpriv_build: EMBPRIV_BUILD_DIR=%s holds no built Python module "
                               "(cmake --build %s --target embpriv_python)" % (build_dir, build_dir))
        print("embpriv_build: reusing the module built in " + build_dir, file=sys.stderr)
    else:
        build_dir = os.path.join(SOURCE, "build-pip", "%s-torch%s" % (_tag().split("-")[0], torch_version))
        command = ["cmake", "-S", SOURCE, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                   "-DEMBPRIV_TORCH_PYTHON=" + sys.executable, "-DPYTHON_EXECUTABLE=" + sys.executable,
                   "-DEMBPRIV_PYTHON=ON", "-DEMBPRIV_TESTS=OFF", "-DEMBPRIV_BENCH=OFF"]
        if shutil.which("ninja") and not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            command += ["-G", "Ninja"]
        prefix = _setting(config_settings, "deps-prefix", "EMBPRIV_DEPS_PREFIX")
        if prefix:
            command.append("-DEMBPRIV_DEPS_PREFIX=" + os.path.abspath(prefix))
        command += _setting(config_settings, "cmake-args", "EMBPRIV_CMAKE_ARGS", "").split()
        _run(command)
        jobs = _setting(config_settings, "jobs", "EMBPRIV_JOBS", str(os.cpu_count() or 1))
        _run(["cmake", "--build", build_dir, "-j", jobs, "--target", "embpriv_python"])
    package = os.path.join(build_dir, "python", "embpriv")
    # The built package must import beside this interpreter's torch (a fresh process, from
    # outside the checkout so that nothing else named embpriv is found).
    info = {}
    exec(open(os.path.join(package, "_build_info.py")).read(), info)
    if info["libtorch"] != libtorch or info["torch_version"] != torch_version:
        raise RuntimeError("embpriv_build: %s holds a module built against torch %s (%s), but %s imports torch %s (%s): "
                           "use another EMBPRIV_BUILD_DIR" % (build_dir, info["torch_version"], info["libtorch"],
                                                              sys.executable, torch_version, libtorch))
    _run([sys.executable, "-c", "import embpriv, torch; print('embpriv_build: the module imports beside torch', torch.__version__)"],
         cwd=tempfile.gettempdir(), env=dict(os.environ, PYTHONPATH=os.path.dirname(package)))
    return package


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _metadata():
    return ("Metadata-Version: 2.1\nName: embpriv\nVersion: %s\n"
            "Summary: Privacy mechanisms on language-model embeddings, and the attacks that measure them\n"
            "Requires-Python: >=3.8\nRequires-Dist: torch\n" % _version())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = _build(config_settings)
    version, tag = _version(), _tag()
    dist_info = "embpriv-%s.dist-info" % version
    files = {}
    for path in sorted(glob.glob(os.path.join(package, "*.py")) + _built_module(os.path.dirname(os.path.dirname(package)))):
        files["embpriv/" + os.path.basename(path)] = open(path, "rb").read()
    files[dist_info + "/METADATA"] = _metadata().encode()
    files[dist_info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: embpriv_build\nRoot-Is-Purelib: false\nTag: %s\n" % tag).encode()
    record = [_record_line(name, data) for name, data in files.items()] + [dist_info + "/RECORD,,"]
    files[dist_info + "/RECORD"] = ("\n".join(record) + "\n").encode()
    name = "embpriv-%s-%s.whl" % (version, tag)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return name


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """The metadata without a build (pip asks for it first)."""
    dist_info = "embpriv-%s.dist-info" % _version()
    os.makedirs(os.path.join(metadata_directory, dist_info), exist_ok=True)
    with open(os.path.join(metadata_directory, dist_info, "METADATA"), "w") as f:
        f.write(_metadata())
    return dist_info


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_sdist(sdist_directory, config_settings=None):
    raise RuntimeError("embpriv builds no sdist: pip install the checkout itself (docs/python.md)")
