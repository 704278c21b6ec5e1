"""Run a notebook as a reader's "Run all" does: top to bottom, in a fresh kernel, cell tags ignored.

Colab's and Positron's "Run all" ignore cell tags (`raises-exception` included), so a notebook must
run to its end with every tag removed. The kernel is started from a given Python interpreter, in an
empty temporary folder (as Colab starts in /content), so the notebook can rely on nothing but that
interpreter's packages. Used by tests/test_run_all.py (a kernel that has only torch) and by
scripts/check_torch_versions (any interpreter with torch and ipykernel).

Usage: python -m tools.run_all PYTHON [PYTHON ...] [--only CONCEPT ...]
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


def run(path, python, timeout=600, name=None, keep_tags=False):
    """Execute the notebook at `path` with every tag removed, in a fresh kernel of `python`."""
    name = name or str(path)
    nb = nbformat.read(path, as_version=4)
    nb = nb if keep_tags else without_tags(nb)
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
        # temporary files go with this folder (torch.distributed.run leaves a torchelastic_* folder)
        env["TMPDIR"] = str(Path(tmp) / "tmp")
        (Path(tmp) / "tmp").mkdir()
        try:
            client.execute(env=env)
        except (CellExecutionError, CellTimeoutError, DeadKernelError) as err:
            return _failure(name, nb, err, time.monotonic() - start)
        finally:  # nbclient leaves a kernel it did not create running
            if km.has_kernel:
                km.shutdown_kernel(now=True)
    return Result(name, True, time.monotonic() - start)


def _failure(name, nb, err, seconds):
    """Name the cell where execution stopped: the last one with an error (with tags kept, earlier
    cells may hold allowed errors), else the first code cell that never ran."""
    code = [(i, n, cell) for n, (i, cell) in enumerate(
        ((i, c) for i, c in enumerate(nb.cells, 1) if c.cell_type == "code"), 1)]
    failed = [(i, n, c, e) for i, n, c in code
              for e in [next((o for o in c.get("outputs", []) if o.get("output_type") == "error"), None)] if e]
    if failed:
        i, n, cell, error = failed[-1]
        message = f"{error['ename']}: {ANSI.sub('', error['evalue'])}"
    else:
        unrun = [(i, n, c) for i, n, c in code if c.get("execution_count") is None]
        if not unrun:
            return Result(name, False, seconds, error=f"{type(err).__name__}: {ANSI.sub('', str(err))[:500]}")
        i, n, cell = unrun[0]
        message = f"{type(err).__name__}: {(ANSI.sub('', str(err)).strip().splitlines() or [''])[0]}"
    first = next((line for line in cell.source.splitlines() if line.strip()), "")
    return Result(name, False, seconds, i, n, first.strip()[:80], _short(message))


def _short(message, lines=3):
    kept = message.strip().splitlines()
    return "\n".join(kept[:lines] + (["..."] if len(kept) > lines else []))


def code_key(path, python_id):
    """What decides a run's outcome: the code (comments removed: the languages differ only there)
    and the interpreter. Twins with the same key need running only once."""
    from coursebuild import course

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


def check(pythons, twins, jobs=2, log=print, keep_tags=False):
    """Run every twin under each interpreter (distinct code once); log one line per notebook."""
    from concurrent.futures import ThreadPoolExecutor

    failed = 0
    for python in pythons:
        about = interpreter(python)
        torch = f"torch {about['torch']}"
        log(f"{python}: Python {about['python']}, {torch}, CUDA available: {about['cuda']}")
        keys = {twin: code_key(twin, [str(python), about["python"], about["torch"]]) for twin in twins}
        first = {}
        for twin, key in keys.items():
            first.setdefault(key, twin)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = dict(zip(first, pool.map(lambda twin: run(twin, python, name=_rel(twin), keep_tags=keep_tags), first.values())))
        for twin, key in keys.items():
            result = results[key]
            failed += not result.ok
            mark = "pass" if result.ok else "FAIL"
            if first[key] == twin:
                detail = f"({result.seconds:.1f} s)" if result.ok else result.describe().split(": ", 1)[1]
            else:
                detail = f"(same code as {_rel(first[key])}, comments aside)"
            log(f"  {mark}  {torch}  {_rel(twin)}  {detail}".rstrip().replace("\n", "\n        "))
    return failed


def _rel(path):
    root = Path(__file__).resolve().parent.parent
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return str(path)


def main(argv=None):
    import argparse

    root = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(
        description="Run every committed notebook (.ipynb twin) top to bottom with all cell tags removed, "
                    "in a fresh kernel of each given Python interpreter (it needs torch and ipykernel), "
                    "and print pass/fail per notebook with the torch version.")
    parser.add_argument("python", nargs="+", type=Path, help="interpreter, e.g. /path/to/venv/bin/python")
    parser.add_argument("--only", nargs="*", help="concepts, e.g. 02-moving-tensors")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks run at once (default 2)")
    parser.add_argument("--keep-tags", action="store_true",
                        help="honour the tags as nbclient does (raises-exception) to see what fails after them")
    args = parser.parse_args(argv)
    twins = sorted(t for t in (root / "notebooks").glob("*/*.ipynb") if not args.only or t.stem in args.only)
    for python in args.python:
        done = subprocess.run([str(python), "-s", "-c", "import ipykernel, torch"], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"error: {python} cannot import torch and ipykernel (pip install ipykernel there): "
                  f"{(done.stderr.strip().splitlines() or [''])[-1]}", file=sys.stderr)
            return 2
    failed = check(args.python, twins, args.jobs, log=lambda line: print(line, flush=True), keep_tags=args.keep_tags)
    print(f"{failed} failed" if failed else "all passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
