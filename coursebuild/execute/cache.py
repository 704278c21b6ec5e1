"""Executed notebooks, kept in .cache/executed/ under a key of what produces their outputs: the code
(comments aside), the device, torch and Python versions. An unchanged build executes nothing; a
damaged entry, or one that is not a run of its notebook's code, is executed again; entries of deleted
notebooks go. Hands {concept: executed notebook} to pages.py.

An entry found to be a run of its notebook's code is noted with its size and times (CHECKED): while
they stay the same, the next build reads it without checking it again (validating and hashing every
entry's code was most of an unchanged notebook build).
"""
import contextlib
import hashlib
import json
import os
import re
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import nbformat
import nbformat.reader

from coursebuild import course
from coursebuild.execute import kernel

CACHE = course.ROOT / ".cache" / "executed"
CHECKED = "checked.json"  # in CACHE: {entry's name: [size, mtime_ns, ctime_ns, inode] when it was checked}
_checking = threading.Lock()  # two notebooks at a time note their entries


def cache_key(nb, env):
    fields = [course.code_hash(nb), env["kind"], env["device"], env["torch"], env["python"], kernel.SETUP,
              kernel.STARTUP.read_text(encoding="utf-8")]
    return hashlib.sha256("|".join(fields).encode()).hexdigest()[:24]


def _from_cache(path, nb, code, log):
    """The cached run of notebook nb (whose code_hash is code) at path, or None (a miss) when there is none,
    it cannot be read, or it is not a run of this notebook's code (copied from elsewhere, edited by hand)."""
    try:
        stat = _stat(path)
    except FileNotFoundError:
        return None
    if _checked().get(path.name) == stat:  # this very file was checked before: read, not validated again
        with contextlib.suppress(Exception):  # a miss, as below
            cached = nbformat.reader.reads(path.read_text(encoding="utf-8"))  # lines joined, as nbformat.read
            if cached.nbformat == 4:
                return cached
    try:
        cached = nbformat.read(path, as_version=4)
        cached.metadata["course"]["provenance"]["device"]
        matches = cached.metadata["course"]["code_hash"] == course.code_hash(cached) == code
    except Exception as err:  # a truncated or damaged entry is a miss, never a crash
        problem = f"is unreadable ({type(err).__name__})"
    else:
        if matches:
            _note_checked(path, stat)
            return cached
        problem = f"does not match {course.source(course.REFERENCE, cached_concept(path)).relative_to(course.ROOT)}"
    log(f"cache entry {path.relative_to(course.ROOT)} {problem}: executing again")
    with contextlib.suppress(OSError):
        path.unlink()
    return None


def _stat(path):
    st = os.stat(path)
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def _checked():
    try:
        found = json.loads((CACHE / CHECKED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _note_checked(path, stat):
    with _checking, contextlib.suppress(OSError):  # a note not written: the entry is checked again next time
        checked = {name: s for name, s in _checked().items() if (CACHE / name).exists()}
        checked[path.name] = stat
        course.write_atomic(CACHE / CHECKED, json.dumps(checked, sort_keys=True))


def cached_concept(path):
    """The concept of a cache entry (<concept>-<key>.ipynb), or None for another file."""
    found = re.fullmatch(r"(.+)-[0-9a-f]{24}\.ipynb", path.name)
    return found and found[1]


def prune(log):
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
    cached = _from_cache(path, nb, course.code_hash(nb), log)
    if cached is not None:
        return cached, None
    log(f"executing {course.source(course.REFERENCE, concept).relative_to(course.ROOT)} on {env['device']}")
    start = time.monotonic()
    result = kernel.run_notebook(concept, nb, env, kernels)
    course.write_atomic(path, nbformat.writes(result))
    _note_checked(path, _stat(path))
    for old in CACHE.glob(f"{concept}-*.ipynb"):  # this concept's entries for older code
        if old != path and cached_concept(old) == concept:
            old.unlink(missing_ok=True)
    return result, time.monotonic() - start


def execute_all(names, env, log=print, authoring=False):
    """{concept: (notebook, seconds or None)}, two notebooks at a time. The first failure, or Ctrl-C,
    stops every other notebook at once (their kernels are killed) before it is raised."""
    kernels = kernel.Kernels(authoring)
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
        real = [f for f in failures if not isinstance(f.exception(), kernel.Stopped)]
        if failures:
            raise (real or failures)[0].exception()
        ok = True
        return {futures[f]: f.result() for f in futures}
    finally:
        if not ok:
            kernels.stop()
        pool.shutdown(wait=True, cancel_futures=True)
