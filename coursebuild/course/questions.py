"""Questions before a cell ("predict, then run"): how they are written, checked and graded.

A question is a Markdown cell tagged `predict`: one paragraph (the question), then two to four
choices, each only a `fragment` in backticks, so that nothing in the choices gives the answer away.
The next cell is the code cell the question asks about; what it prints is the answer key: exactly one
fragment must appear in it, on every machine whose outputs a page shows. After it come the answer's
cells, tagged `answer`: the checks (asserts) and a Markdown explanation. Until the reader answers,
the site keeps the asked cell's output and the answer's cells closed, so the asked cell itself must not
give the answer away (no assert, no expected-error fragment, no comment naming a choice).

Hands on: questions(nb) and answers(nb) to the execute stage (execute/outputs.py), which refuses a page
whose key is not exactly one choice, and to render/predict.py, which marks the cells for predict.js."""
import ast
import io
import re
import tokenize
from dataclasses import dataclass, field

from coursebuild import course

PREDICT = "predict"
ANSWER = "answer"
MIN_CHOICES, MAX_CHOICES = 2, 4
ITEM = re.compile(r"^[-*+]\s+(.*)$")
NESTED_ITEM = re.compile(r"^\s+([-*+]|\d+[.)])\s")
FRAGMENT = re.compile(r"^`([^`]+)`\s*(.*)$", re.S)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Question:
    index: int          # the question cell's index in the notebook
    text: str           # the question, as Markdown
    choices: list       # the fragments, in the order written
    answer_cells: list  # indices of the cells tagged `answer` after the asked cell
    problems: list = field(default_factory=list)  # [(line in the cell, 1-based, or None; what is wrong)]


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_question(cell):
    return cell.get("cell_type") == "markdown" and PREDICT in course.tags(cell)


def is_answer(cell):
    return ANSWER in course.tags(cell)


def parse_question(index, cell):
    """The question in a cell, with what is wrong in how it is written (the choices are read from
    Markdown: a line that is not a plain item would make the site mark the wrong item)."""
    text, choices, problems = [], [], []
    in_list, items = False, 0
    for number, line in enumerate(_source(cell).splitlines(), 1):
        item = ITEM.match(line)
        if item:
            in_list, items = True, items + 1
            found = FRAGMENT.match(item.group(1).strip())
            if not found:
                problems.append((number, f"choice {item.group(1).strip()[:40]!r} does not start with a `fragment` "
                                         "in backticks"))
                continue
            choices.append(found.group(1))
            if found.group(2).strip():
                problems.append((number, f"choice `{found.group(1)}` has text after its fragment: a choice is its "
                                         "`fragment` only, so that none gives the answer away; explain in the "
                                         f"Markdown cell tagged `{ANSWER}` after the asked cell"))
        elif in_list and NESTED_ITEM.match(line):
            problems.append((number, "has a nested list under a choice: each choice is one line, `- `fragment``"))
        elif in_list and line.strip():
            problems.append((number, "has text after or inside its list of choices (the list of `fragment`s "
                                     "must end the cell; explanations go in the answer cell)"))
        elif not in_list:
            text.append(line)
    if not "\n".join(text).strip():
        problems.append((None, "has no question before its choices"))
    if not MIN_CHOICES <= items <= MAX_CHOICES:
        problems.append((None, f"has {items} choices; give {MIN_CHOICES} to {MAX_CHOICES}, each `- `fragment``"))
    if len(set(choices)) != len(choices):
        problems.append((None, "has two choices with the same fragment"))
    return Question(index, "\n".join(text).strip(), choices, [], problems)


def questions(nb):
    """Every question of a notebook, with its answer cells and what is wrong with the block."""
    cells = nb["cells"]
    found = []
    for i, cell in enumerate(cells):
        if not is_question(cell):
            continue
        q = parse_question(i, cell)
        asked = cells[i + 1] if i + 1 < len(cells) else None
        if asked is None or asked.get("cell_type") != "code" or is_answer(asked):
            q.problems.append((None, "is a question (tag predict) but the next cell is not the code cell it asks "
                                     "about: put it right before that cell"))
        else:
            q.problems += [(None, p) for p in gives_away(_source(asked), q.choices)]
        j = i + 2
        while j < len(cells) and is_answer(cells[j]):
            q.answer_cells.append(j)
            j += 1
        if not any(cells[k].get("cell_type") == "markdown" for k in q.answer_cells):
            q.problems.append((None, f"has no explanation: after the asked cell, add a Markdown cell tagged "
                                     f"`{ANSWER}` that says why (the site shows it once the reader has answered)"))
        found.append(q)
    return found


