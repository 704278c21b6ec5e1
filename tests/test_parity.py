"""The three languages teach the same thing: same pages, same sections, same code."""
import course
import pytest
from conftest import write_notebook


def test_languages_have_the_same_notebooks_code_and_sections():
    problems = course.parity_problems()
    assert not problems, "\n".join(map(str, problems))


def test_every_page_has_a_title_and_sections():
    for concept in course.concepts():
        shape = course.outline(course.read(course.REFERENCE, concept))
        assert shape[0] == "md:1", f"{concept}: the first cell must be a Markdown cell with one '#' title"
        assert sum(s.count("2") for s in shape if s.startswith("md:")) >= 2, f"{concept}: needs '##' sections"


def _pilot(root, lang, code='print("hi")  # comment', heading="## Section"):
    write_notebook(root, lang, "01-x", ("md", f"# Title\n\n{heading}"), ("", code))


def test_missing_translation_names_the_file_and_the_fix(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja")
    messages = [str(p) for p in course.parity_problems()]
    assert messages == ["notebooks/ko/01-x.py: missing: translate notebooks/en/01-x.py into 'ko'"]


def test_comments_may_differ_but_code_may_not(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja", code='print("hi")  # コメント')
    _pilot(course_root, "ko", code='print("안녕")')
    messages = [str(p) for p in course.parity_problems()]
    assert messages == ["notebooks/ko/01-x.py: code cell 1 differs from 'en' (only comments may differ): "
                        "copy it from the original"]


def test_section_structure_must_match(course_root):
    _pilot(course_root, "en")
    _pilot(course_root, "ja")
    _pilot(course_root, "ko", heading="### Section")
    [problem] = course.parity_problems()
    assert str(problem).startswith("notebooks/ko/01-x.py: cell 1 is 'md:1,3' but the 'en' original has 'md:1,2'")


@pytest.mark.parametrize("code, expected", [
    ("x = 1  # set x\n# a note\n\ny = '# not a comment'", "x = 1\ny = '# not a comment'"),
    ("if x:\n    pass  # why", "if x:\n    pass"),
])
def test_strip_comments(code, expected):
    assert course.strip_comments(code) == expected
