"""The one rule between embpriv and torch: the compiled module links the LibTorch that the
imported torch package loads (any torch, 1.13 or 2.x, Debian's, pip's or conda's).

A torch.Tensor crosses into the module as the same at::Tensor, without a copy; with two copies of
LibTorch in one process there would be two dispatchers and two allocators, and the first tensor
would crash or be misread. python/CMakeLists.txt checked it when the module was built and wrote
what it linked into _build_info.py; this checks again at import, because the environment may have
changed since (torch upgraded, another torch first on sys.path).
"""
import os


def _mapped_libraries(stem):
    """The real paths of the mapped files named `stem`*.so* in this process (Linux only)."""
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
    except OSError:
        return set()
    return {os.path.realpath(p) for p in paths if os.path.basename(p).startswith(stem + ".so")}


def check_libtorch(torch, after_import=False):
    """Raises ImportError naming both files when the module's LibTorch is not torch's."""
    if after_import:
        # The module is loaded: one libc10 and one libtorch_cpu, or two LibTorch copies.
        for stem in ("libc10", "libtorch_cpu"):
            copies = _mapped_libraries(stem)
            if len(copies) > 1:
                raise ImportError("embpriv: two copies of LibTorch are loaded (" + ", ".join(sorted(copies)) +
                                  "): rebuild embpriv against this torch (docs/python.md)")
        return
    try:
        from . import _build_info
    except ImportError:
        return  # a build without the record (never written by python/CMakeLists.txt): checked after import
    loaded = os.path.realpath(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch.so"))
    if loaded != _build_info.libtorch or torch.__version__ != _build_info.torch_version:
        raise ImportError(
            "embpriv was built against torch %s (%s), but this python imports torch %s (%s): rebuild it "
            "with this python: python3 -m pip install --no-build-isolation --no-deps /path/to/embpriv "
            "(docs/python.md)" % (_build_info.torch_version, _build_info.libtorch, torch.__version__, loaded))
