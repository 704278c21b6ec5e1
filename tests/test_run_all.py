"""Colab's "Run all" on every committed notebook: top to bottom, tags ignored, a kernel with only torch.

Colab and Positron ignore cell tags, so an expected error must be caught in its cell (expect_error)
or "Run all" stops there. Each committed .ipynb twin runs in a fresh kernel whose Python is a
throwaway virtual environment holding only torch, ipykernel and what those two require (linked from
.venv): nbformat, jupytext, numpy, PyYAML, pytest... cannot be imported there. The kernel starts in an
empty folder, as Colab's starts in /content.

Twins whose code is identical once comments are removed (the parity rule) behave identically, so
each distinct code runs once; a pass is remembered in .cache/run-all/ under a key of that code,
torch, ipykernel and Python versions, and this runner, so an unchanged rerun executes nothing.
"""
import importlib.metadata
import platform
import subprocess
from concurrent.futures import ThreadPoolExecutor

from coursebuild import course
import pytest
from tools import run_all

TWINS = sorted(course.NOTEBOOKS.glob("*/*.ipynb"))
CACHE = course.ROOT / ".cache" / "run-all"
WORKERS = 2  # one kernel per notebook: two at a time suit a 2-core machine


def _name(path):
    return str(path.relative_to(course.ROOT))


@pytest.fixture(scope="session")
def torch_only(tmp_path_factory):
    python, packages = run_all.torch_only_venv(tmp_path_factory.mktemp("torch-only") / "venv")
    return python, packages


@pytest.fixture(scope="session")
def outcomes(torch_only):
    """{twin: Result}, running each distinct code once, in parallel, skipping remembered passes."""
    python, _ = torch_only
    python_id = [platform.python_version()] + [importlib.metadata.version(p) for p in run_all.TORCH_ONLY]
    keys = {twin: run_all.code_key(twin, python_id) for twin in TWINS}
    todo = {}
    for twin, key in keys.items():
        if not (CACHE / f"{key}.ok").exists():
            todo.setdefault(key, twin)  # the first twin (en, alphabetically) of each distinct code
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        ran = dict(zip(todo, pool.map(lambda twin: run_all.run(twin, python, name=_name(twin)), todo.values())))
    CACHE.mkdir(parents=True, exist_ok=True)
    for key, result in ran.items():
        if result.ok:
            (CACHE / f"{key}.ok").write_text(result.describe() + "\n", encoding="utf-8")
    return {twin: ran.get(key) for twin, key in keys.items()}


def test_every_notebook_has_a_committed_twin():
    assert len(TWINS) == len(course.LANGS) * len(course.concepts())


@pytest.mark.parametrize("twin", TWINS, ids=_name)
def test_run_all_reaches_the_end_with_tags_ignored(outcomes, twin):
    result = outcomes[twin]
    if result is None:
        return  # passed before with this very code and these versions
    if not result.ok and result.notebook != _name(twin):
        pytest.fail(f"{_name(twin)} runs the same code (comments aside) as {result.describe()}")
    assert result.ok, result.describe() + (
        "\n  Catch an expected error in its own cell with `with expect_error(Kind, \"fragment\"):`"
        " (notebooks/README.md); a tag does not stop \"Run all\" in Colab.")


def test_the_kernel_has_only_torch(torch_only):
    python, packages = torch_only
    assert "torch" in packages and "ipykernel" in packages
    project_only = ["nbformat", "nbclient", "jupytext", "yaml", "mkdocs", "pytest", "numpy", "bs4"]
    probe = "import importlib.util as u, sys; print(*[m for m in sys.argv[1:] if u.find_spec(m)])"
    done = subprocess.run([str(python), "-s", "-c", probe, *project_only], capture_output=True, text=True)
    assert done.returncode == 0 and not done.stdout.strip(), f"the torch-only kernel can import {done.stdout}"
    done = subprocess.run([str(python), "-s", "-c", "import torch, ipykernel"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_tagged_expected_error_stops_run_all_and_is_named(torch_only, tmp_path):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_code_cell("x = 1"),
                nbformat.v4.new_code_cell("raise ValueError('expected')", metadata={"tags": ["raises-exception"]}),
                nbformat.v4.new_code_cell("print(x)")]
    path = tmp_path / "t.ipynb"
    nbformat.write(nb, path)
    result = run_all.run(path, torch_only[0], name="t.ipynb")
    assert not result.ok
    assert (result.cell, result.code_cell) == (3, 2)
    assert result.error == "ValueError: expected"
    assert result.describe().startswith("t.ipynb: \"Run all\" stops at cell 3 (code cell 2: \"raise ValueError")
