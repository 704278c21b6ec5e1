"""One build at a time in a checkout: a second one waits for the first, saying so.

Two builds at once wrote the same pages, caches and site/ and raced (raw tracebacks, once a page that
linked a stylesheet the other build had removed). The lock is an fcntl lock on .cache/build.lock,
which the system releases when its holder ends however it ends (no stale lock after a crash or
kill -9). The file says who holds it. Nested use in one process (the site build runs the notebook
build) holds it once. Used by every command that writes the project's files: build, serve, sync, the
execute stage.
"""
import contextlib
import datetime
import fcntl
import os
import sys
import threading

from coursebuild import course

_held = threading.local()
_in_process = threading.RLock()  # threads of one process (the live preview) take turns too


@contextlib.contextmanager
def held(log=print):
    with _in_process:
        if getattr(_held, "depth", 0):
            _held.depth += 1
            try:
                yield
            finally:
                _held.depth -= 1
            return
        path = course.ROOT / ".cache" / "build.lock"
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "a+", encoding="utf-8") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                holder = lock.read().strip() or "another process"
                log(f"waiting for the build already running in this checkout to finish ({holder}; "
                    f"{path.relative_to(course.ROOT)})")
                fcntl.flock(lock, fcntl.LOCK_EX)
                log("the other build finished; building")
            lock.truncate(0)
            lock.write(f"pid {os.getpid()}, {os.path.basename(sys.argv[0]) or 'python'}, "
                       f"since {datetime.datetime.now():%H:%M:%S}\n")
            lock.flush()
            _held.depth = 1
            try:
                yield
            finally:
                _held.depth = 0
                lock.truncate(0)
                fcntl.flock(lock, fcntl.LOCK_UN)
