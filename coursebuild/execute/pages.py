"""Execute every concept once on this machine's best device, cache the result, and write the pages.

For each concept the reference-language notebook is executed with nbclient in a scratch folder of its
own (scripts/sandbox.py): a cell that changes the author's files stops the build, naming the cell, and
nothing a cell started outlives its notebook. Its outputs are copied into every language's notebook
(their code is identical but for comments) and written to docs/<lang>/<concept>.ipynb for MkDocs to
render. When a record of outputs made
on a GPU (records/) matches the current code, the page shows those and a second page shows the
CPU outputs from this build.

Generated pages carry a signed mark (metadata.course.generated): the build overwrites or removes
only files it wrote itself and nobody changed since; any other notebook under docs/ stops the build,
naming it, before anything runs. Every cell has a time limit (NOTEBOOK_CELL_TIMEOUT, seconds;
default 120); a failure, a timeout or Ctrl-C stops every kernel at once, and every file is written
whole (a temporary file, then a rename) or not at all. One build runs at a time (scripts/build_lock.py).
Pages show no path of this machine, and no cell output over OUTPUT_LIMIT.

Usage: python -m coursebuild.execute.pages [--records DIR] [--only CONCEPT ...]
"""
import argparse
import asyncio
import atexit
import contextlib
import copy
import datetime
import hashlib
import importlib.metadata
import json
import logging
import os
import platform
import re
import signal
import sys
import tempfile
import threading
import time
import weakref
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from coursebuild import course, lock
from coursebuild.course import questions, twins
from coursebuild.execute import sandbox

CACHE = course.ROOT / ".cache" / "executed"
RECORDS = course.ROOT / "records"
CPU_VIEW = "cpu"  # folder, under each language, of the CPU view of pages that show recorded outputs
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Run before the notebook, unseen: tracebacks show the error, not frames deep inside torch
# (which would also print this machine's paths).
SETUP = "%xmode Minimal"
CELL_TIMEOUT = 120  # seconds one cell may run; NOTEBOOK_CELL_TIMEOUT overrides it for a run
# Bytes of one cell's outputs a page may show: more is of no use to a reader (a cell that printed
# megabytes made a 48 MB page and a 50 MB search index per language). A build error, not a cut: the
# fix is in the notebook, and every output shown stays what the code printed.
OUTPUT_LIMIT = 100_000

BuildError = course.BuildError  # a problem the author must fix; the message names the file and what to do


def environment():
    """What produces the outputs here: device, torch and Python versions."""
    version = importlib.metadata.version("torch")
    # A CPU-only build needs no torch import (a second) to tell its device.
    kind, name = ("cpu", _cpu_name()) if version.endswith("+cpu") else _accelerator()
    return {"kind": kind, "device": name, "torch": version, "python": platform.python_version()}


def _accelerator():
    import torch

    if torch.cuda.is_available():
        return "cuda", torch.cuda.get_device_name(0)
    if hasattr(torch, "accelerator") and torch.accelerator.is_available():
        kind = torch.accelerator.current_accelerator().type
        return kind, kind.upper()
    return "cpu", _cpu_name()


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return "CPU, " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU, " + (platform.processor() or platform.machine())


def cache_key(nb, env):
    fields = [course.code_hash(nb), env["kind"], env["device"], env["torch"], env["python"], SETUP]
    return hashlib.sha256("|".join(fields).encode()).hexdigest()[:24]


def cell_timeout():
    """Seconds one cell may run: NOTEBOOK_CELL_TIMEOUT, or two minutes."""
    value = os.environ.get("NOTEBOOK_CELL_TIMEOUT", "").strip()
    if not value:
        return CELL_TIMEOUT
    try:
        seconds = float(value)
    except ValueError:
        seconds = 0
    if not seconds > 0:
        raise BuildError(f"NOTEBOOK_CELL_TIMEOUT={value!r}: give the time limit of one cell in seconds, "
                         "e.g. NOTEBOOK_CELL_TIMEOUT=300")
    return seconds


class Stopped(Exception):
    """This notebook was stopped because the build is stopping (Ctrl-C, or a failure elsewhere)."""


