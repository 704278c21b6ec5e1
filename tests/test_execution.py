"""Notebooks are executed once per device, outside MkDocs; bad notebooks stop the build clearly."""
import json

from coursebuild import course
from coursebuild.course import tag_rules
from coursebuild.execute import cache, pages
import nbformat
import pytest
from conftest import write_notebook


def _all_langs(root, *cells):
    for lang in course.LANGS:
        write_notebook(root, lang, "01-x", ("md", "# Title\n\n## Part"), *cells)


def test_failing_cell_names_notebook_cell_and_error(course_root):
    _all_langs(course_root, ("", "x = 1"), ("", "assert x == 2, 'x is not 2'"))
    from coursebuild.course import twins
    twins.main()
    with pytest.raises(course.BuildError) as err:
        pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)
    message = str(err.value)
    assert message.startswith("notebooks/en/01-x.py: cell 3 (line ")
    assert "raised AssertionError: x is not 2" in message
    assert "Fix the code" in message


def test_raises_exception_tag_is_refused_naming_file_cell_and_fix(course_root):
    _all_langs(course_root, ("", "x = 1"), ('tags=["raises-exception", "claim-M3"]', "raise ValueError('expected')"))
    from coursebuild.course import twins
    twins.main()
    with pytest.raises(course.BuildError) as err:
        pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)
    lines = str(err.value).splitlines()
    assert [line.split(":")[0] for line in lines] == [f"notebooks/{lang}/01-x.py" for lang in course.LANGS]
    for line in lines:
        assert ": cell 3 (line " in line and "is tagged raises-exception" in line
        assert '"Run all" ignore tags' in line and "with expect_error(Kind, " in line and "remove the tag" in line


def test_no_notebook_carries_a_tag_that_run_all_ignores():
    problems = tag_rules.tag_problems()
    assert not problems, "\n".join(map(str, problems))


EXPECT_ERROR = """import contextlib
import sys

@contextlib.contextmanager
def expect_error(kind, fragment):
    try:
        yield
    except kind as err:
        assert fragment in str(err), err
        print(f"{type(err).__name__}: {err}", file=sys.stderr)
    else:
        raise AssertionError(f"expected {kind.__name__}")"""


def test_expect_error_that_does_not_happen_stops_the_build(course_root):
    _all_langs(course_root, ("", EXPECT_ERROR), ("", "with expect_error(ValueError, 'bad'):\n    x = 1"))
    from coursebuild.course import twins
    twins.main()
    with pytest.raises(course.BuildError, match=r"01-x.py: cell 3 .* raised AssertionError: expected ValueError"):
        pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)


def test_stale_twin_stops_the_build(course_root):
    _all_langs(course_root, ("", "x = 1"))
    with pytest.raises(course.BuildError, match=r"notebooks/en/01-x.ipynb: is missing or out of date .* ./scripts/sync"):
        pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)


def test_executed_once_cached_and_shared_by_all_languages(course_root):
    _all_langs(course_root, ("", EXPECT_ERROR + "\n\nwith expect_error(ValueError, 'expect'):\n"
                                 "    raise ValueError('expected')"),
               ("", "print(6 * 7)"))
    (course_root / "notebooks" / "ja" / "01-x.py").write_text(
        (course_root / "notebooks" / "ja" / "01-x.py").read_text().replace("print(6 * 7)", "print(6 * 7)  # 答え"))
    from coursebuild.course import twins
    twins.main()
    logged = []
    pages.build_pages(records_dir=course_root / "records", log=logged.append)
    executing = [line for line in logged if line.startswith("executing")]
    assert len(executing) == 1 and executing[0].startswith("executing notebooks/en/01-x.py")
    for lang in course.LANGS:
        page = nbformat.read(course_root / "docs" / lang / "01-x.ipynb", as_version=4)
        code = [c for c in page.cells if c.cell_type == "code"]
        assert code[0].outputs[0]["name"] == "stderr" and code[0].outputs[0]["text"] == "ValueError: expected\n"
        assert code[1].outputs[0]["text"] == "42\n"
        provenance = page.metadata["course"]["provenance"]
        assert {"device", "torch", "python", "date"} <= set(provenance)
    ja = nbformat.read(course_root / "docs" / "ja" / "01-x.ipynb", as_version=4)
    assert "# 答え" in ja.cells[2].source  # the page keeps its own language's comments
    logged.clear()
    pages.build_pages(records_dir=course_root / "records", log=logged.append)
    assert not any(line.startswith("executing") for line in logged), "an unchanged rebuild must execute nothing"
    assert "cached: 01-x" in logged


def test_a_line_written_in_pieces_is_one_output(course_root):
    """The kernel sends a print in pieces when its flush timer fires in the middle (here, a flush between
    them): on a loaded machine a question's output read `meta` and ` cpu cpu`, and matched no choice."""
    _all_langs(course_root, ("", "import sys\nsys.stdout.write('meta'); sys.stdout.flush()\nprint(' cpu cpu')"))
    from coursebuild.course import twins
    twins.main()
    pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)
    [cell] = [c for c in nbformat.read(course_root / "docs" / "en" / "01-x.ipynb", as_version=4).cells
              if c.cell_type == "code"]
    assert [(o["name"], o["text"]) for o in cell.outputs] == [("stdout", "meta cpu cpu\n")]


def test_cache_key_covers_code_device_and_versions():
    nb = course.read(course.REFERENCE, course.concepts()[0])
    env = {"kind": "cpu", "device": "CPU", "torch": "2.13.0", "python": "3.11.7"}
    key = cache.cache_key(nb, env)
    for field, value in [("device", "NVIDIA H100"), ("torch", "2.11.0"), ("python", "3.12.0"), ("kind", "cuda")]:
        assert cache.cache_key(nb, dict(env, **{field: value})) != key
    next(c for c in nb.cells if c.cell_type == "code").source += "\nx = 1"
    assert cache.cache_key(nb, env) != key


def test_every_notebook_executes_without_errors(site):
    """Expected errors are caught (expect_error) and shown on stderr: no cell ends in an error."""
    for lang in course.LANGS:
        for concept in course.concepts():
            page = json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))
            for cell in page["cells"]:
                errors = [o for o in cell.get("outputs", []) if o["output_type"] == "error"]
                assert not errors, (lang, concept, cell["source"][:200])
