"""Questions before a cell ("predict, then run"): written the same way in every language, at least three
per page, giving nothing away before the reader answers, and graded by the executed output: the build
stops, naming the notebook and cell, when no choice or several choices appear in what the cell printed."""
import copy

from coursebuild import course
from coursebuild.execute import outputs, pages
import nbformat
import pytest
from coursebuild.course import questions
from coursebuild.course import twins
from conftest import write_notebook

MIN_QUESTIONS = 3

QUESTION = """**Predict:** what does the next cell print?

- `x=1`
- `x=2`"""
ANSWER = ('md tags=["answer"]', "**Answer:** `x=1`, because x is 1.")


def _notebooks(root, question=QUESTION, code='x = 1\nprint(f"{x=}")', langs=course.LANGS, after=(ANSWER,)):
    for lang in langs:
        write_notebook(root, lang, "01-x", ("md", "# Title\n\n## Part"), ('md tags=["predict"]', question), ("", code),
                       *after)


def _run(printed, device="Test CPU"):
    """The English notebook as if executed: its code cell printed `printed`."""
    nb = copy.deepcopy(course.read(course.REFERENCE, "01-x"))
    cell = course.code_cells(nb)[0]
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=printed)]
    nb.metadata["course"] = {"provenance": {"device": device}}
    return nb


def test_question_cells_are_read_as_questions(course_root):
    _notebooks(course_root)
    [q] = questions.questions(course.read("en", "01-x"))
    assert q.index == 1 and not q.problems
    assert q.text == "**Predict:** what does the next cell print?"
    assert q.choices == ["x=1", "x=2"]
    assert q.answer_cells == [3]


def test_exactly_one_matching_choice_passes(course_root):
    _notebooks(course_root)
    outputs.check_answers([("01-x", _run("x=1\n"))])


def test_wrong_key_stops_the_build_naming_notebook_and_cell(course_root):
    """A deliberately wrong key: no choice is what the cell printed."""
    _notebooks(course_root, question=QUESTION.replace("`x=1`", "`x=3`"))
    with pytest.raises(course.BuildError) as err:
        outputs.check_answers([("01-x", _run("x=1\n", device="Test CPU"))])
    message = str(err.value)
    assert message.startswith("notebooks/en/01-x.py: cell 2 (line "), message
    assert "none of the choices `x=3`, `x=2` appears in what cell 3 printed on Test CPU: x=1" in message
    assert "make one choice a fragment of it" in message


def test_key_that_matches_twice_stops_the_build_naming_notebook_and_cell(course_root):
    _notebooks(course_root, question=QUESTION.replace("`x=2`", "`1`"))
    with pytest.raises(course.BuildError) as err:
        outputs.check_answers([("01-x", _run("x=1\n"))])
    message = str(err.value)
    assert message.startswith("notebooks/en/01-x.py: cell 2 (line "), message
    assert "several choices (`x=1`, `1`) appear in what cell 3 printed on Test CPU: x=1" in message


def test_every_output_a_page_shows_is_checked(course_root):
    """A record made on a GPU and this build's CPU run both grade the page: each must pick one choice."""
    _notebooks(course_root)
    with pytest.raises(course.BuildError, match="printed on Some GPU: x=2"):
        outputs.check_answers([("01-x", _run("x=1\n", "CPU")), ("01-x", _run("x=2 x=1\n", "Some GPU"))])


@pytest.mark.parametrize("printed, expected", [
    ("b is a=True", {"True": True, "b is a=True": True, "False": False}),
    ("x=10", {"1": False, "10": True, "x=1": False}),
    ("cpu meta", {"cpu": True, "cpu meta": True, "meta meta": False}),
    ("tensor(1.0)", {"0": False, "1.0": True}),
    ("[device(type='cpu')]", {"[device(type='cpu')]": True, "device": True, "type='cpu'": True}),
])
def test_a_fragment_matches_as_printed_not_inside_a_longer_name_or_number(printed, expected):
    assert {fragment: questions.shows(fragment, printed) for fragment in expected} == expected


def test_wrong_key_stops_a_real_build(course_root):
    """The check is part of the build: the notebook runs, then its output grades the question."""
    _notebooks(course_root, question=QUESTION.replace("`x=1`", "`x=0`"))
    twins.main()
    with pytest.raises(course.BuildError) as err:
        pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)
    assert str(err.value).startswith("notebooks/en/01-x.py: cell 2 (line ")
    assert "none of the choices `x=0`, `x=2` appears in what cell 3 printed on" in str(err.value)
    assert not list((course_root / "docs" / "en").glob("*.ipynb")), "no page is written"


