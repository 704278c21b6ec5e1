"""Every mistake named, without a traceback: the file, the line and the fix (2026-11-28 probe, cases 2,
3, 6, 13 and 17). Broken YAML in claims.yml, gpu-evidence.yml and the synonym files; a gpu-only cell
without evidence (the build reads the ledger now, not only the tests); a space in a notebook's name; a
busy port for ./scripts/serve, said before anything is built; a read-only site/ or .cache/; a leftover
.site.old that cannot be removed."""
import contextlib
import os
import shutil
import socket
import subprocess

import pytest
from conftest import write_notebook
from test_build_robust import no_kernel  # noqa: F401 (a fixture)

from coursebuild import build, course, serve
from coursebuild.course import BuildError, twins
from coursebuild.execute import pages
from coursebuild.search import thesaurus

QUIET = {"log": lambda *_: None}


def _course(root, *cells, name="01-x"):
    for lang in course.LANGS:
        write_notebook(root, lang, name, ("md", "# Title\n\n## Part"), *cells)
    assert twins.main() == 0


def _fails(root, pattern):
    with pytest.raises(BuildError) as err:
        pages.build_pages(records_dir=root / "records", **QUIET)
    assert pattern in str(err.value), str(err.value)
    return str(err.value)


def test_broken_claims_yml_is_named_with_its_line(course_root, no_kernel):
    _course(course_root, ('tags=["claim-M1"]', "x = 1"))
    (course_root / "notebooks" / "claims.yml").write_text('M1: "fine"\nM2: `model.to` is "in place"\n', encoding="utf-8")
    message = _fails(course_root, "notebooks/claims.yml: line 2, column 5: not valid YAML")
    assert "quote the text" in message and "Traceback" not in message


def test_broken_gpu_evidence_is_named_with_its_line(course_root, no_kernel):
    _course(course_root, ('tags=["gpu-only"]', "y = 2"))
    (course_root / "notebooks" / "gpu-evidence.yml").write_text("01-x:\n  - anchor: 'y = 2'\n    expects: [unclosed\n",
                                                                encoding="utf-8")
    _fails(course_root, "notebooks/gpu-evidence.yml: line 4, column 1: not valid YAML")


def test_a_gpu_only_cell_without_evidence_stops_the_build(course_root, no_kernel):
    _course(course_root, ("", "x = 1"), ('tags=["gpu-only"]', "if x:\n    y = 2"))
    _fails(course_root, "notebooks/en/01-x.py: gpu-only cell 1 (if x:) has 0 entries in notebooks/gpu-evidence.yml")
    (course_root / "notebooks" / "gpu-evidence.yml").write_text(
        "01-x:\n  - anchor: 'y = 2'\n  - anchor: 'gone()'\n", encoding="utf-8")
    _fails(course_root, "notebooks/gpu-evidence.yml: 01-x: anchor 'gone()' matches no cells of 01-x.py")


