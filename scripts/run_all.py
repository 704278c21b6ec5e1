"""Run a notebook as a reader's "Run all" does: top to bottom, in a fresh kernel, cell tags ignored.

Colab's and Positron's "Run all" ignore cell tags (`raises-exception` included), so a notebook must
run to its end with every tag removed. The kernel is started from a given Python interpreter, in an
empty temporary folder (as Colab starts in /content), so the notebook can rely on nothing but that
interpreter's packages. Used by tests/test_run_all.py (a kernel that has only torch) and by
scripts/check_torch_versions (any interpreter with torch and ipykernel).
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

ANSI = re.compile(r"\x1b\[[0-9;]*m")
KERNEL = "course-run-all"
# What a kernel needs besides the interpreter itself: the notebooks may use torch (and whatever
# torch itself requires) and the standard library; ipykernel is the Jupyter kernel.
TORCH_ONLY = ("torch", "ipykernel")


@dataclass
class Result:
    notebook: str
    ok: bool
    seconds: float
    cell: int | None = None  # 1-based index among all cells of the notebook
    code_cell: int | None = None  # 1-based index among its code cells
    first_line: str = ""
    error: str = ""

    def describe(self):
        if self.ok:
            return f"{self.notebook}: ran to the end ({self.seconds:.1f} s)"
        where = (f"cell {self.cell} (code cell {self.code_cell}: {self.first_line!r})"
                 if self.cell else "before any cell")
        return f"{self.notebook}: \"Run all\" stops at {where}: {self.error}"


def without_tags(nb):
    """The notebook as a front end that ignores tags sees it."""
    nb = nbformat.from_dict(json.loads(json.dumps(nb)))
    for cell in nb.cells:
        cell.metadata.pop("tags", None)
    return nb


def run(path, python, timeout=600, name=None):
    """Execute the notebook at `path` with every tag removed, in a fresh kernel of `python`."""
    name = name or str(path)
    nb = without_tags(nbformat.read(path, as_version=4))
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="run-all-") as tmp:
        kernels = Path(tmp) / "kernels"
        (kernels / KERNEL).mkdir(parents=True)
        (kernels / KERNEL / "kernel.json").write_text(json.dumps({
            # -s: no user site-packages, so only the interpreter's own packages are importable
            "argv": [str(python), "-s", "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": KERNEL, "language": "python"}))
        workdir = Path(tmp) / "content"
        workdir.mkdir()
        km = KernelManager(kernel_name=KERNEL, kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]),
                           transport="ipc", connection_file=str(Path(tmp) / "kernel.json"))
        client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=False,
                                resources={"metadata": {"path": str(workdir)}})
        env = {k: v for k, v in os.environ.items()
               if k not in {"PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP"}}
        try:
            client.execute(env=env)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as err:
            return _failure(name, nb, err, time.monotonic() - start)
    return Result(name, True, time.monotonic() - start)


def _failure(name, nb, err, seconds):
    code_index = 0
    for i, cell in enumerate(nb.cells, 1):
        if cell.cell_type != "code":
            continue
        code_index += 1
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if errors or (not isinstance(err, CellExecutionError) and cell.get("execution_count") is None):
            if errors:
                message = f"{errors[0]['ename']}: {ANSI.sub('', errors[0]['evalue'])}"
            else:
                message = f"{type(err).__name__}: {ANSI.sub('', str(err)).strip().splitlines()[0]}"
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            return Result(name, False, seconds, i, code_index, first.strip()[:80], _short(message))
    return Result(name, False, seconds, error=f"{type(err).__name__}: {ANSI.sub('', str(err))[:500]}")


def _short(message, lines=3):
    kept = message.strip().splitlines()
    return "\n".join(kept[:lines] + (["..."] if len(kept) > lines else []))


def code_key(path, python_id):
    """What decides a run's outcome: the code (comments removed: the languages differ only there)
    and the interpreter. Twins with the same key need running only once."""
    sys.path.insert(0, str(Path(__file__).parent))
    import course

    nb = nbformat.read(path, as_version=4)
    code = [course.strip_comments(c.source) for c in nb.cells if c.cell_type == "code"]
    payload = json.dumps([code, python_id, Path(__file__).read_text(encoding="utf-8")], ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def interpreter(python):
    """Python and torch versions of an interpreter (torch imported in a child process)."""
    probe = ("import json, platform, torch; "
             "print(json.dumps({'python': platform.python_version(), 'torch': torch.__version__, "
             "'cuda': torch.cuda.is_available()}))")
    done = subprocess.run([str(python), "-s", "-c", probe], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{python} cannot import torch: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# --- A Python environment that has only torch ----------------------------------------------------

def _closure(names):
    """Distributions the named ones need, transitively (extras left out), from this environment."""
    import importlib.metadata as md

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    seen, todo = {}, list(names)
    while todo:
        name = canonicalize_name(todo.pop())
        if name in seen:
            continue
        dist = md.distribution(name)
        seen[name] = dist
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or req.marker.evaluate({"extra": ""}):
                todo.append(req.name)
    return seen


def torch_only_venv(dest, packages=TORCH_ONLY):
    """A virtual environment at `dest` whose site-packages holds only `packages` and what they need,
    linked from this environment's site-packages: the project's other packages (nbformat, jupytext,
    mkdocs, pytest, numpy, ...) cannot be imported there. Returns its python and the package names."""
    dest = Path(dest)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(dest)], check=True)
    python = dest / "bin" / "python"
    target = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                                 capture_output=True, text=True, check=True).stdout.strip())
    here = Path(sysconfig.get_path("purelib"))
    dists = _closure(packages)
    for dist in dists.values():
        top = {Path(f).parts[0] for f in dist.files or [] if not str(f).startswith("..")}
        for entry in top - {"__pycache__"}:
            source = here / entry
            if source.exists() and not (target / entry).exists():
                (target / entry).symlink_to(source)
    return python, sorted(dists)


def main(argv=None):
    """python scripts/run_all.py PYTHON NOTEBOOK... : run each notebook, tags removed, under PYTHON."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) < 2:
        print(main.__doc__, file=sys.stderr)
        return 2
    python, paths = argv[0], argv[1:]
    failed = 0
    for path in paths:
        result = run(path, python)
        print(result.describe(), flush=True)
        failed += not result.ok
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
