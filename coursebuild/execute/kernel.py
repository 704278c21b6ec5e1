"""Run one notebook in a Jupyter kernel (nbclient), in a scratch folder of its own (sandbox.py).

A failing cell, a cell over its time limit (NOTEBOOK_CELL_TIMEOUT, seconds; default 120), a kernel that
dies, or a cell that changes the author's files is a BuildError naming the notebook and cell. The
notebooks of one build share a Kernels: a failure elsewhere or Ctrl-C stops every kernel at once, with
whatever its cells started. Hands the executed notebook (with its provenance: device, torch and Python
versions, date) to cache.py.
"""
import asyncio
import atexit
import contextlib
import copy
import datetime
import importlib.metadata
import logging
import os
import platform
import re
import signal
import tempfile
import threading
import weakref
from pathlib import Path

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

from coursebuild import course
from coursebuild.course import BuildError
from coursebuild.execute import sandbox

ANSI = re.compile(r"\x1b\[[0-9;]*m")

# Run before the notebook, unseen: tracebacks show the error, not frames deep inside torch
# (which would also print this machine's paths). The rest keeps stdout and stderr in the order a cell
# wrote them: the kernel buffers each stream on its own and sends each when its own flush timer fires, so
# a line printed to stderr without a flush arrived after the stdout lines printed later, and no join of
# the outputs can restore an order the messages no longer carry. When a write follows one to the other
# stream, the other stream's buffer (all written before) is sent first, so the messages leave in the
# order of the writes. The hook is the stream class's _schedule_flush, which every write in the kernel's
# process calls: IPython wraps each stream's write for the length of every cell and puts back the one it
# found, so a patched write would not survive the first cell.
SETUP = """%xmode Minimal
def _course_ordered_streams(stream_class=type(__import__("sys").stdout)):
    schedule, last = stream_class._schedule_flush, [None]
    def ordered_schedule(self):
        if last[0] is not None and last[0] is not self:
            last[0].flush()
        last[0] = self
        return schedule(self)
    stream_class._schedule_flush = ordered_schedule
_course_ordered_streams()
del _course_ordered_streams
"""

CELL_TIMEOUT = 120  # seconds one cell may run; NOTEBOOK_CELL_TIMEOUT overrides it for a run


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


def _join_split_writes(outputs):
    """One output per run of writes to a stream, as Jupyter front ends show them. The kernel sends what a
    print wrote in pieces when its flush timer fires in the middle (on a loaded machine, `meta` and
    ` cpu cpu` for one print), and a question's answer is read from the whole line. Only consecutive
    outputs of one stream are joined: SETUP has the kernel send the streams in the order they were
    written, and that order stays."""
    joined = []
    for out in outputs:
        if joined and out["output_type"] == "stream" == joined[-1]["output_type"] and out["name"] == joined[-1]["name"]:
            joined[-1]["text"] += out["text"]
        else:
            joined.append(out)
    outputs[:] = joined


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
        _join_split_writes(cell.get("outputs", []))
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