class Kernels:
    """What the notebooks of one build share: the kernels running, so that Ctrl-C or a failure elsewhere
    stops them all at once, and the watch on the author's files. authoring: the live preview, where the
    author saves the files it watches at any moment (they are not counted as a cell's doing)."""

    def __init__(self, authoring=False):
        self.stopping = threading.Event()
        self._lock = threading.RLock()  # stop() may run in a signal handler while the thread is in it
        self._running = set()
        self.tree = sandbox.Tree(course.ROOT, sandbox.AUTHORED if authoring else None)
        self.cells = {}  # notebook: where it is now (a function), for messages about the author's files
        _BUILDS.add(self)

    def started(self, km):
        with self._lock:
            self._running.add(km)
            if self.stopping.is_set():
                _kill(km)

    def finished(self, km):
        with self._lock:
            self._running.discard(km)

    def stop(self):
        with self._lock:
            self.stopping.set()
            for km in self._running:
                _kill(km)


_BUILDS = weakref.WeakSet()  # every build's Kernels, for stop_all


def stop_all():
    """Stop every kernel of every build in this process (the live preview, when it ends)."""
    for kernels in list(_BUILDS):
        kernels.stop()


def _kill(km):
    """Kill a kernel and whatever its cells started: its process group (the kernel leads one), and the
    processes that left it, found by their scratch folder's mark."""
    left = sandbox.descendants(getattr(km.provisioner, "pid", None))
    pgid = getattr(km.provisioner, "pgid", None)
    with contextlib.suppress(OSError):
        if pgid:
            os.killpg(pgid, signal.SIGKILL)
    if km.scratch is not None:
        sandbox.reap(km.scratch, left)


class _KernelManager(AsyncKernelManager):
    kernels = None  # the build's Kernels, told as soon as the kernel's process runs
    scratch = None  # the run's scratch folder, whose name every process of the run carries

    async def _async_post_start_kernel(self, **kw):
        await super()._async_post_start_kernel(**kw)
        if self.kernels is not None:
            self.kernels.started(self)


# nbclient logs the timeouts and kernel deaths that run_notebook reports in its own words.
NBCLIENT_LOG = logging.getLogger("execute.nbclient")
NBCLIENT_LOG.addFilter(lambda record: not record.getMessage().startswith(
    ("Timeout waiting for execute reply", "Kernel died while waiting for execute reply")))


