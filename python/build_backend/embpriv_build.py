"""PEP 517 build backend of embpriv's Python module (pyproject.toml, docs/python.md).

build_wheel configures embpriv with CMake against the torch of the interpreter that runs pip
(-DEMBPRIV_TORCH_PYTHON: torch.utils.cmake_prefix_path, its ABI flag and CUDA libraries come with
it, cmake/torch.cmake), builds only the module's target, imports the built package in a fresh
interpreter (embpriv/_libtorch_check.py: the LibTorch the module links must be the file that
torch loads, and only one copy may be mapped), and packs a wheel of python/embpriv/ with the
compiled _embpriv.

Settings, as environment variables or pip's --config-settings (-C key=value):
  EMBPRIV_BUILD_DIR / build-dir: a build folder that already holds the built module
      (BUILD/python/embpriv/_embpriv<this interpreter's EXT_SUFFIX>): the backend configures and
      compiles nothing there and packs that module after the same checks (how the ctest
      python_pip_install reuses the build; docs/python.md). A relative path is read from the
      folder pip was called in. Without it the backend configures and builds in
      build-pip/<python tag>-torch<version> inside the checkout (kept for next time).
The wheel holds the checkout's python/embpriv/*.py (never the copies in a build folder, which
may be older), the build's _build_info.py and the one compiled module of this interpreter.
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


def _built_modules(build_dir):
    return sorted(glob.glob(os.path.join(build_dir, "python", "embpriv", "_embpriv*.so")))


def _built_module(build_dir):
    """The compiled module of this interpreter in a build folder (a folder may hold those of
    several Pythons: only the one whose suffix this interpreter imports goes into its wheel)."""
    path = os.path.join(build_dir, "python", "embpriv", "_embpriv" + sysconfig.get_config_var("EXT_SUFFIX"))
    return path if os.path.exists(path) else None


def _caller_folder():
    """The folder pip (or another frontend) was called in: the working folder of the process that
    runs this backend's hooks, which pip starts in the checkout; None where it cannot be read."""
    try:
        return os.readlink("/proc/%d/cwd" % os.getppid())
    except OSError:
        return None


def _given_path(given, variable):
    """A folder given in a setting, as an absolute path: a relative one is read as the user wrote
    it, from the folder pip was called in (not the checkout, where pip runs this backend)."""
    given = os.path.expanduser(given)
    if os.path.isabs(given):
        return os.path.abspath(given)
    caller = _caller_folder()
    if caller is None:
        raise RuntimeError("embpriv_build: %s=%s is relative, and the folder pip was called in cannot be read "
                           "here: give an absolute path" % (variable, given))
    return os.path.abspath(os.path.join(caller, given))


def _build(config_settings):
    torch_version, libtorch = _torch()
    given = _setting(config_settings, "build-dir", "EMBPRIV_BUILD_DIR")
    if given:
        # A build folder of someone else's (the project's build/, check.sh's): used as it is,
        # never configured or built from here.
        build_dir = _given_path(given, "EMBPRIV_BUILD_DIR")
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
            command.append("-DEMBPRIV_DEPS_PREFIX=" + _given_path(prefix, "EMBPRIV_DEPS_PREFIX"))
        command += _setting(config_settings, "cmake-args", "EMBPRIV_CMAKE_ARGS", "").split()
        _run(command)
        jobs = _setting(config_settings, "jobs", "EMBPRIV_JOBS", str(os.cpu_count() or 1))
        _run(["cmake", "--build", build_dir, "-j", jobs, "--target", "embpriv_python"])
    info_path = os.path.join(build_dir, "python", "embpriv", "_build_info.py")
    module = _built_module(build_dir)
    if not module or not os.path.exists(info_path):
        others = [os.path.basename(path) for path in _built_modules(build_dir)]
        raise RuntimeError("embpriv_build: %s holds no Python module built for %s (python/embpriv/_embpriv%s and "
                           "_build_info.py)%s: cmake --build %s --target embpriv_python"
                           % (build_dir, sys.executable, sysconfig.get_config_var("EXT_SUFFIX"),
                              "; it holds only " + ", ".join(others) if others else "", build_dir))
    info = {}
    exec(open(info_path).read(), info)
    if info["libtorch"] != libtorch or info["torch_version"] != torch_version:
        raise RuntimeError("embpriv_build: %s holds a module built against torch %s (%s), but %s imports torch %s (%s): "
                           "use another EMBPRIV_BUILD_DIR" % (build_dir, info["torch_version"], info["libtorch"],
                                                              sys.executable, torch_version, libtorch))
    return _files_of_wheel(module, info_path)


def _files_of_wheel(module, info_path):
    """{name in the wheel: path}: the checkout's .py files, the build's _build_info.py and the
    compiled module, after they imported together beside this interpreter's torch (a fresh
    process, from a folder outside the checkout and the build holding only these files, so that
    nothing else named embpriv is found)."""
    sources = [path for path in sorted(glob.glob(os.path.join(SOURCE, "python", "embpriv", "*.py")))
               if os.path.basename(path) != "_build_info.py"]
    files = {os.path.basename(path): path for path in sources + [info_path, module]}
    print("embpriv_build: packing the checkout's python/embpriv/*.py with " + module, file=sys.stderr)
    staging = tempfile.mkdtemp(prefix="embpriv_build_")
    try:
        os.mkdir(os.path.join(staging, "embpriv"))
        for name, path in files.items():
            os.symlink(path, os.path.join(staging, "embpriv", name))
        _run([sys.executable, "-c", "import embpriv, torch; print('embpriv_build: the module imports beside torch', torch.__version__)"],
             cwd=tempfile.gettempdir(), env=dict(os.environ, PYTHONPATH=staging))
    finally:
        shutil.rmtree(staging)
    return {"embpriv/" + name: path for name, path in files.items()}


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _metadata():
    return ("Metadata-Version: 2.1\nName: embpriv\nVersion: %s\n"
            "Summary: Privacy mechanisms on language-model embeddings, and the attacks that measure them\n"
            "Requires-Python: >=3.8\nRequires-Dist: torch\n" % _version())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version, tag = _version(), _tag()
    dist_info = "embpriv-%s.dist-info" % version
    files = {}
    for name, path in _build(config_settings).items():
        files[name] = open(path, "rb").read()
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
