import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the build (coursebuild) and the checks (tools)

from coursebuild import course  # noqa: E402
from tools.browser_tools import CHROMIUM_ARGS, SHELL, find_chromium  # noqa: E402
from tools.static_site import free_port, served  # noqa: E402


# The tests run in parallel (pytest-xdist: ./scripts/test starts several workers). The first process,
# pytest itself or xdist's controller, picks what they share before the workers start, and they
# inherit it: a folder for the site (built once: by the first process as the whole suite starts, or
# else by the first worker that needs it) and the local server's address, which the site is built for
# so its absolute URLs (canonical, hreflang alternates) stay on this machine.
if "COURSE_TESTS_SHARED" not in os.environ:
    os.environ["COURSE_TESTS_SHARED"] = tempfile.mkdtemp(prefix="course-tests-")
    os.environ["SITE_URL"] = f"http://127.0.0.1:{free_port()}/tutorial/"
SHARED = Path(os.environ["COURSE_TESTS_SHARED"])
SITE = SHARED / "site"
_server = contextlib.ExitStack()
_building = []  # the site build's process, while one runs in this process


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: several seconds for one case (while writing, skip them with "
                                       "./scripts/test -m 'not slow'; the whole suite runs them)")
    if not hasattr(config, "workerinput"):  # the first process serves the site to every worker's browser
        _server.enter_context(served(SITE, port=urlsplit(os.environ["SITE_URL"]).port,
                                     prefix=urlsplit(os.environ["SITE_URL"]).path))
        if Path(__file__).parent in {(config.invocation_params.dir / arg).resolve() for arg in config.args}:
            # The whole suite, where most tests need the site: its build (on a fresh clone, every notebook
            # executed) starts now, beside the first tests, instead of when a worker first needs it.
            threading.Thread(target=build_site, daemon=True).start()


def pytest_unconfigure(config):
    if not hasattr(config, "workerinput"):
        for process in _building:
            process.terminate()
        _server.close()
        shutil.rmtree(SHARED, ignore_errors=True)


# What one worker runs whole, in file order, and why: tests that share a costly fixture of their module
# or edit one thing in turn. (pytest-xdist's own way, the xdist_group mark with --dist loadgroup, does
# nothing with pytest 9.2: it renames the test's node id, which pytest no longer lets it do;
# pytest-dev/pytest-xdist#1386.)
TOGETHER = {
    "tests/test_live_preview.py": "one preview, edited test after test; the last test stops it",
    "tests/test_search.py": "the query set runs once (measured)",
    "tests/test_run_all.py": "the environment with only torch is made once (torch_only)",
    "tests/test_sandbox.py": "its notebook runs once (built)",
    "tests/test_reader_ui.py::test_no_page_requests_anything_from_another_origin": "a site built for "
        "the published URL (production)",
}


def together(nodeid):
    """The entry of TOGETHER a test belongs to, or None."""
    return next((unit for unit in TOGETHER if nodeid.startswith(unit + ("" if "::" in unit else "::"))), None)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's load scheduling, each entry of TOGETHER a single unit of work."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Together(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            return together(nodeid) or nodeid

    return Together(config, log)


def pytest_collection_modifyitems(items):
    """The tests that need the built site last: the workers run the others while the site is built. In
    each part, the long units first (marked slow, or run whole on one worker), so that no worker is left
    with one at the end while the others have finished."""
    def long(item):
        return item.get_closest_marker("slow") is not None or together(item.nodeid) is not None

    items.sort(key=lambda item: ("site" in item.fixturenames, not long(item)))


@contextlib.contextmanager
def taking_turns(name):
    """One test process at a time here: what two workers must not do at once (build in this checkout,
    copy it, install Chromium). The system releases the lock if its holder dies."""
    with open(SHARED / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def copy_of_project(dest):
    """course.copy_project, not while another worker builds in the checkout (its caches are copied too)."""
    with taking_turns("checkout"):
        return course.copy_project(dest)


def run(*cmd, cwd=ROOT, **kwargs):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, **kwargs)


def build_site():
    """Build the site into SITE as ./scripts/build builds it (notebook execution is cached), unless a
    process did; SHARED/site.built or site.failed says how it ended."""
    with taking_turns("checkout"):
        if (SHARED / "site.built").exists() or (SHARED / "site.failed").exists():
            return
        for cmd in (["coursebuild.execute.pages"], ["mkdocs", "build", "--strict", "-d", str(SITE)]):
            process = subprocess.Popen([sys.executable, "-m", *cmd], cwd=ROOT, stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, text=True)
            _building.append(process)
            err = process.communicate()[1]
            _building.remove(process)
            if process.returncode:
                break
        with contextlib.suppress(OSError):  # the session ended before the build (SHARED is gone)
            (SHARED / ("site.failed" if process.returncode else "site.built")).write_text(err[-3000:], encoding="utf-8")


