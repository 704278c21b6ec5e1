"""Where a notebook runs: a scratch folder of its own, the author's files watched, and nothing of it
left running afterwards.

The kernel's working directory is <scratch>/notebooks/<lang>/, the project's layout with nothing in it
(the notebooks read nothing but torch and the standard library), so that a relative path written for
the project (`../../README.md`) lands in the scratch folder. TMPDIR is <scratch>/tmp: temporary files
(tempfile, ipykernel's cell files, the torchelastic_* folders torch.distributed.run leaves) go with it.
Every process the kernel starts inherits the folder's name in its environment (MARK), so that all of
them can be found and killed when the notebook ends, also those that left the kernel's process group
(start_new_session=True, setsid, a double fork).

The kernel gets an environment built from an allowlist (ENVIRONMENT), not the build's: a CI token, a
cloud key or any other variable of the machine that builds must not be printable by a cell onto the
site, into the downloadable notebooks or the search index.

Tree compares the author's files (modification times and sizes: git may not be there) with how they
were, so that a cell that writes into the project by an absolute path is named. Used by kernel.py.
"""
import contextlib
import os
import re
import shutil
import tempfile
import threading
import time
from pathlib import Path

import psutil

MARK = "COURSE_SCRATCH"
# Folder of the scratch folders; None: the system's temporary folder. A short path, because sockets
# that cells make under TMPDIR (multiprocessing) must fit in 108 bytes.
PARENT = None


# What torch, Jupyter, the system and the course need; everything else of the build's environment stays
# out of the kernel. Names, and prefixes ending in "_".
ENVIRONMENT = re.compile(
    r"(PATH|HOME|USER|LOGNAME|SHELL|LANG|LANGUAGE|TERM|TZ|VIRTUAL_ENV|CONDA_PREFIX|PYTHONPATH|PYTHONHOME"
    r"|PYTHONUNBUFFERED|PYTHONIOENCODING|PYTHONUTF8|PYTHONHASHSEED|LD_LIBRARY_PATH|DYLD_LIBRARY_PATH"
    r"|OMP_NUM_THREADS|MKL_NUM_THREADS|OPENBLAS_NUM_THREADS|NUMEXPR_NUM_THREADS|NOTEBOOK_CELL_TIMEOUT"
    r"|SYSTEMROOT|COMSPEC|PATHEXT|WINDIR"  # Windows: Python and subprocess need them
    r"|(LC|CUDA|NVIDIA|CUBLAS|CUDNN|NCCL|TORCH|PYTORCH|HIP|ROCR|ROCM|HSA|XPU|ZE|MPS|JUPYTER|JPY|IPYTHON|XDG)_\w*)")


def environment(environ=None):
    """The build's environment, only what ENVIRONMENT allows."""
    return {k: v for k, v in (os.environ if environ is None else environ).items() if ENVIRONMENT.fullmatch(k)}


class Scratch:
    """A scratch folder for one run of a notebook; remove() kills what the run left and deletes it."""

    def __init__(self, concept, lang):
        self.path = Path(tempfile.mkdtemp(prefix=f"course-run-{concept}-", dir=PARENT))
        self.cwd = self.path / "notebooks" / lang
        self.cwd.mkdir(parents=True)
        (self.path / "tmp").mkdir()
        (self.path / OWNER).write_text(_owner(), encoding="utf-8")
        self.env = {**environment(), "TMPDIR": str(self.path / "tmp"), MARK: str(self.path)}

    def remove(self, processes=()):
        reap(self.path, processes)
        shutil.rmtree(self.path, ignore_errors=True)


def descendants(pid):
    """The processes a process started, and theirs (take them before it dies: orphans move to init)."""
    if not pid:
        return []
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def reap(scratch, processes=()):
    """Kill `processes` and every process whose environment names this scratch folder."""
    for _ in range(5):  # a process may start another while it is being killed
        found = [p for p in processes if _alive(p)] + _marked(scratch)
        processes = ()
        if not found:
            return
        for proc in found:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        deadline = time.monotonic() + 3
        while any(_alive(p) for p in found) and time.monotonic() < deadline:
            time.sleep(0.02)


