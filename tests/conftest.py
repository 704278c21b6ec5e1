import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the build (coursebuild) and the checks (tools)

from coursebuild import course  # noqa: E402
from tools.browser_tools import CHROMIUM_ARGS, find_chromium  # noqa: E402
from tools.static_site import free_port, served  # noqa: E402


# The site is built for the local server the browser tests start, so its absolute URLs
# (canonical, hreflang alternates) stay on this machine.
os.environ["SITE_URL"] = f"http://127.0.0.1:{free_port()}/tutorial/"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: several seconds for one case (while writing, skip them with "
                                       "./scripts/test -m 'not slow'; the whole suite runs them)")


def run(*cmd, **kwargs):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site, built as ./scripts/build builds it (notebook execution is cached)."""
    out = tmp_path_factory.mktemp("site")
    done = run(sys.executable, "-m", "coursebuild.execute.pages")
    assert done.returncode == 0, done.stderr
    done = run(sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out))
    assert done.returncode == 0, done.stderr[-3000:]
    return out


# ------------------------------------------------- the browser checks (test_browser, test_search)
# Session-wide: Playwright's sync API allows one instance at a time.

@pytest.fixture(scope="session")
def chromium_path():
    found = find_chromium()
    if not found and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for cmd in (["apt-get", "update"], ["apt-get", "install", "-y", "--no-install-recommends", "chromium"]):
            done = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if done.returncode:
                pytest.fail(f"{' '.join(cmd)} failed:\n{done.stderr[-2000:]}")
        found = find_chromium()
    if not found:
        # Elsewhere (no root, no apt): Playwright's own Chromium, downloaded once into the user's cache.
        done = subprocess.run([sys.executable, "-m", "playwright", "install", "chromium"],
                              capture_output=True, text=True)
        if done.returncode:
            pytest.fail("No Chromium for the browser checks, and `playwright install chromium` failed:\n"
                        f"{done.stderr[-2000:]}\nInstall Chromium or Chrome, or set CHROMIUM=/path/to/chrome.")
    return found  # None: Playwright's own


@pytest.fixture(scope="session")
def base(site):
    """URL of the home page of the site, served on 127.0.0.1 under site_url's path."""
    with served(site, port=urlsplit(os.environ["SITE_URL"]).port) as url:
        yield url


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