@pytest.mark.parametrize("question, problem", [
    ("**Predict:** which?\n\n- `a`", "has 1 choices; give 2 to 4"),
    ("**Predict:** which?\n\n- `a` — one\n- `b`", "choice `a` has text after its fragment"),
    ("**Predict:** which?\n\n- a\n- `b`", "does not start with a `fragment` in backticks"),
    ("- `a`\n- `b`", "has no question before its choices"),
    ("**Predict:** which?\n\n- `a`\n- `b`\n\nMore text.", "has text after or inside its list of choices"),
    ("**Predict:** which?\n\n- `a`\n  - `c`\n- `b`", "has a nested list under a choice"),
    ("**Predict:** which?\n\n- `a`\n  and more\n- `b`", "has text after or inside its list of choices"),
])
def test_a_question_written_wrongly_is_refused_naming_file_cell_and_line(course_root, question, problem):
    """A nested list under a choice once made the site mark the wrong item as the answer, with a green build."""
    _notebooks(course_root, question=question)
    messages = [str(p) for p in questions.question_problems()]
    assert messages and all(m.startswith(f"notebooks/{lang}/01-x.py: cell 2 (line ")
                            for m, lang in zip(messages, course.LANGS)), messages
    assert all(problem in m for m in messages), messages


def test_the_line_named_is_the_line_of_the_problem(course_root):
    _notebooks(course_root, question="**Predict:** which?\n\n- `a`\n  - `c`\n- `b`")
    [problem, *_] = questions.question_problems()
    line = int(str(problem).split("(line ", 1)[1].split(")")[0])
    text = (course_root / "notebooks" / "en" / "01-x.py").read_text(encoding="utf-8").splitlines()
    assert text[line - 1] == "#   - `c`", text[line - 1]


def test_a_question_must_come_right_before_a_code_cell(course_root):
    for lang in course.LANGS:
        write_notebook(course_root, lang, "01-x", ("md", "# Title"), ('md tags=["predict"]', QUESTION),
                       ("md", "## Part"), ("", "x = 1"))
    [first, *_] = questions.question_problems()
    assert "the next cell is not the code cell it asks about" in str(first)


def test_a_question_needs_an_explanation_after_its_cell(course_root):
    _notebooks(course_root, after=())
    [first, *_] = questions.question_problems()
    assert "has no explanation" in str(first) and "tagged `answer`" in str(first)


@pytest.mark.parametrize("code, problem", [
    ('x = 1\nprint(f"{x=}")\nassert x == 1', "with an assert (line 3 of the cell)"),
    ('with expect_error(ValueError, "x=1"):\n    print(f"{x=}")', "names the expected error's message"),
    ('with expect_error(ValueError, fragment="x"):\n    pass', "names the expected error's message"),
    ('x = 1\nprint(f"{x=}")  # prints x=1', "comment names the choice `x=1`"),
])
def test_the_asked_cell_gives_nothing_away(course_root, code, problem):
    """Shown before the reader answers: no assert, no expected-error fragment, no telling comment."""
    _notebooks(course_root, code=code)
    messages = [str(p) for p in questions.question_problems()]
    assert messages and all(problem in m for m in messages), messages


def test_checks_go_in_an_answer_cell_and_an_unknown_error_is_caught_plainly(course_root):
    code = 'with expect_error(Exception) as caught:\n    raise ValueError("x=1")'
    _notebooks(course_root, code=code, after=(('tags=["answer"]', 'assert "x=1" in str(caught.error)'), ANSWER))
    assert not questions.question_problems()
    [q] = questions.questions(course.read("en", "01-x"))
    assert q.answer_cells == [3, 4]


def test_an_answer_cell_that_follows_no_question_is_refused(course_root):
    for lang in course.LANGS:
        write_notebook(course_root, lang, "01-x", ("md", "# Title"), ('tags=["answer"]', "x = 1"))
    [problem, *_] = questions.question_problems()
    assert "is tagged `answer` but does not follow a question's asked cell" in str(problem)


def test_fragments_are_the_same_in_every_language(course_root):
    _notebooks(course_root, langs=("en", "ja"))
    _notebooks(course_root, langs=("ko",), question=QUESTION.replace("`x=2`", "`x=二`"))
    [problem] = questions.question_problems()
    assert str(problem).startswith("notebooks/ko/01-x.py: its questions [cell 2: `x=1`, `x=二`] differ from 'en'")


# ------------------------------------------------------------------------- the course itself

@pytest.mark.parametrize("lang", course.LANGS)
def test_every_notebook_asks_at_least_three_questions(lang):
    few = {c: n for c in course.concepts() if (n := len(questions.questions(course.read(lang, c)))) < MIN_QUESTIONS}
    assert not few, f"{lang}: notebooks with fewer than {MIN_QUESTIONS} questions: {few}"


def test_questions_are_well_formed_and_the_same_in_every_language():
    problems = questions.question_problems()
    assert not problems, "\n".join(map(str, problems))


def test_no_question_gives_its_choices_in_the_same_order_everywhere():
    """Where the answer is, is not a pattern a reader can learn: it differs between questions."""
    positions = set()
    for concept in course.concepts():
        page = course.DOCS / course.REFERENCE / f"{concept}.ipynb"
        if page.exists():
            positions |= {hits[0] for _, _, hits in questions.answers(nbformat.read(page, as_version=4)) if len(hits) == 1}
    if positions:
        assert len(positions) > 1, f"every answer is choice {positions}"


def test_most_questions_offer_three_or_four_choices():
    """Two choices make guessing a coin toss: at least half of the questions offer three or four."""
    counts = [len(q.choices) for c in course.concepts() for q in questions.questions(course.read(course.REFERENCE, c))]
    assert sum(n >= 3 for n in counts) * 2 >= len(counts), f"{sum(n >= 3 for n in counts)} of {len(counts)}"
