"""The three languages teach the same thing: same pages, same sections, same code."""
from coursebuild import course
from coursebuild.course import parity
import pytest
from conftest import write_notebook


def test_languages_have_the_same_notebooks_code_and_sections():
    problems = parity.parity_problems()
    assert not problems, "\n".join(map(str, problems))


def test_every_page_has_a_title_and_sections():
    for concept in course.concepts():
        shape = parity.outline(course.read(course.REFERENCE, concept))
        assert shape[0] == "md:1", f"{concept}: the first cell must be a Markdown cell with one '#' title"
        assert sum(s.count("2") for s in shape if s.startswith("md:")) >= 2, f"{concept}: needs '##' sections"


def _pilot(root, lang, code='print("hi")  # comment', heading="## Section"):
    write_notebook(root, lang, "01-x", ("md", f"# Title\n\n{heading}"), ("", code))


def test_missing_translation_names_the_file_and_the_fix(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja")
    messages = [str(p) for p in parity.parity_problems()]
    assert messages == ["notebooks/ko/01-x.py: missing: translate notebooks/en/01-x.py into 'ko'"]


def test_comments_may_differ_but_code_may_not(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja", code='print("hi")  # コメント')
    _pilot(course_root, "ko", code='print("안녕")')
    messages = [str(p) for p in parity.parity_problems()]
    assert messages == ["notebooks/ko/01-x.py: code cell 1 differs from 'en' (only comments may differ): "
                        "copy it from the original"]


def test_section_structure_must_match(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja")
    _pilot(course_root, "ko", heading="### Section")
    [problem] = parity.parity_problems()
    assert str(problem).startswith("notebooks/ko/01-x.py: cell 1 is 'md:1,3' but the 'en' original has 'md:1,2'")


@pytest.mark.parametrize("code, expected", [
    ("x = 1  # set x\n# a note\n\ny = '# not a comment'", "x = 1\ny = '# not a comment'"),
    ("if x:\n    pass  # why", "if x:\n    pass"),
])
def test_strip_comments(code, expected):
    assert course.strip_comments(code) == expected


def test_messages_in_the_readers_language_may_differ_in_text_only(course_root):
    """The setup cell stops on a too-old torch with a message in the reader's language: a string assigned to
    a name ending in _TEXT is translated; anything else in the statement is code and must match."""
    _pilot(course_root, "en", code='TOO_OLD_TEXT = (\n    "needs torch 2.6; "\n    "this is {}"\n)\nprint(TOO_OLD_TEXT)')
    _pilot(course_root, "ja", code='TOO_OLD_TEXT = (\n    "torch 2.6 以降が必要です。"\n    "いまは {} です。"\n    "更新してください。"\n)\n'
                                   'print(TOO_OLD_TEXT)')
    _pilot(course_root, "ko", code='TOO_OLD_TEXT = "torch 2.6 이상이 필요합니다: {}"\nprint(TOO_OLD_TEXT.upper())')
    messages = [str(p) for p in parity.parity_problems()]
    assert messages == ["notebooks/ko/01-x.py: code cell 1 differs from 'en' (only comments may differ): "
                        "copy it from the original"]


def test_every_notebook_stops_on_a_torch_older_than_2_6_in_the_readers_language():
    """torch.accelerator appeared in 2.6: the setup cell says so, in the page's language, before anything
    else fails (a script runs it under old torch releases: notebooks/README.md)."""
    for lang in course.LANGS:
        for concept in course.concepts():
            [setup, *_] = course.code_cells(course.read(lang, concept))
            assert course.tags(setup) == ["setup"], f"{lang}/{concept}: the first code cell is tagged setup"
            assert "if TORCH < (2, 6):\n    raise RuntimeError(TOO_OLD_TEXT.format(torch.__version__))" in setup.source
            text = setup.source.split("TOO_OLD_TEXT = (", 1)[1].split(")\n", 1)[0]
            assert ("2.6" in text and "{}" in text), f"{lang}/{concept}: {text}"
            if lang != "en":
                assert not any(word in text for word in ("needs", "Upgrade", "restart")), f"{lang}/{concept}: English"


@pytest.mark.parametrize("lang", course.LANGS)
def test_the_setup_cell_refuses_torch_2_5_with_its_message(lang, monkeypatch):
    """Run each setup cell against a stand-in torch 2.5.1: it must stop at the version check, with the text
    of its language, before anything else touches torch."""
    import ast
    import sys
    import types

    for concept in course.concepts():
        [setup, *_] = course.code_cells(course.read(lang, concept))
        for node in ast.walk(ast.parse(setup.source)):  # every torch module the cell imports, as a stand-in
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom):
                names = [node.module]
            for name in (n for n in names if n.split(".")[0] == "torch"):
                parts = name.split(".")
                for i in range(1, len(parts) + 1):
                    module = sys.modules.get(".".join(parts[:i]))
                    if not getattr(module, "stand_in", False):
                        module = types.ModuleType(".".join(parts[:i]))
                        module.stand_in = True
                        monkeypatch.setitem(sys.modules, ".".join(parts[:i]), module)
                if isinstance(node, ast.ImportFrom):
                    for alias in node.names:
                        setattr(module, alias.name, object)
        sys.modules["torch"].__version__ = "2.5.1+cpu"
        namespace = {}
        with pytest.raises(RuntimeError) as err:
            exec(setup.source, namespace)
        message = str(err.value)
        assert "2.5.1+cpu" in message and "2.6" in message, f"{lang}/{concept}: {message}"
        assert "expect_error" not in namespace, f"{lang}/{concept}: it went past the check"
