"""An unchanged build does nothing (coursebuild/inputs.py, coursebuild/build.py): the record of what the
site was built from, written with the site, is compared with what is there now. Before, an unchanged
./scripts/build rendered every page again (about 4 s; 45 s cold). Each kind of input, changed once, is
a rebuild; a site without a record (an older build) or whose files changed is never taken as current."""
import json
import os
import re
import subprocess
import sys
import time

import nbformat
import pytest
from conftest import ROOT, copy_of_project

from coursebuild import inputs
from coursebuild.execute import cache, kernel
from test_build_robust import _build as _build_pages, _course, no_kernel  # noqa: F401 (a fixture)

HEAVY = ("torch", "mkdocs", "nbclient", "nbformat", "jupytext", "jupyter_client", "material", "click")


def _layout(root):
    """One file of each kind of input, and a built site with its record."""
    files = {
        "notebooks/en/01-x.py": "# %%\nx = 1\n",
        "notebooks/gpu-evidence.yml": "{}\n",
        "docs/en/index.md": "# Home\n",
        "docs/en/01-x.ipynb": "{}",  # a page the execute stage writes
        "overrides/main.html": "{% extends 'base.html' %}\n",
        "mkdocs.yml": "site_name: x\nsite_url: !ENV [SITE_URL, \"https://example.org/\"]\n",
        "coursebuild/hooks.py": "# hooks\n",
        "requirements.txt": "mkdocs==1.6.1\n",
        "package-lock.json": "{}\n",
        "records/manifest.json": "{}\n",
        ".cache/executed/01-x-0123456789abcdef01234567.ipynb": "{}",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    site = root / "site"
    site.mkdir()
    (site / "index.html").write_text("<p>home</p>", encoding="utf-8")
    record = inputs.Record(root, ["--strict"])
    record.executed()
    record.write(site)
    return site, files


def _age(root, seconds=60):
    """Make every file older, as it is once the build is a minute old (times are trusted only then)."""
    for path in root.rglob("*"):
        if path.is_file() and "site" not in path.relative_to(root).parts:
            st = path.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 1_000_000_000))


@pytest.fixture
def built(tmp_path, monkeypatch):
    monkeypatch.delenv("SITE_URL", raising=False)
    monkeypatch.delenv("NOTEBOOK_CELL_TIMEOUT", raising=False)
    site, files = _layout(tmp_path)
    assert inputs.out_of_date(tmp_path, site, ["--strict"]) is None
    return tmp_path, site, files


def test_each_kind_of_input_changed_once_is_a_rebuild_and_put_back_is_not(built):
    root, site, files = built
    for name, text in files.items():
        (root / name).write_text(text + " ", encoding="utf-8")
        assert inputs.out_of_date(root, site, ["--strict"]) == f"{name} changed"
        (root / name).write_text(text, encoding="utf-8")  # the same bytes, new times
        assert inputs.out_of_date(root, site, ["--strict"]) is None, name
    for name in ("docs/en/cheatsheet.md", "coursebuild/search/new.py", "notebooks/ko/01-x.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("new", encoding="utf-8")
        assert inputs.out_of_date(root, site, ["--strict"]) == f"{name} is new"
        (root / name).unlink()
    (root / ".cache/executed/01-x-0123456789abcdef01234567.ipynb").unlink()  # executed again: new outputs
    assert inputs.out_of_date(root, site, ["--strict"]) == ".cache/executed/01-x-0123456789abcdef01234567.ipynb is gone"


def test_its_own_options_and_environment_are_inputs(built, monkeypatch):
    root, site, _ = built
    assert inputs.out_of_date(root, site, ["--strict", "-q"]) is None, "quiet changes what it says, not the site"
    assert inputs.out_of_date(root, site, ["--strict", "--no-directory-urls"]) == \
        "the build's options or environment changed"
    for name in ("SITE_URL", "NOTEBOOK_CELL_TIMEOUT"):  # SITE_URL: mkdocs.yml reads it (!ENV)
        monkeypatch.setenv(name, "300")
        assert inputs.out_of_date(root, site, ["--strict"]) == "the build's options or environment changed"
        monkeypatch.delenv(name)
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "7,8")  # the cache's key names the device
    assert inputs.out_of_date(root, site, ["--strict"]) == "Python, torch or the devices changed"