def run_notebook(concept, nb, env, kernels=None):
    """Execute a notebook in a scratch folder of its own; raise BuildError naming the failing cell, or
    the cell that changed the author's files.

    The kernel is shut down however the run ends, with every process its cells started, and the
    scratch folder is removed."""
    path = course.source(course.REFERENCE, concept)
    name = path.relative_to(course.ROOT)
    timeout = cell_timeout()
    kernels = kernels or Kernels()
    nb = copy.deepcopy(nb)
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    scratch = sandbox.Scratch(concept, course.REFERENCE)
    km = _KernelManager(kernel_name="python3", transport="ipc",
                        connection_file=tempfile.mktemp(prefix="course-kernel-", suffix=".json"))
    km.kernels, km.scratch = kernels, scratch.path
    current = {"index": None}  # the cell running now (index in the notebook without SETUP)
    left = []  # what the kernel started, taken before it dies (orphans move to init)

    def where():
        index = current["index"]
        if index is None or index < 0:
            return "a cell"
        return f"cell {index + 1} (line {course.cell_line(path, index)})"

    def on_cell_start(cell, cell_index):
        if kernels.stopping.is_set():
            raise Stopped(concept)
        current["index"] = cell_index - 1
        kernels.cells[name] = where

    def on_cell_executed(cell, cell_index, execute_reply):
        _check_tree(kernels, name, where())

    client = NotebookClient(nb, km=km, timeout=timeout, allow_errors=False, on_cell_start=on_cell_start,
                            on_cell_executed=on_cell_executed, resources={"metadata": {"path": str(scratch.cwd)}},
                            log=NBCLIENT_LOG)

    async def execute():
        try:
            await client.async_execute(env=scratch.env)
        finally:
            kernels.finished(km)
            # nbclient leaves this behind when the kernel dies while starting (a build stopping)
            atexit.unregister(client._cleanup_kernel)
            if client.kc is not None:
                client.kc.stop_channels()
            left.extend(sandbox.descendants(getattr(km.provisioner, "pid", None)))
            with contextlib.suppress(RuntimeError, OSError):
                if km.has_kernel:
                    await km.shutdown_kernel(now=True)  # kills the process group
            await km.cleanup_resources()  # the connection file and sockets

    try:
        _in_own_thread(execute, kernels)
    except CellExecutionError as err:
        nb.cells.pop(0)
        raise BuildError(
            f"{name}: {where()} raised {err.ename}: {ANSI.sub('', err.evalue)}\n"
            "  Fix the code; if the error is what the cell demonstrates, catch it with expect_error (notebooks/README.md)."
        ) from None
    except CellTimeoutError:
        if kernels.stopping.is_set():
            raise Stopped(concept) from None
        raise BuildError(
            f"{name}: {where()} was still running after {timeout:g} s, the time limit for one cell; "
            "the build stopped it.\n"
            "  Look for a loop that never ends, make the cell faster, or allow more time for this run: "
            "NOTEBOOK_CELL_TIMEOUT=600 ./scripts/build") from None
    except DeadKernelError:
        if kernels.stopping.is_set():
            raise Stopped(concept) from None
        raise BuildError(
            f"{name}: the Python process running the notebook died during {where()} "
            "(os._exit, a crash in native code, or out of memory).\n"
            "  Run the notebook yourself to see which line ends the process, and fix it.") from None
    finally:
        kernels.cells.pop(name, None)
        scratch.remove(left)  # whatever left the kernel's process group, then the folder
    if kernels.stopping.is_set():
        raise Stopped(concept)
    _check_tree(kernels, name, "after its last cell, a process one of its cells started")
    nb.cells.pop(0)
    for count, cell in enumerate(course.code_cells(nb), 1):
        cell.execution_count = count
    nb.metadata["course"] = {"provenance": dict(env, date=datetime.date.today().isoformat()),
                             "code_hash": course.code_hash(nb)}
    return nb


def _check_tree(kernels, name, where):
    """Raise BuildError if the author's files changed since the last look (a cell wrote into the project)."""
    changed = kernels.tree.changes()
    if not changed:
        return
    others = [f"{other} was at {at()}" for other, at in list(kernels.cells.items()) if other != name]
    raise BuildError(
        f"{name}: {where} changed the project's files: {', '.join(changed)}.\n"
        + (f"  ({'; '.join(others)} at the same time: the change may come from there.)\n" if others else "")
        + "  Cells run in a scratch folder of their own: write files to relative paths or inside "
          "tempfile.TemporaryDirectory(), never to a path in the project. The build did not undo the change: "
          "look at these files (git status, git diff). If you changed them yourself while the notebook ran, "
          "build again.")


def _in_own_thread(coroutine, kernels):
    """Run a coroutine in a thread of its own, with its own event loop (the caller may have one
    running). Ctrl-C stops the kernels, so that the thread ends within seconds, then goes on."""
    outcome = {}

    def target():
        try:
            outcome["result"] = asyncio.run(coroutine())
        except BaseException as err:  # handed to the caller
            outcome["error"] = err

    thread = threading.Thread(target=target, name="notebook")
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.2)
    except BaseException:
        kernels.stop()
        thread.join()
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("result")


def _from_cache(path, nb, log):
    """The cached run of notebook nb at path, or None (a miss) when there is none, it cannot be read, or
    it is not a run of this notebook's code (copied from elsewhere, edited by hand)."""
    if not path.exists():
        return None
    try:
        cached = nbformat.read(path, as_version=4)
        cached.metadata["course"]["provenance"]["device"]
        matches = cached.metadata["course"]["code_hash"] == course.code_hash(cached) == course.code_hash(nb)
    except Exception as err:  # a truncated or damaged entry is a miss, never a crash
        problem = f"is unreadable ({type(err).__name__})"
    else:
        if matches:
            return cached
        problem = f"does not match {course.source(course.REFERENCE, cached_concept(path)).relative_to(course.ROOT)}"
    log(f"cache entry {path.relative_to(course.ROOT)} {problem}: executing again")
    with contextlib.suppress(OSError):
        path.unlink()
    return None


