"""The Python example of README.md runs as written (from a folder with the repository's configs)."""
import os
import re

from conftest import SOURCE_DIR


def test_readme_python_example_runs(workdir):
    readme = (SOURCE_DIR / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    assert blocks, "README.md has no python example"
    example = blocks[0]
    assert len(example.strip().splitlines()) == 5
    os.symlink(SOURCE_DIR / "configs", workdir / "configs")
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        exec(compile(example, "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (workdir / "results").is_dir()