def _marked(scratch):
    """The processes of a run: those whose environment names its scratch folder, and those working in it
    (a cell may start one with an environment of its own, env={...}, and detach it: setsid -f)."""
    found = []
    inside = str(scratch) + os.sep
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        with contextlib.suppress(psutil.Error):  # gone, a zombie, or another user's
            if proc.environ().get(MARK) == str(scratch) or (proc.cwd() + os.sep).startswith(inside):
                found.append(proc)
    return found


OWNER = "owner"  # in each scratch folder: the build process's pid and start time


def _owner():
    return f"{os.getpid()} {psutil.Process().create_time()}"


def _alive_owner(text):
    """Whether the build process a scratch folder or kernel file names still runs (a pid can be reused)."""
    pid, _, started = text.partition(" ")
    try:
        proc = psutil.Process(int(pid))
        return not started or abs(proc.create_time() - float(started)) < 0.01
    except (psutil.Error, ValueError):
        return False


def reap_leftovers(log=print):
    """What a killed build left (kill -9, a machine's OOM killer): processes its cells started, its scratch
    folders, its kernels' connection files and sockets. Only a build that no longer runs: builds of other
    checkouts share the temporary folder."""
    parent = Path(PARENT or tempfile.gettempdir())
    reaped = []
    for folder in parent.glob("course-run-*"):
        try:
            owner = (folder / OWNER).read_text(encoding="utf-8")
        except OSError:
            continue  # another tool's, or a build's from before owners were written: not known to be dead
        if not _alive_owner(owner):
            reap(folder)
            shutil.rmtree(folder, ignore_errors=True)
            reaped.append(folder.name)
    for file in parent.glob("course-kernel-p*"):
        pid = re.match(r"course-kernel-p(\d+)-", file.name)
        if pid and not psutil.pid_exists(int(pid[1])):
            with contextlib.suppress(OSError):
                file.unlink()
    if reaped:
        log(f"removed what a stopped build left: {', '.join(sorted(reaped))}")


def _alive(proc):
    """Running (a zombie is dead: only its parent, or an init that does not reap, keeps it listed)."""
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


# Never the author's: the build's own output and caches, tools' folders, virtual environments (a
# pyvenv.cfg in them), editors' temporary files.
SKIPPED_AT_ROOT = {".cache", ".venv", "site"}
SKIPPED = {".git", "node_modules", "__pycache__", ".pytest_cache", ".ipynb_checkpoints"}
EDITOR_FILES = re.compile(r"^\.#|^\..*\.sw[a-p]$|~$|^4913$")
# What the live preview watches for the author, who may save them while a notebook runs.
AUTHORED = re.compile(r"^(notebooks/[^/]+/[^/]+\.py|docs/.+\.md|mkdocs\.yml|overrides/.+)$")


def snapshot(root):
    """{path relative to root: (modification time, size)} of the author's files."""
    found = {}
    for folder, dirs, files in os.walk(root):
        top = folder == str(root)
        dirs[:] = [d for d in dirs if d not in SKIPPED and not (top and (
            d in SKIPPED_AT_ROOT or d.startswith(".site.") or os.path.exists(os.path.join(folder, d, "pyvenv.cfg"))))]
        for name in files:
            if EDITOR_FILES.search(name):
                continue
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                stat = os.lstat(path)
                found[Path(path).relative_to(root).as_posix()] = (stat.st_mtime_ns, stat.st_size)
    return found


class Tree:
    """The author's files under root; changes() says what changed, appeared or went since it was last
    asked (notebooks run two at a time: either may be the one that asks)."""

    def __init__(self, root, ignore=None):
        self.root, self.ignore = Path(root), ignore
        self._lock = threading.Lock()
        self._before = snapshot(self.root)

    def changes(self):
        with self._lock:
            now = snapshot(self.root)
            before, self._before = self._before, now
        found = [f"{p} (new)" for p in now if p not in before]
        found += [f"{p} (changed)" for p in now if p in before and now[p] != before[p]]
        found += [f"{p} (deleted)" for p in before if p not in now]
        return sorted(f for f in found if not (self.ignore and self.ignore.match(f.rsplit(" (", 1)[0])))
