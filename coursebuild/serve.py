"""Serve the site and show each edit in the open browser (./scripts/serve).

MkDocs' server watches docs/ (home pages, cheat sheets and the generated notebook pages), mkdocs.yml
and the theme overrides; it rebuilds and reloads the browser. This adds a watcher on notebooks/:
when a notebook's .py changes, its twins are rewritten and its pages written again into docs/, where
MkDocs sees them. Only that concept is looked at, and it is executed again only if its code changed
(the cache has the rest), so a prose edit shows within about a second (MkDocs watches with watchdog's
native observer, as this does, not by polling every half second: patches.py, "native-watcher"). When
the notebook is not right (a cell raises, code differs between languages, ...), the error is printed naming the file and
cell, nothing is written, and the browser keeps the last good page. A deleted concept's pages are
removed (and the log says so). Ctrl-C stops the kernels at once, also in the middle of a cell.

Usage: python -m coursebuild.serve [mkdocs serve options, e.g. -a 127.0.0.1:8001]
"""
import signal
import socket
import sys
import threading
import time
import traceback
from pathlib import Path

import mkdocs.commands.serve
from mkdocs.__main__ import cli
from mkdocs.livereload import LiveReloadServer
from watchdog import events
from watchdog.events import FileSystemEventHandler
from watchdog.observers import Observer

from coursebuild import course, lock
from coursebuild.course import BuildError, twins
from coursebuild.execute import kernel, pages

SETTLE = 0.05  # seconds without another event: an editor's save, or files saved together, is one edit
# What an edit does to a file. Not "opened" or "closed_no_write": reading the notebook to build it
# would count as an edit, for ever.
EDITS = {"created", "modified", "moved", "deleted", "closed"}


class NotebookEdits(FileSystemEventHandler):
    """The concepts whose .py notebooks changed since they were last taken."""

    def __init__(self):
        self._changed = set()
        self._cond = threading.Condition()

    def on_any_event(self, event):
        if event.event_type not in EDITS:
            return
        # Editors save in place, or write a temporary file and move it over the notebook.
        for path in (event.src_path, getattr(event, "dest_path", "")):
            concept = concept_of(path)
            if concept:
                with self._cond:
                    self._changed.add(concept)
                    self._cond.notify()

    def take(self):
        """Wait for an edit, then for the files to settle; the concepts edited."""
        with self._cond:
            self._cond.wait_for(lambda: self._changed)
            while self._cond.wait(timeout=SETTLE):
                pass
            changed, self._changed = sorted(self._changed), set()
        return changed


def concept_of(path):
    """The concept of notebooks/<lang>/<concept>.py, or None for any other file."""
    path = Path(path)
    if path.suffix == ".py" and path.parent.name in course.LANGS and path.parent.parent == course.NOTEBOOKS \
            and not path.name.startswith("."):
        return path.stem
    return None


def regenerate(concepts, log=print):
    """Rewrite the twins and pages of these concepts; an author's mistake is printed, never raised."""
    start = time.monotonic()
    log(f"notebooks changed: {', '.join(concepts)}")
    try:
        with lock.held(log):  # the twins too: a build running elsewhere watches the project's files
            twins.write(concepts, log=log)
            pages.build_pages(only=concepts, log=log, authoring=True)
    except BuildError as err:
        log(f"error: {err}\n  The browser keeps the last good page; save the notebook again once it is fixed.")
        return False
    except kernel.Stopped:  # the preview is ending (Ctrl-C)
        return False
    except Exception:  # a bug in the tools must not end the preview: say it, keep serving
        log(traceback.format_exc())
        return False
    log(f"pages for {', '.join(concepts)} written in {time.monotonic() - start:.1f} s; MkDocs rebuilds next")
    return True


class _Edits(Observer):
    """The system's observer, passing on edits only: MkDocs reads every page on each build, and counts
    any event as a change (a read would start the next build, for ever)."""

    def schedule(self, event_handler, path, **kwargs):
        edits = [events.FileCreatedEvent, events.FileModifiedEvent, events.FileMovedEvent, events.FileDeletedEvent,
                 events.FileClosedEvent]  # EDITS
        return super().schedule(event_handler, path, **kwargs, event_filter=edits)


class NativeWatcher(LiveReloadServer):
    """MkDocs' live-reload server, told of a change by the system as soon as it is written."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.observer = _Edits()
        self.build_delay = SETTLE  # quiet before a rebuild: 0.1 s, meant for polling (a save comes in one burst)


def _keep_regenerating(edits):
    while True:
        regenerate(edits.take())


def _interrupted(signum, frame):
    """Ctrl-C: the kernels first (a cell may be running: Python would wait for it before it exits), then
    MkDocs' server, as Ctrl-C stops it."""
    kernel.stop_all()
    signal.default_int_handler(signum, frame)


def address(argv):
    """The host and port MkDocs will serve on: the last -a/--dev-addr given (./scripts/serve gives one first)."""
    found = "127.0.0.1:8000"
    for i, arg in enumerate(argv):
        if arg in ("-a", "--dev-addr") and i + 1 < len(argv):
            found = argv[i + 1]
        elif arg.startswith(("-a=", "--dev-addr=")):
            found = arg.split("=", 1)[1]
    host, _, port = found.rpartition(":")
    return host or "127.0.0.1", int(port) if port.isdigit() else 8000


def port_taken(host, port):
    """Why (host, port) cannot be served on, or None. Asked before building: MkDocs finds out only after
    executing the notebooks and building the whole site, and then ends with a traceback."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as MkDocs' server does
        try:
            probe.bind((host, port))
        except OSError as err:
            return err.strerror or str(err)
    return None


def main(argv):
    host, port = address(argv)
    taken = port_taken(host, port)
    if taken:
        print(f"error: cannot serve on {host}:{port}: {taken} (another ./scripts/serve, or another server, "
              f"has it). Stop that one, or serve on another port: ./scripts/serve -a {host}:{port + 1}", file=sys.stderr)
        return 1
    try:
        with lock.held():
            twins.write()
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # a read-only .cache/ or notebooks/
        print(f"error: {course.unwritable(err)}", file=sys.stderr)
        return 1
    signal.signal(signal.SIGINT, _interrupted)
    done = pages.build_or_explain()
    if done:
        return done
    edits = NotebookEdits()
    observer = Observer()
    observer.schedule(edits, str(course.NOTEBOOKS), recursive=True)
    observer.daemon = True
    observer.start()
    threading.Thread(target=_keep_regenerating, args=(edits,), daemon=True).start()
    print("Watching notebooks/ for edits (pages are written again for the concept edited).", flush=True)
    mkdocs.commands.serve.LiveReloadServer = NativeWatcher
    try:
        return cli.main(["serve", "--strict", "--watch", "overrides", *argv], prog_name="mkdocs")
    finally:
        kernel.stop_all()  # however MkDocs ended


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
