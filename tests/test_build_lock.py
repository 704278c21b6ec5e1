"""One build at a time in a checkout (coursebuild/lock.py), and a site swapped in whole
(coursebuild/build.py): before, two builds raced (raw tracebacks; once a green exit that left a page
linking a stylesheet the other build had removed), and an aborted MkDocs phase left site/ half-written
(a real strict abort: tests/test_build_robust.py, test_broken_link_stops_the_site_build_...)."""
import re
import subprocess
import sys
import time
from pathlib import Path

from coursebuild import build as build_site, inputs
from coursebuild.execute import pages
import pytest
from test_build_robust import KERNEL, _build, _course, _scripts_in, no_kernel  # noqa: F401 (a fixture)


def test_a_second_build_waits_for_the_first_saying_so(course_root, no_kernel):
    _course(course_root, ("", "print(6 * 7)"))
    _scripts_in(course_root)
    # the first build, in another process: it holds the lock for a second
    first = subprocess.Popen([sys.executable, "-c", "import time\n"
                              "from coursebuild import lock\nwith lock.held():\n    print('held', flush=True)\n"
                              "    time.sleep(1)"], cwd=course_root, stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline() == "held\n"
        logged = []
        start = time.monotonic()
        _build(course_root, log=logged.append)  # the second build, here
        took = time.monotonic() - start
        assert first.wait(timeout=KERNEL) == 0
    finally:
        if first.poll() is None:
            first.kill()
    print("\n".join(logged))
    assert re.fullmatch(rf"waiting for the build already running in this checkout to finish \(pid {first.pid}, "
                        r"-c, since \d\d:\d\d:\d\d; .cache/build.lock\)", logged[0]), logged
    assert logged[1] == "the other build finished; building"
    assert took > 0.5 and no_kernel == ["01-x"], "it ran once the first one was done"


def test_one_process_takes_the_lock_once(course_root):
    """The site build holds the lock and runs the notebook build, which takes it again: no deadlock."""
    from coursebuild import lock as build_lock

    with build_lock.held(), build_lock.held():
        pass
    with build_lock.held():
        pass


def _stub_builds(monkeypatch, mkdocs):
    monkeypatch.setattr(pages, "build_or_explain", lambda: 0)
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
    assert sorted(p.name for p in site.iterdir()) == [inputs.RECORD, "index.html", "new.html"], "the record came with it"
    assert (site / "index.html").read_text(encoding="utf-8") == "index.html"
    assert sorted(p.name for p in course_root.iterdir() if "site" in p.name) == ["site"]


def test_site_dir_option_is_where_the_site_goes(course_root):
    assert build_site.site_dir(["-q", "-d", "out/x"]) == (course_root / "out" / "x", ["-q"])
    assert build_site.site_dir(["--site-dir=/abs/site"]) == (Path("/abs/site"), [])
    assert build_site.site_dir(["-q"]) == (course_root / "site", ["-q"])