def cached_concept(path):
    """The concept of a cache entry (<concept>-<key>.ipynb), or None for another file."""
    found = re.fullmatch(r"(.+)-[0-9a-f]{24}\.ipynb", path.name)
    return found and found[1]


def _prune_cache(log):
    """Remove the cache entries of notebooks that are gone (executed and parsed)."""
    kept = set(course.concepts())
    for entry in CACHE.glob("*.ipynb"):
        if cached_concept(entry) not in kept | {None}:
            entry.unlink(missing_ok=True)
            log(f"removed {entry.relative_to(course.ROOT)}: its notebook is gone")
    for entry in (course.ROOT / ".cache" / "parsed").glob("*.json"):
        found = re.fullmatch(r"([a-z]+)-(.+)-[0-9a-f]{24}\.json", entry.name)
        if found and found[1] in course.LANGS and not course.source(found[1], found[2]).exists():
            entry.unlink(missing_ok=True)


def executed(concept, env, log=print, kernels=None):
    """The executed reference notebook, from the cache when its code, device and versions match."""
    return _executed(concept, env, log, kernels)[0]


def _executed(concept, env, log, kernels):
    """(notebook, seconds it took to execute, or None when it came from the cache)."""
    nb = course.read(course.REFERENCE, concept)
    path = CACHE / f"{concept}-{cache_key(nb, env)}.ipynb"
    cached = _from_cache(path, nb, log)
    if cached is not None:
        return cached, None
    log(f"executing {course.source(course.REFERENCE, concept).relative_to(course.ROOT)} on {env['device']}")
    start = time.monotonic()
    result = run_notebook(concept, nb, env, kernels)
    course.write_atomic(path, nbformat.writes(result))
    for old in CACHE.glob(f"{concept}-*.ipynb"):  # this concept's entries for older code
        if old != path and cached_concept(old) == concept:
            old.unlink(missing_ok=True)
    return result, time.monotonic() - start


def execute_all(names, env, log=print, authoring=False):
    """{concept: (notebook, seconds or None)}, two notebooks at a time. The first failure, or Ctrl-C,
    stops every other notebook at once (their kernels are killed) before it is raised."""
    kernels = Kernels(authoring)
    lock = threading.Lock()

    def say(line):  # one whole line at a time from both threads
        with lock:
            log(line)

    pool = ThreadPoolExecutor(max_workers=2)
    futures = {pool.submit(_executed, name, env, say, kernels): name for name in names}
    ok = False
    try:
        wait(futures, return_when=FIRST_EXCEPTION)
        failures = [f for f in futures if f.done() and f.exception() is not None]
        real = [f for f in failures if not isinstance(f.exception(), Stopped)]
        if failures:
            raise (real or failures)[0].exception()
        ok = True
        return {futures[f]: f.result() for f in futures}
    finally:
        if not ok:
            kernels.stop()
        pool.shutdown(wait=True, cancel_futures=True)


def load_records(records_dir):
    """The recorded outputs (made on a GPU, normally): {concept: notebook}, and their manifest."""
    manifest_path = Path(records_dir) / "manifest.json"
    if not manifest_path.exists():
        return {}, None
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    notebooks = {}
    for concept in manifest.get("concepts", {}):
        path = Path(records_dir) / f"{concept}.ipynb"
        if path.exists():
            notebooks[concept] = nbformat.read(path, as_version=4)
    return notebooks, manifest


def fresh_record(concept, records, manifest):
    """The recorded notebook for a concept if it was made from the current code, else None."""
    if manifest is None or concept not in records:
        return None
    current = course.code_hash(course.read(course.REFERENCE, concept))
    recorded = manifest["concepts"][concept]["code_hash"]
    if recorded != current or course.code_hash(records[concept]) != current:
        return None
    nb = records[concept]
    nb.metadata["course"] = {"provenance": _record_provenance(manifest), "code_hash": current}
    return nb