def test_broken_synonyms_are_named_with_their_line_and_printed_without_traceback(tmp_path, monkeypatch, capsys):
    (tmp_path / "en.yml").write_text("- [tensor, tensors]\n- [GPU, 'cuda]\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"(?s)en.yml: line 2, column 9: not valid YAML \(while scanning a quoted scalar, never closed\).*One group per line"):
        thesaurus.load("en", folder=tmp_path)

    def mkdocs_fails(*args, **kwargs):  # what the search hook raises in the middle of MkDocs
        thesaurus.load("en", folder=tmp_path)
    monkeypatch.setattr(build.cli, "main", mkdocs_fails)
    assert build._mkdocs_build(tmp_path / "site", []) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "line 2" in err and "Traceback" not in err


def test_a_space_in_a_notebook_name_says_to_rename_it(course_root, no_kernel):
    _course(course_root, ("", "x = 1"), name="09-my concept")
    (course_root / "mkdocs.yml").write_text("site_name: x\nnav:\n  - 09-my concept.ipynb\n", encoding="utf-8")
    message = _fails(course_root, "notebooks/en/09-my concept.py: the file name has a character a page address "
                                  "cannot keep (a space): rename the notebook in every language")
    assert "git mv 'notebooks/en/09-my concept.py' notebooks/en/09-my-concept.py" in message
    assert "add `" not in message  # not told to add the nav line that is already there


def test_a_busy_port_is_said_before_building_with_the_option_that_picks_another(course_root, monkeypatch, capsys):
    monkeypatch.setattr(twins, "write", lambda *a, **k: pytest.fail("serve went on to write twins and build"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert serve.main(["-a", "127.0.0.1:8000", "-a", f"127.0.0.1:{port}"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: cannot serve on 127.0.0.1:{port}: Address already in use")
    assert f"./scripts/serve -a 127.0.0.1:{port + 1}" in err and "Traceback" not in err


@contextlib.contextmanager
def read_only(path):
    """path made unwritable: immutable for root (whom permissions do not stop), else without write bits."""
    root = os.geteuid() == 0
    if root and (not shutil.which("chattr") or subprocess.run(["chattr", "+i", str(path)]).returncode):
        pytest.skip("root, and chattr +i does not work on this file system")
    if not root:
        path.chmod(0o555)
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)]) if root else path.chmod(0o755)


@pytest.fixture
def quick_site(course_root, monkeypatch):
    """build.main with the notebooks and MkDocs left out: a new site folder with one page, as MkDocs writes it."""
    monkeypatch.setattr(pages, "build_or_explain", lambda *a, **k: 0)

    def mkdocs(folder, argv):
        folder.mkdir()
        (folder / "index.html").write_text("new", encoding="utf-8")
        return 0
    monkeypatch.setattr(build, "_mkdocs_build", mkdocs)
    site = course_root / "site"
    site.mkdir()
    (site / "index.html").write_text("last good", encoding="utf-8")
    return site


def test_a_read_only_site_is_one_line_and_left_as_it_was(quick_site, capsys):
    with read_only(quick_site):
        assert build.main([]) == 1
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("error:")]  # after the line saying why it builds
    assert errors == [err.splitlines()[-1]], err
    assert errors[0].startswith("error: cannot write site/: Operation not permitted" if os.geteuid() == 0
                                else "error: cannot write site/: Permission denied"), err
    assert "Traceback" not in err
    assert (quick_site / "index.html").read_text(encoding="utf-8") == "last good"
    assert not list(quick_site.parent.glob(".site.*"))


def test_a_read_only_cache_is_one_line(quick_site, capsys):
    cache = quick_site.parent / ".cache"
    with read_only(cache):
        assert build.main([]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write .cache/ (the build's caches and lock): ") and err.count("\n") == 1, err


def test_a_leftover_site_old_that_cannot_be_removed_never_blocks(quick_site):
    stuck = quick_site.parent / ".site.old" / "left-by-sudo"
    stuck.mkdir(parents=True)
    (stuck / "file").write_text("x", encoding="utf-8")
    with read_only(stuck):
        for _ in range(2):
            assert build.main([]) == 0
            assert (quick_site / "index.html").read_text(encoding="utf-8") == "new"


def test_an_image_over_the_limit_is_told_how_to_draw_a_smaller_figure(course_root):
    """Before, a 3 MB plot got the advice for text: print a shape or a few values (probe case 10)."""
    import nbformat

    from coursebuild.execute import outputs

    _course(course_root, ("", "x = 1"))
    run = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# T"), nbformat.v4.new_code_cell(
        "plt.plot(x)", outputs=[nbformat.v4.new_output("display_data", {"image/png": "A" * 200_000, "text/plain": "<Figure>"})])])
    run.metadata["course"] = {"provenance": {"device": "CPU"}}
    with pytest.raises(BuildError) as err:
        outputs.check_output_sizes([("01-x", run)])
    message = str(err.value)
    assert "cell 2 (line " in message and "printed 200 KB" in message
    assert "It is mostly an image (200 KB" in message and "figsize=(6, 4), dpi=72" in message
