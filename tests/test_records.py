"""Recorded outputs (from a GPU, normally) show only while they match the notebook's current code."""
import json
import sys

from coursebuild import course
from coursebuild.execute import cache, kernel, pages
import nbformat
import pytest
from coursebuild.execute import records as record_outputs
from coursebuild.course import twins
from conftest import copy_of_project, run, write_notebook
from test_site import soup


def _course(root, answer="6 * 7"):
    for lang in course.LANGS:
        write_notebook(root, lang, "01-x", ("md", "# Title\n\n## Part"), ("", f"print({answer})"))
    twins.main()


def test_record_says_what_made_it_and_matches_the_code(course_root):
    _course(course_root)
    manifest = record_outputs.record(course_root / "records", log=lambda *_: None)
    assert manifest["kind"] == "cpu" and manifest["device"].startswith("CPU")
    assert {"torch", "python", "date"} <= set(manifest)
    saved = json.loads((course_root / "records" / "manifest.json").read_text())
    assert saved["concepts"]["01-x"]["code_hash"] == course.code_hash(course.read("en", "01-x"))



def test_a_recording_that_fails_leaves_the_previous_record_as_it_was(course_root):
    _course(course_root)
    record_outputs.record(course_root / "records", log=lambda *_: None)
    before = {p.name: p.read_bytes() for p in (course_root / "records").iterdir()}
    for lang in course.LANGS:  # the first concept changes and runs, the second fails
        write_notebook(course_root, lang, "01-x", ("md", "# Title\n\n## Part"), ("", "print(7 * 7)"))
        write_notebook(course_root, lang, "02-y", ("md", "# Title\n\n## Part"), ("", "1 / 0"))
    twins.main()
    try:
        record_outputs.record(course_root / "records", log=lambda *_: None)
    except course.BuildError as err:
        assert "ZeroDivisionError" in str(err)
    else:
        raise AssertionError("expected the recording to fail")
    assert {p.name: p.read_bytes() for p in (course_root / "records").iterdir()} == before

def test_fresh_record_is_shown_and_the_build_outputs_become_a_second_view(course_root):
    _course(course_root)
    record_outputs.record(course_root / "records", log=lambda *_: None)
    manifest_path = course_root / "records" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest.update(kind="cuda", device="Recorded test device", torch="2.11.0+cu130")
    manifest_path.write_text(json.dumps(manifest))
    logged = []
    pages.build_pages(records_dir=course_root / "records", log=logged.append)
    for lang in course.LANGS:
        page = nbformat.read(course_root / "docs" / lang / "01-x.ipynb", as_version=4)
        meta = page.metadata["course"]
        assert meta["view"] == "record" and meta["alternate"] == "cpu/01-x.ipynb"
        assert meta["provenance"]["device"] == "Recorded test device"
        cpu = nbformat.read(course_root / "docs" / lang / "cpu" / "01-x.ipynb", as_version=4)
        assert cpu.metadata["course"]["view"] == "build" and cpu.metadata["course"]["alternate"] == "../01-x.ipynb"
        assert cpu.metadata["course"]["provenance"]["device"].startswith("CPU")
    assert not any("stale" in line for line in logged)


def test_stale_record_never_shows_and_is_listed(course_root):
    _course(course_root)
    record_outputs.record(course_root / "records", log=lambda *_: None)
    _course(course_root, answer="6 * 9")  # the code changed after the record was made
    logged = []
    pages.build_pages(records_dir=course_root / "records", log=logged.append)
    assert any(line.startswith("stale records") and "01-x" in line for line in logged)
    for lang in course.LANGS:
        page = nbformat.read(course_root / "docs" / lang / "01-x.ipynb", as_version=4)
        assert page.metadata["course"]["view"] == "build"
        assert page.cells[1].outputs[0]["text"] == "54\n"
        assert not (course_root / "docs" / lang / "cpu").exists()


@pytest.mark.usefixtures("site")
def test_site_shows_recorded_outputs_with_a_link_to_the_cpu_view(tmp_path):
    """A real record of the first concept (made here, on the CPU) goes through the real site build, in a
    copy of the project: the pages it writes are not the ones the other tests read. After the site fixture:
    the concept's run comes from the checkout's cache."""
    concept = course.concepts()[0]
    records = tmp_path / "records"
    records.mkdir()
    env = kernel.environment()
    nb = cache.executed(concept, env, log=lambda *_: None)
    nbformat.write(nb, records / f"{concept}.ipynb")
    (records / "manifest.json").write_text(json.dumps(dict(
        env, device="Recorded CPU test device", date="2026-01-02",
        concepts={concept: {"code_hash": course.code_hash(nb)}})))
    project = copy_of_project(tmp_path / "project")
    done = run(sys.executable, "-m", "coursebuild.execute.pages", "--records", str(records), cwd=project)
    assert done.returncode == 0, done.stderr
    done = run(sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site"), cwd=project)
    assert done.returncode == 0, done.stderr[-3000:]
    page = soup(tmp_path / "site" / concept / "index.html")
    line = page.select_one(".nb-provenance")
    assert "Recorded CPU test device" in line.get_text() and "2026-01-02" in line.get_text()
    assert line.find("a")["href"].startswith("../cpu/")
    cpu_line = soup(tmp_path / "site" / "ja" / "cpu" / concept / "index.html").select_one(".nb-provenance")
    assert "CPU" in cpu_line.get_text() and cpu_line.find("a")["href"] == f"../../{concept}/"