def _record_provenance(manifest):
    keys = ("kind", "device", "torch", "python", "date", "driver", "cuda")
    return {k: manifest[k] for k in keys if k in manifest}


def check_answers(shown):
    """Raise BuildError unless exactly one choice of every question appears in the output that answers
    it, for each (concept, executed notebook) a page shows."""
    problems = []
    for concept, run in shown:
        nb = with_outputs(course.REFERENCE, concept, run, "check")
        machine = run.metadata["course"]["provenance"]["device"]
        problems += questions.answer_problems(nb, course.source(course.REFERENCE, concept), machine)
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))


def check_output_sizes(shown):
    """Raise BuildError naming each cell whose outputs are over OUTPUT_LIMIT, for each (concept, executed
    notebook) a page shows."""
    problems = []
    for concept, run in shown:
        path = course.source(course.REFERENCE, concept)
        machine = run.metadata["course"]["provenance"]["device"]
        for i, cell in enumerate(run.cells):
            size = len(json.dumps(cell.get("outputs", []), ensure_ascii=False).encode())
            if size > OUTPUT_LIMIT:
                problems.append(course.Problem(path, f"cell {i + 1} (line {course.cell_line(path, i)}) printed "
                                                     f"{_size(size)} on {machine}; a page shows at most "
                                                     f"{_size(OUTPUT_LIMIT)} of a cell's output.\n  Print less: a "
                                                     "shape, a few values (t[:5]) or a summary (t.sum(), t.mean())."))
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))


def _size(count):
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.0f} KB"


def neutral(value):
    """value (an output, or any part of one) with the paths of the machine that ran it rewritten:
    warnings and tracebacks print where the code lives, and a page must not show this machine's
    folders (the checkout, the virtual environment, the kernel's temporary files)."""
    return _rewritten(value, _machine_paths())


def _rewritten(value, rules):
    if isinstance(value, str):
        for pattern, replacement in rules:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [_rewritten(v, rules) for v in value]
    if isinstance(value, dict):
        return type(value)((k, _rewritten(v, rules)) for k, v in value.items())
    return value


PATH_CHARS = r"[^\s'\"()\[\]<>=,;|]*"


def _machine_paths():
    """(pattern, replacement): generic forms first (a record made elsewhere has them too), then the
    folders of this machine, longest first."""
    rules = [
        (PATH_CHARS + r"[/\\]ipykernel_\d+[/\\]\d+\.py", "<cell>"),  # the file of a cell's code
        (PATH_CHARS + r"[/\\]course-run-[^/\\\s'\"]+", "…"),  # a scratch folder (sandbox.Scratch)
        (PATH_CHARS + r"[/\\](site-packages|dist-packages)(?=[/\\])", r"…/\1"),
        (PATH_CHARS + r"[/\\]lib[/\\](python3\.\d+)(?=[/\\])", r"…/\1"),
    ]
    folders = {}
    for folder, replacement in ((Path.home(), "~"), (Path(sys.prefix), "…"), (course.ROOT, "…")):
        for form in (folder, folder.resolve()):
            if len(form.parts) > 1:
                folders[str(form)] = replacement
    for folder in sorted(folders, key=len, reverse=True):
        rules.append((r"(?<![\w.-])" + re.escape(folder) + r"(?![\w.-])", folders[folder]))
    return [(re.compile(pattern), replacement) for pattern, replacement in rules]


def with_outputs(lang, concept, run, view, alternate=None):
    """The language's notebook with the outputs of an executed run, and provenance for the page."""
    nb = course.read(lang, concept)
    cells = course.code_cells(nb)
    ran = course.code_cells(run)
    if len(cells) != len(ran):
        raise BuildError(f"{course.source(lang, concept).relative_to(course.ROOT)}: "
                         "code cells do not match the executed original; fix the parity problems first")
    for mine, theirs in zip(cells, ran):
        mine.outputs = neutral(theirs.get("outputs", []))
        mine.execution_count = theirs.get("execution_count")
    nb.metadata["course"] = {"concept": concept, "lang": lang, "view": view, "alternate": alternate,
                             "provenance": run.metadata["course"]["provenance"]}
    return nb


