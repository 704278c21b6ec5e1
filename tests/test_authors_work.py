"""No edit an author made is lost or published half-resolved: a twin saved from Colab is never
overwritten by ./scripts/sync or ./scripts/serve, merge-conflict markers stop the build naming file
and line, and a byte-order mark is read as if absent. (Cases from the 2026-11-28 probe: 5, 15, 18.)"""
import json
import os
import subprocess
import sys

import pytest
from conftest import write_notebook
from test_build_robust import no_kernel  # noqa: F401 (a fixture)

from coursebuild import course, serve
from tools.static_site import free_port
from coursebuild.course import BuildError, twins
from coursebuild.execute import pages

QUIET = {"log": lambda *_: None}


def _course(root, *cells, name="01-x"):
    for lang in course.LANGS:
        path = write_notebook(root, lang, name, ("md", "# Title\n\nSome prose.\n\n## Part"), *cells)
        # paired, as the course's notebooks are (what jupytext --sync reads)
        path.write_text(path.read_text(encoding="utf-8").replace(
            "# jupyter:\n", "# jupyter:\n#   jupytext:\n#     formats: ipynb,py:percent\n", 1), encoding="utf-8")
    assert twins.main() == 0


def _edit_twin_as_colab(root, lang="en", name="01-x"):
    """What "Save a copy in GitHub" does: the .ipynb gets a new cell, later than the .py."""
    twin = root / "notebooks" / lang / f"{name}.ipynb"
    nb = json.loads(twin.read_text(encoding="utf-8"))
    nb["cells"].append({"cell_type": "markdown", "id": "colab-1", "metadata": {}, "source": ["WRITTEN IN COLAB"]})
    twin.write_text(json.dumps(nb, indent=1), encoding="utf-8")
    py = root / "notebooks" / lang / f"{name}.py"
    os.utime(py, ns=(py.stat().st_mtime_ns - 10**9,) * 2)  # the .py was saved before
    return twin


def test_sync_refuses_to_overwrite_a_twin_edited_in_colab_and_names_the_command(course_root, capsys):
    _course(course_root, ("", "x = 1"))
    twin = _edit_twin_as_colab(course_root)
    edited = twin.read_text(encoding="utf-8")
    assert twins.main() == 1
    message = capsys.readouterr().err
    assert "notebooks/en/01-x.ipynb: holds edits that 01-x.py lacks" in message
    assert "jupytext --sync notebooks/en/01-x.ipynb" in message
    assert twin.read_text(encoding="utf-8") == edited
    # The command the message names carries the edit into the .py; sync then has nothing to refuse.
    done = subprocess.run([sys.executable, "-m", "jupytext", "--sync", "notebooks/en/01-x.ipynb"],
                          cwd=course_root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "WRITTEN IN COLAB" in (course_root / "notebooks" / "en" / "01-x.py").read_text(encoding="utf-8")
    assert twins.main() == 0
    assert "WRITTEN IN COLAB" in twin.read_text(encoding="utf-8")


def test_serve_refuses_before_anything_else(course_root, capsys):
    _course(course_root, ("", "x = 1"))
    twin = _edit_twin_as_colab(course_root, lang="ja")
    edited = twin.read_text(encoding="utf-8")
    assert serve.main(["-a", f"127.0.0.1:{free_port()}"]) == 1
    assert "notebooks/ja/01-x.ipynb: holds edits" in capsys.readouterr().err
    assert twin.read_text(encoding="utf-8") == edited


def test_an_edited_py_still_rewrites_its_twin_silently(course_root):
    _course(course_root, ("", "x = 1"))
    write_notebook(course_root, "en", "01-x", ("md", "# Title\n\nOther prose.\n\n## Part"), ("", "x = 1"))
    assert twins.main() == 0
    assert "Other prose" in (course_root / "notebooks" / "en" / "01-x.ipynb").read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["notebooks/ja/01-x.py", "docs/ko/index.md"])
def test_merge_conflict_markers_stop_the_build_naming_file_and_line(course_root, no_kernel, where):
    _course(course_root, ("", "x = 1"))
    path = course_root / where
    if where.endswith(".md"):
        path.write_text("# Home\n\n<<<<<<< HEAD\nMine.\n=======\nTheirs.\n>>>>>>> translator-b\n", encoding="utf-8")
        line = 3
    else:
        text = path.read_text(encoding="utf-8").replace("# Some prose.", "# <<<<<<< HEAD\n# Some prose.\n# =======\n"
                                                                         "# Other prose.\n# >>>>>>> translator-b")
        path.write_text(text, encoding="utf-8")
        line = text.splitlines().index("# <<<<<<< HEAD") + 1
    with pytest.raises(BuildError) as err:
        pages.build_pages(records_dir=course_root / "records", **QUIET)
    assert str(err.value).startswith(f"{where}: line {line}: a merge-conflict marker, `<<<<<<< HEAD`: resolve")
    assert twins.main() == 1  # sync refuses too


def test_a_byte_order_mark_is_read_as_if_absent(course_root):
    _course(course_root, ("", "x = 1"))
    py = course_root / "notebooks" / "en" / "01-x.py"
    before = (course_root / "notebooks" / "en" / "01-x.ipynb").read_text(encoding="utf-8")
    py.write_bytes(b"\xef\xbb\xbf" + py.read_bytes())
    assert twins.main() == 0
    twin = (course_root / "notebooks" / "en" / "01-x.ipynb").read_text(encoding="utf-8")
    assert twin == before and "\\ufeff" not in twin and "kernelspec" in twin
