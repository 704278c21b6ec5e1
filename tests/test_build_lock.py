"""One build at a time in a checkout (scripts/build_lock.py), and a site swapped in whole
(scripts/build_site.py): before, two builds raced (raw tracebacks; once a green exit that left a page
linking a stylesheet the other build had removed), and an aborted MkDocs phase left site/ half-written."""
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import build_site
import execute
import pytest
from test_build_robust import KERNEL, _build, _course, _minimal_site, _scripts_in


def test_a_second_build_waits_for_the_first_saying_so(course_root, tmp_path_factory, monkeypatch):
    monkeypatch.setattr(execute, "CACHE", course_root / ".cache" / "executed")  # the first build's cache
    started = tmp_path_factory.mktemp("signals") / "started"
    _course(course_root, ("", f"import pathlib, time\npathlib.Path({str(started)!r}).write_text('1')\n"
                              "time.sleep(3)\nprint(6 * 7)"))
    _scripts_in(course_root)
    first = subprocess.Popen([sys.executable, "scripts/execute.py"], cwd=course_root, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "TMPDIR": str(course_root / ".cache" / "scratch")})
    try:
        deadline = time.monotonic() + KERNEL
        while not started.exists() and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), first.communicate()[0]
        logged = []
        _build(course_root, log=logged.append)  # the second build, here
        assert first.wait(timeout=KERNEL) == 0, first.communicate()[0]
    finally:
        if first.poll() is None:
            first.kill()
    print("\n".join(logged))
    assert re.fullmatch(rf"waiting for the build already running in this checkout to finish \(pid {first.pid}, "
                        r"execute.py, since \d\d:\d\d:\d\d; .cache/build.lock\)", logged[0]), logged
    assert logged[1:3] == ["the other build finished; building", "cached: 01-x"], "it used the first one's work"


def test_one_process_takes_the_lock_once(course_root):
    """The site build holds the lock and runs the notebook build, which takes it again: no deadlock."""
    import build_lock

    with build_lock.held(), build_lock.held():
        pass
    with build_lock.held():
        pass


def _stub_builds(monkeypatch, mkdocs):
    monkeypatch.setattr(execute, "build_or_explain", lambda: 0)
    monkeypatch.setattr(build_site, "_mkdocs_build", mkdocs)


def _writes(pages, done=0, error=None):
    def build(site, argv):
        site.mkdir(parents=True, exist_ok=True)
        for name in pages:
            (site / name).write_text(name, encoding="utf-8")
        if error:
            raise error
        return done
    return build


@pytest.mark.parametrize("how", ["strict abort", "Ctrl-C", "a crash"])
def test_the_site_is_swapped_in_whole_only_when_the_build_succeeds(course_root, monkeypatch, how):
    site = course_root / "site"
    site.mkdir()
    (site / "index.html").write_text("the last good site", encoding="utf-8")
    failing = {"strict abort": _writes(["index.html"], done=1), "Ctrl-C": _writes(["index.html"], done=130),
               "a crash": _writes(["index.html"], error=ValueError("a hook failed"))}[how]
    _stub_builds(monkeypatch, failing)
    if how == "a crash":
        with pytest.raises(ValueError):
            build_site.main([])
    else:
        assert build_site.main([]) == (1 if how == "strict abort" else 130)
    assert (site / "index.html").read_text(encoding="utf-8") == "the last good site"
    assert sorted(p.name for p in course_root.iterdir() if "site" in p.name) == ["site"], "nothing half-built left"
    _stub_builds(monkeypatch, _writes(["index.html", "new.html"]))
    assert build_site.main([]) == 0
    assert sorted(p.name for p in site.iterdir()) == ["index.html", "new.html"]
    assert (site / "index.html").read_text(encoding="utf-8") == "index.html"
    assert sorted(p.name for p in course_root.iterdir() if "site" in p.name) == ["site"]


def test_site_dir_option_is_where_the_site_goes(course_root):
    assert build_site.site_dir(["-q", "-d", "out/x"]) == (course_root / "out" / "x", ["-q"])
    assert build_site.site_dir(["--site-dir=/abs/site"]) == (Path("/abs/site"), [])
    assert build_site.site_dir(["-q"]) == (course_root / "site", ["-q"])


@pytest.mark.slow
def test_a_strict_abort_leaves_the_last_good_site(tmp_path):
    _minimal_site(tmp_path, "# Home\n\nSee [the basics](01-basics.ipynb).\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("the last good site", encoding="utf-8")
    done = subprocess.run([sys.executable, "scripts/build_site.py"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=KERNEL)
    assert done.returncode == 1, done.stderr[-2000:]
    assert re.search(r"Aborted with \d+ warnings in strict mode!", done.stdout + done.stderr), done.stderr[-2000:]
    assert [p.name for p in site.iterdir()] == ["index.html"], "site/ is as it was"
    assert sorted(p.name for p in tmp_path.iterdir() if "site" in p.name) == ["site"]