@pytest.fixture(scope="session")
def site():
    """The site, built once for all workers."""
    build_site()
    failed = SHARED / "site.failed"
    assert not failed.exists(), "the site build failed:\n" + failed.read_text(encoding="utf-8")
    return SITE


# ------------------------------------------------- the browser checks (test_browser, test_search)
# Session-wide: Playwright's sync API allows one instance at a time.

@pytest.fixture(scope="session")
def chromium_path():
    with taking_turns("chromium"):  # one worker installs it, the others find it
        return _chromium_path()


def _chromium_path():
    found = find_chromium(shell_first=True)
    # Japanese and Korean fonts too: without them every CJK glyph is a fallback box of another width, and
    # the line-breaking checks measure lines no reader sees (a fresh machine broke `slow_conv2d` from its ）).
    missing = [SHELL] * (not found) + ["fonts-noto-cjk"] * (not _cjk_fonts())
    if missing and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", *missing]):
            done = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if done.returncode:
                pytest.fail(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
        found = find_chromium(shell_first=True)
    if not found:
        # Elsewhere (no root, no apt): Playwright's own Chromium, downloaded once into the user's cache.
        done = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"],
                              capture_output=True, text=True)
        if done.returncode:
            pytest.fail("No Chromium for the browser checks, and `playwright install chromium` failed:\n"
                        f"{done.stderr[-2000:]}\nInstall Chromium or Chrome, or set CHROMIUM=/path/to/chrome.")
    return found  # None: Playwright's own


def _cjk_fonts():
    """Whether fontconfig knows a font for both Japanese and Korean (False where there is no fontconfig)."""
    if not shutil.which("fc-list"):
        return False
    return all(run("fc-list", f":lang={lang}", "family").stdout.strip() for lang in ("ja", "ko"))


@pytest.fixture(scope="session")
def base(site):
    """URL of the home page of the site, served on 127.0.0.1 under site_url's path (by the first process)."""
    return os.environ["SITE_URL"]


@pytest.fixture(scope="session")
def chromium(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def course_root(tmp_path, monkeypatch):
    """A scratch copy of the course layout, for feeding the pipeline bad input."""
    return scratch_course(tmp_path, monkeypatch)


def scratch_course(root, monkeypatch):
    """course_root's work, for fixtures of a wider scope (with their own MonkeyPatch)."""
    for lang in course.LANGS:
        (root / "notebooks" / lang).mkdir(parents=True)
        (root / "docs" / lang).mkdir(parents=True)
    monkeypatch.setattr(course, "ROOT", root)
    monkeypatch.setattr(course, "NOTEBOOKS", root / "notebooks")
    monkeypatch.setattr(course, "DOCS", root / "docs")
    from coursebuild.execute import cache, sandbox

    monkeypatch.setattr(cache, "CACHE", root / ".cache")
    # Scratch folders inside the course (under .cache, which is not the author's): processes_in finds
    # the kernels by their working directory there.
    (root / ".cache" / "scratch").mkdir(parents=True)
    monkeypatch.setattr(sandbox, "PARENT", root / ".cache" / "scratch")
    return root


def processes_in(root):
    """Processes (kernels, their children) whose working directory is under root (Linux: /proc)."""
    found = []
    if not Path("/proc/self/cwd").exists():
        return found
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                if os.readlink(proc / "cwd").startswith(str(root)):
                    found.append(int(proc.name))
            except OSError:
                pass
    return found


def no_process_left(root, grace=3.0):
    deadline = time.monotonic() + grace
    while processes_in(root) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_in(root) == [], "a kernel (or a process it started) is still running"


HEADER = """# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---"""


def write_notebook(root, lang, name, *cells):
    """Write a percent-format notebook from (kind, text) cells; kind is 'md' (or 'md tags=[...]' for a
    tagged Markdown cell) or a tag list string."""
    parts = [HEADER]
    for kind, text in cells:
        if kind == "md" or kind.startswith("md "):
            marker = f"# %% [markdown] {kind[2:].strip()}".rstrip()
            parts.append(marker + "\n" + "\n".join("# " + line if line else "#" for line in text.splitlines()))
        else:
            parts.append(f"# %% {kind}".rstrip() + "\n" + text)
    path = root / "notebooks" / lang / f"{name}.py"
    path.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    return path