# Every page the build writes carries this mark: the page's path under docs/ and a hash of the file
# with the hash left out. A file under docs/ is the build's to overwrite or remove only when its mark
# is there, names that very path and still matches the bytes (nobody changed the file since).
UNSIGNED = "sha256-of-this-file-with-this-value"


def page_text(nb, page):
    """The text of a generated page, signed for its path under docs/."""
    nb.metadata["course"]["generated"] = {"page": page, "sha256": UNSIGNED}
    text = nbformat.writes(nb)
    return text.replace(UNSIGNED, hashlib.sha256(text.encode()).hexdigest(), 1)


def written_by_build(path):
    """Whether the build wrote this file under docs/ and nobody changed it since."""
    page = path.relative_to(course.DOCS).as_posix()
    try:
        text = path.read_text(encoding="utf-8")
        meta = json.loads(text)["metadata"]["course"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    mark = meta.get("generated") if isinstance(meta, dict) else None
    if isinstance(mark, dict) and isinstance(mark.get("sha256"), str):
        unsigned = text.replace(mark["sha256"], UNSIGNED, 1)
        return mark.get("page") == page and hashlib.sha256(unsigned.encode()).hexdigest() == mark["sha256"]
    # Pages written before pages were signed: the build's metadata, at the path it gives.
    if mark is None and {"lang", "concept", "view"} <= set(meta):
        folder = f"{CPU_VIEW}/" if meta["view"] == "build" and meta.get("alternate") else ""
        return page == f"{meta['lang']}/{folder}{meta['concept']}.ipynb"
    return False


def foreign_notebooks():
    """Notebooks under docs/ that the build did not write (MkDocs skips hidden files and folders)."""
    found = []
    for path in sorted(course.DOCS.rglob("*.ipynb")):
        if any(part.startswith(".") for part in path.relative_to(course.DOCS).parts):
            continue
        if not written_by_build(path):
            found.append(path)
    return found


def _refusal(paths):
    lines = []
    for path in paths:
        name = path.relative_to(course.ROOT)
        page = path.relative_to(course.DOCS)
        concept = path.stem
        if len(page.parts) >= 2 and page.parts[0] in course.LANGS and (course.NOTEBOOKS / page.parts[0] /
                                                                      f"{concept}.py").exists():
            lines.append(f"{name}: not the page the build wrote there (changed by hand?); the build will not "
                         "overwrite it.\n"
                         f"  Pages are generated from notebooks/{page.parts[0]}/{concept}.py: put your change "
                         f"there, then delete {name}.")
        else:
            lines.append(f"{name}: a notebook the build did not write; it leaves it untouched but cannot "
                         "publish it.\n  Pages come from notebooks/<lang>/NN-name.py (see notebooks/README.md): "
                         f"write it there in every language, or move {name} out of docs/.")
    return "\n".join(lines)


def write_page(path, nb):
    """Write a generated page (signed); True if the file changed."""
    text = page_text(nb, path.relative_to(course.DOCS).as_posix())
    if path.exists():
        if path.read_text(encoding="utf-8") == text:
            return False
        if not written_by_build(path):  # checked before the build started; re-checked just before writing
            raise BuildError(_refusal([path]))
    course.write_atomic(path, text)
    return True


def build_pages(records_dir=RECORDS, only=None, log=print, authoring=False):
    """Execute the notebooks (only: these concepts; the live preview) and write their pages, one build
    at a time in a checkout. authoring: see Kernels."""
    with lock.held(log):
        return _build_pages(records_dir, only, log, authoring)


def _build_pages(records_dir, only, log, authoring):
    start = time.monotonic()
    cell_timeout()  # a bad setting stops the build before anything runs
    problems = (course.parity_problems(only) + course.tag_problems(only) + questions.question_problems(only)
                + course.nav_problems(only) + twins.stale(only))
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))
    foreign = foreign_notebooks()
    if foreign:
        raise BuildError(_refusal(foreign))
    env = environment()
    names = [c for c in course.concepts() if not only or c in only]
    _prune_cache(log)
    done = execute_all(names, env, log, authoring)
    runs = {concept: nb for concept, (nb, _) in done.items()}
    ran = [f"{c} ({s:.1f} s)" for c, (_, s) in done.items() if s is not None]
    cached = [c for c, (_, s) in done.items() if s is None]
    if ran:
        log(f"executed on {env['device']}: {', '.join(ran)}")
    if cached:
        log(f"cached: {', '.join(cached)}")
    records, manifest = load_records(records_dir)
    stale = [c for c in records if fresh_record(c, records, manifest) is None]
    if stale:
        log(f"stale records (code changed since they were made; showing this build's outputs): {', '.join(stale)}")
    # Every page's questions are graded by the outputs it shows: this build's, and a fresh record's.
    shown = [(c, run) for c, run in runs.items()] + \
            [(c, rec) for c in runs if (rec := fresh_record(c, records, manifest)) is not None]
    check_output_sizes(shown)
    check_answers(shown)
    wanted = set()
    changed = 0
    for concept, run in runs.items():
        record = fresh_record(concept, records, manifest)
        for lang in course.LANGS:
            page = course.DOCS / lang / f"{concept}.ipynb"
            if record is None:
                changed += write_page(page, with_outputs(lang, concept, run, "build"))
                wanted.add(page)
                continue
            cpu_page = course.DOCS / lang / CPU_VIEW / f"{concept}.ipynb"
            changed += write_page(page, with_outputs(lang, concept, record, "record", f"{CPU_VIEW}/{concept}.ipynb"))
            changed += write_page(cpu_page, with_outputs(lang, concept, run, "build", f"../{concept}.ipynb"))
            wanted.update({page, cpu_page})
    # Pages no concept wants any more; the live preview (only) looks at the concepts it was given, which
    # may have been deleted.
    gone = set(only or ()) - set(course.concepts())
    removed = []
    for old in sorted(course.DOCS.rglob("*.ipynb")):  # a list: emptied view folders go
        if old not in wanted and (not only or old.stem in gone) and not old.name.startswith(".") \
                and written_by_build(old):
            old.unlink()
            removed.append(old)
            with contextlib.suppress(OSError):  # a view folder left empty
                if old.parent.name == CPU_VIEW:
                    old.parent.rmdir()
    log(f"pages: {len(wanted)} in docs/, {changed} written, {len(wanted) - changed} unchanged"
        + (f", removed {', '.join(sorted(str(p.relative_to(course.ROOT)) for p in removed))}" if removed else ""))
    for concept in sorted({p.stem for p in removed} - set(course.concepts())):
        log(_deleted(concept))
    log(f"notebooks done in {time.monotonic() - start:.1f} s")
    return runs, stale


def _deleted(concept):
    """What the build says when a concept's notebooks are gone: its pages went with them."""
    line = f"{concept}: its notebooks are deleted, so its pages are removed from the site"
    left = [str(twins.path(lang, concept).relative_to(course.ROOT)) for lang in course.LANGS
            if twins.path(lang, concept).exists()]
    if left:
        line += (f"; {', '.join(left)} remain (delete them too, or restore a notebook from its twin: "
                 f"jupytext --to py:percent {left[0]})")
    listed = course.nav()
    if listed and f"{concept}.ipynb" in {page for _, page in listed[1]}:
        line += f"; remove `{concept}.ipynb` from nav in mkdocs.yml"
    return line


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    return build_or_explain(args.records, args.only)


def build_or_explain(records_dir=RECORDS, only=None):
    """build_pages for a command line: 0; 1 with the author's error printed; 130 after Ctrl-C."""
    # CI cancels a job with SIGTERM: stop as Ctrl-C does, killing the kernels.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        build_pages(records_dir, only)
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: kernels stopped; every page and cache entry is either whole or not written",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