def test_a_site_without_a_record_or_changed_since_is_not_current(built):
    root, site, _ = built
    (site / "index.html").write_text("<p>edited by hand</p>", encoding="utf-8")
    assert inputs.out_of_date(root, site, ["--strict"]) == "its files changed since it was built"
    (site / inputs.RECORD).unlink()  # a site an older build made, or none at all
    assert inputs.out_of_date(root, site, ["--strict"]) == "no record of what it was built from"
    assert inputs.out_of_date(root, root / "nothing", ["--strict"]) == "no record of what it was built from"


def test_unchanged_files_are_not_read_again(built, monkeypatch):
    """Sizes and times first: once files are older than a clock tick, a check reads none of them."""
    root, site, _ = built
    _age(root)
    assert inputs.out_of_date(root, site, ["--strict"]) is None  # records the new times
    monkeypatch.setattr(inputs, "_digest", lambda path: pytest.fail(f"{path} was read"))
    assert inputs.out_of_date(root, site, ["--strict"]) is None


def test_a_cache_entry_is_checked_by_size_and_times_before_its_content(course_root, no_kernel, monkeypatch):
    """Before, every build validated each entry and hashed its code again (2.6 s of an unchanged build)."""
    _course(course_root, ("", "x = 1"))
    _build_pages(course_root)  # executed, and noted as this code's run
    [entry] = (course_root / ".cache").glob("01-x-*.ipynb")
    read = nbformat.read
    monkeypatch.setattr(nbformat, "read", lambda *a, **k: pytest.fail("an unchanged entry was checked again"))
    nb = cache.executed("01-x", kernel.environment(), log=lambda *_: None)
    assert nb.cells[1].source == "x = 1", "read as nbformat.read reads it (lines joined)"
    _build_pages(course_root)
    monkeypatch.setattr(nbformat, "read", read)
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace('"x = 1"', '"x = 2"'), encoding="utf-8")  # same size, new times
    logged = []
    _build_pages(course_root, log=logged.append)
    assert f"cache entry .cache/{entry.name} does not match notebooks/en/01-x.py: executing again" in logged
    assert no_kernel == ["01-x", "01-x"]
    assert entry.name in json.loads((course_root / ".cache" / cache.CHECKED).read_text(encoding="utf-8"))


def _build(root, *args, env=None):
    start = time.monotonic()
    done = subprocess.run(["./scripts/build", "-d", "built", *args], cwd=root, capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stderr, time.monotonic() - start


@pytest.mark.slow
def test_an_unchanged_build_imports_nothing_heavy_and_an_edit_rebuilds(tmp_path):
    root = copy_of_project(tmp_path / "project")
    log, cold = _build(root)
    assert "building built/: no record of what it was built from" in log
    log, took = _build(root, env={"PYTHONPROFILEIMPORTTIME": "1"})
    print(f"build: {cold:.1f} s; unchanged: {took:.2f} s")
    assert log.endswith("built/ is up to date: nothing it was built from changed\n"), log[-2000:]
    imported = set(re.findall(r"^import time:\s+\d+ \|\s+\d+ \| +([\w.]+)$", log, re.M))
    assert not {m.split(".")[0] for m in imported} & set(HEAVY), sorted(imported)
    page = root / "docs" / "en" / "index.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nAdded by a test.\n", encoding="utf-8")
    log, _ = _build(root)
    assert "building built/: docs/en/index.md changed" in log
    assert "Added by a test." in (root / "built" / "index.html").read_text(encoding="utf-8")
    log, _ = _build(root)
    assert log.endswith("built/ is up to date: nothing it was built from changed\n")
    assert not (ROOT / "built").exists()