def gives_away(code, choices):
    """What in the asked cell, shown before the reader answers, would give the answer away."""
    found = []
    try:
        tree = ast.parse(code)
    except SyntaxError:
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Assert):
                found.append(f"asks about a cell with an assert (line {node.lineno} of the cell): move the checks "
                             f"into a code cell of their own, tagged `{ANSWER}`, after it")
            elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "expect_error"
                  and (len(node.args) > 1 or any(k.arg == "fragment" for k in node.keywords))):
                found.append(f"asks about a cell that names the expected error's message (line {node.lineno} of the "
                             "cell): write `with expect_error(Exception) as caught:` there and check "
                             f"`caught.error` in a cell tagged `{ANSWER}` after it")
    for comment in _comments(code):
        named = [c for c in choices if c in comment]
        if named:
            found.append(f"asks about a cell whose comment names the choice `{named[0]}`: say it in the answer "
                         "cell instead")
    return found


def _comments(code):
    try:
        return [t.string for t in tokenize.generate_tokens(io.StringIO(code).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [line.split("#", 1)[1] for line in code.splitlines() if "#" in line]


def stray_answer_cells(nb):
    """Cells tagged `answer` that do not follow a question's asked cell."""
    owned = {i for q in questions(nb) for i in q.answer_cells}
    return [i for i, cell in enumerate(nb["cells"]) if is_answer(cell) and i not in owned]


def output_text(cell):
    """What a code cell showed: its stdout and stderr, errors and plain-text results."""
    parts = []
    for out in cell.get("outputs", []):
        kind = out.get("output_type")
        if kind == "stream":
            parts.append(_source({"source": out.get("text", "")}))
        elif kind == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
        else:
            parts.append(_source({"source": out.get("data", {}).get("text/plain", "")}))
    return ANSI.sub("", "\n".join(parts))


def shows(fragment, text):
    """Whether `fragment` appears in `text` as printed, not as part of a longer name or number."""
    before = r"(?<![\w.])" if re.match(r"\w", fragment) else ""
    after = r"(?!\w)" if re.search(r"\w$", fragment) else ""
    return re.search(before + re.escape(fragment) + after, text) is not None


def answers(nb):
    """[(question, output text of the asked cell, indices of the choices that output shows)]."""
    found = []
    cells = nb["cells"]
    for q in questions(nb):
        after = cells[q.index + 1] if q.index + 1 < len(cells) else None
        text = output_text(after) if after is not None and after.get("cell_type") == "code" else ""
        found.append((q, text, [i for i, fragment in enumerate(q.choices) if shows(fragment, text)]))
    return found


def _where(path, index, line=None):
    start = course.cell_line(path, index)
    if line is not None and start is not None:
        return f"cell {index + 1} (line {start + line})"
    return f"cell {index + 1} (line {start})"


def question_problems(only=None):
    """Questions written wrongly, or not the same in every language (fragments are code: identical)."""
    problems = []
    for concept in course.concepts():
        if only and concept not in only:
            continue
        ref = None
        for lang in (course.REFERENCE, *[lang for lang in course.LANGS if lang != course.REFERENCE]):
            path = course.source(lang, concept)
            if not path.exists():
                continue
            nb = course.read(lang, concept)
            mine = []
            for q in questions(nb):
                problems += [course.Problem(path, f"{_where(path, q.index, line)}, a question, {p}")
                             for line, p in q.problems]
                mine.append((q.index, q.choices))
            for i in stray_answer_cells(nb):
                problems.append(course.Problem(path, f"{_where(path, i)} is tagged `{ANSWER}` but does not follow a "
                                                     "question's asked cell (or another answer cell)"))
            if lang == course.REFERENCE:
                ref = mine
            elif ref is not None and mine != ref:
                problems.append(course.Problem(
                    path, f"its questions {_keys(mine)} differ from '{course.REFERENCE}' {_keys(ref)}: same cells, "
                          "same fragments in the same order (translate only the prose)"))
    return problems


def _keys(found):
    return "[" + "; ".join(f"cell {i + 1}: " + ", ".join(f"`{f}`" for f in frags) for i, frags in found) + "]"


def answer_problems(nb, path, machine):
    """The answer key is the output: exactly one choice of each question must appear in what the asked
    cell printed on `machine` (nb: the notebook with that machine's outputs; path: its source)."""
    problems = []
    for q, text, hits in answers(nb):
        if len(hits) == 1:
            continue
        where = _where(path, q.index)
        shown = text.strip().replace("\n", " | ")
        shown = (shown[:300] + " …") if len(shown) > 300 else shown
        choices = ", ".join(f"`{q.choices[i]}`" for i in (hits or range(len(q.choices))))
        if not hits:
            problems.append(course.Problem(
                path, f"{where}: none of the choices {choices} appears in what cell {q.index + 2} printed on "
                      f"{machine}: {shown or '(nothing)'}\n  The answer key is that output: make one choice a "
                      "fragment of it (or have the cell print the value the question asks about)."))
        else:
            problems.append(course.Problem(
                path, f"{where}: several choices ({choices}) appear in what cell {q.index + 2} printed on "
                      f"{machine}: {shown}\n  Exactly one must: use longer fragments, such as `b is a=True` "
                      "rather than `True`."))
    return problems
