"""The course's notebooks: where they live, how they are read, and what must match across languages."""
import contextlib
import copy
import functools
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path

import jupytext
import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
LANGS = ("en", "ja", "ko")
REFERENCE = "en"  # the language whose notebook is executed; its outputs serve all three


@dataclass
class Problem:
    path: Path
    message: str

    def __str__(self):
        return f"{self.path.relative_to(ROOT)}: {self.message}"


def copy_project(dest, caches=True):
    """Copy what the build reads (and its caches) to dest, to try edits without touching the author's
    files (tests, benchmarks)."""
    Path(dest).mkdir(parents=True, exist_ok=True)
    if (ROOT / "node_modules").is_dir():  # PurgeCSS and the browser checks' packages, only read
        (Path(dest) / "node_modules").symlink_to(ROOT / "node_modules")
    for name in ("mkdocs.yml", "package.json", "package-lock.json", "docs", "notebooks", "overrides", "scripts",
                 "records") + ((".cache",) if caches else ()):
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, Path(dest) / name, ignore=shutil.ignore_patterns("__pycache__", "site"))
        elif src.exists():
            shutil.copy2(src, Path(dest) / name)
    return Path(dest)


def concepts():
    """Concept names (file stems), from the reference language, in reading order."""
    return sorted(p.stem for p in (NOTEBOOKS / REFERENCE).glob("*.py"))


def source(lang, concept):
    return NOTEBOOKS / lang / f"{concept}.py"


def read(lang, concept):
    path = source(lang, concept)
    return copy.deepcopy(_parsed(path, path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=None)
def _parsed(path, mtime):
    """The notebook in a .py file. Parsing is most of an unchanged build's time (jupytext validates
    every cell), so each parse is kept in .cache/parsed/ under a hash of the file and jupytext's
    version; an entry that cannot be read is a miss."""
    text = path.read_bytes()
    key = hashlib.sha256(text + jupytext.__version__.encode()).hexdigest()[:24]
    folder = ROOT / ".cache" / "parsed"
    prefix = f"{path.parent.name}-{path.stem}-"
    entry = folder / f"{prefix}{key}.json"
    with contextlib.suppress(OSError, ValueError):
        return nbformat.from_dict(json.loads(entry.read_text(encoding="utf-8")))
    nb = jupytext.reads(text.decode("utf-8"), fmt="py")
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # jupytext makes random ids; stable ones keep generated files reproducible
    with contextlib.suppress(OSError):  # the cache is a convenience: a full disk must not stop the build
        write_atomic(entry, json.dumps(nb, ensure_ascii=False))
        for old in folder.glob(f"{prefix}*.json"):  # this file's entries for older text
            if old != entry and re.fullmatch(re.escape(prefix) + "[0-9a-f]{24}\\.json", old.name):
                old.unlink(missing_ok=True)
    return nb


UMASK = os.umask(0o022)
os.umask(UMASK)  # read once, at import (single-threaded): the mode an ordinary write would give


def write_atomic(path, data):
    """Write a file (text as UTF-8, or bytes) whole or not at all: a reader (or the next build) never
    sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~UMASK)  # mkstemp makes files private to their owner
        with (os.fdopen(fd, "wb") if isinstance(data, bytes) else os.fdopen(fd, "w", encoding="utf-8")) as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def strip_comments(code):
    """Code without comments or blank lines: what must be identical across languages."""
    kept = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code.strip()
    lines = code.splitlines()
    comments = {}
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            comments[row] = col
    for row, line in enumerate(lines, start=1):
        if row in comments:
            line = line[: comments[row]]
        if line.strip():
            kept.append(line.rstrip())
    return "\n".join(kept)


def tags(cell):
    return list(cell.get("metadata", {}).get("tags", []))


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def code_hash(nb):
    """Hash of what runs: code without comments, and the tags that change how it is checked."""
    payload = [[strip_comments(c.source), sorted(tags(c))] for c in code_cells(nb)]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]


HEADING = re.compile(r"^(#{1,6})\s+\S", re.M)


def outline(nb):
    """The page's shape: cell kinds in order, and the level of each heading."""
    shape = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            src = re.sub(r"```.*?```", "", cell.source, flags=re.S)
            shape.append("md:" + ",".join(str(len(m.group(1))) for m in HEADING.finditer(src)))
        else:
            shape.append("code")
    return shape


def cell_line(path, index):
    """1-based line in a percent-format file where cell `index` starts (for error messages)."""
    markers = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if line.startswith("# %%")]
    return markers[index] if index < len(markers) else None


def parity_problems(only=None):
    """Everything that breaks 'same pages, same sections, same code' across languages."""
    problems = []
    names = {lang: {p.stem for p in (NOTEBOOKS / lang).glob("*.py") if not only or p.stem in only}
             for lang in LANGS}
    for lang in LANGS:
        for missing in sorted(names[REFERENCE] - names[lang]):
            problems.append(Problem(
                source(lang, missing),
                f"missing: translate {source(REFERENCE, missing).relative_to(ROOT)} into '{lang}'"))
        for extra in sorted(names[lang] - names[REFERENCE]):
            problems.append(Problem(
                source(lang, extra),
                f"has no '{REFERENCE}' original: add {source(REFERENCE, extra).relative_to(ROOT)} "
                "or rename this file to match it"))
    for concept in sorted(names[REFERENCE]):
        ref = read(REFERENCE, concept)
        ref_code = [strip_comments(c.source) for c in code_cells(ref)]
        ref_tags = [sorted(tags(c)) for c in code_cells(ref)]
        for lang in LANGS:
            if lang == REFERENCE or concept not in names[lang]:
                continue
            path = source(lang, concept)
            nb = read(lang, concept)
            if outline(nb) != outline(ref):
                problems.append(Problem(path, _outline_diff(outline(ref), outline(nb))))
            code = [strip_comments(c.source) for c in code_cells(nb)]
            if len(code) != len(ref_code):
                problems.append(Problem(path, f"has {len(code)} code cells, '{REFERENCE}' has "
                                              f"{len(ref_code)}: copy the code cells from the original"))
                continue
            for i, (mine, theirs) in enumerate(zip(code, ref_code)):
                if mine != theirs:
                    problems.append(Problem(path, f"code cell {i + 1} differs from '{REFERENCE}' "
                                                  "(only comments may differ): copy it from the original"))
            for i, (mine, theirs) in enumerate(zip((sorted(tags(c)) for c in code_cells(nb)), ref_tags)):
                if mine != theirs:
                    problems.append(Problem(path, f"code cell {i + 1} has tags {mine}, '{REFERENCE}' has "
                                                  f"{theirs}: use the same tags"))
    return problems


REFUSED_TAGS = {
    "raises-exception": "Colab's and Positron's \"Run all\" ignore tags and would stop at this cell. Catch the "
                        "expected error in the cell with `with expect_error(Kind, \"stable fragment\"):` (defined "
                        "in the notebook's first code cell, see notebooks/README.md) and remove the tag",
}


def tag_problems(only=None):
    """Cells tagged in a way a reader's "Run all" does not honour."""
    problems = []
    for lang in LANGS:
        for path in sorted((NOTEBOOKS / lang).glob("*.py")):
            if only and path.stem not in only:
                continue
            for i, cell in enumerate(read(lang, path.stem).cells):
                for tag in tags(cell):
                    if tag in REFUSED_TAGS:
                        problems.append(Problem(path, f"cell {i + 1} (line {cell_line(path, i)}) is tagged {tag}: "
                                                      f"{REFUSED_TAGS[tag]}."))
    return problems


def _outline_diff(ref, mine):
    for i, (a, b) in enumerate(zip(ref, mine)):
        if a != b:
            return (f"cell {i + 1} is {b!r} but the '{REFERENCE}' original has {a!r} "
                    "(same cells and headings in every language)")
    return (f"has {len(mine)} cells, the '{REFERENCE}' original has {len(ref)} "
            "(same cells and headings in every language)")


# ------------------------------------------------------------------ questions ("predict, then run")
# A question is a Markdown cell tagged `predict`, right before the code cell whose output answers it:
# one paragraph (the question), then a list of two to four choices, each `- `fragment` — why`. The
# fragment is the same in every language and is what the next cell would print if that choice were
# right; the answer key is the executed output: exactly one fragment must appear in it.

PREDICT = "predict"
MIN_CHOICES, MAX_CHOICES = 2, 4
ITEM = re.compile(r"^[-*+]\s+(.*)$")
FRAGMENT = re.compile(r"^`([^`]+)`\s*(.*)$", re.S)
SEPARATOR = re.compile(r"^[\s—–:：\-]+")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class Question:
    index: int          # the question cell's index in the notebook
    text: str           # the question, as Markdown
    choices: list       # [(fragment, why)], why as Markdown
    problems: list      # what is wrong with how it is written


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def is_question(cell):
    return cell.get("cell_type") == "markdown" and PREDICT in tags(cell)


def parse_question(index, cell):
    text, items, problems = [], [], []
    for line in _source(cell).splitlines():
        item = ITEM.match(line)
        if item:
            items.append(item.group(1))
        elif items and line.startswith((" ", "\t")) and line.strip():
            items[-1] += " " + line.strip()  # a choice continued on the next line
        elif items and line.strip():
            problems.append("has text after its list of choices (the list must end the cell)")
        elif not items:
            text.append(line)
    choices = []
    for item in items:
        found = FRAGMENT.match(item.strip())
        if not found:
            problems.append(f"choice {item.strip()[:40]!r} does not start with a `fragment` in backticks")
            continue
        why = SEPARATOR.sub("", found.group(2)).strip()
        if not why:
            problems.append(f"choice `{found.group(1)}` says nothing after its fragment: add why, in one line")
        choices.append((found.group(1), why))
    if not "\n".join(text).strip():
        problems.append("has no question before its choices")
    if not MIN_CHOICES <= len(items) <= MAX_CHOICES:
        problems.append(f"has {len(items)} choices; give {MIN_CHOICES} to {MAX_CHOICES}, each `- `fragment` — why`")
    fragments = [f for f, _ in choices]
    if len(set(fragments)) != len(fragments):
        problems.append("has two choices with the same fragment")
    return Question(index, "\n".join(text).strip(), choices, problems)


def questions(nb):
    return [parse_question(i, cell) for i, cell in enumerate(nb["cells"]) if is_question(cell)]


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
    """[(question, output text of the next cell, indices of the choices that output shows)]."""
    found = []
    cells = nb["cells"]
    for q in questions(nb):
        after = cells[q.index + 1] if q.index + 1 < len(cells) else None
        text = output_text(after) if after is not None and after.get("cell_type") == "code" else ""
        found.append((q, text, [i for i, (fragment, _) in enumerate(q.choices) if shows(fragment, text)]))
    return found


def question_problems(only=None):
    """Questions written wrongly, or not the same in every language (fragments are code: identical)."""
    problems = []
    for concept in concepts():
        if only and concept not in only:
            continue
        ref = None
        for lang in (REFERENCE, *[lang for lang in LANGS if lang != REFERENCE]):
            path = source(lang, concept)
            if not path.exists():
                continue
            nb = read(lang, concept)
            mine = []
            for q in questions(nb):
                where = f"cell {q.index + 1} (line {cell_line(path, q.index)})"
                nxt = nb.cells[q.index + 1] if q.index + 1 < len(nb.cells) else None
                if nxt is None or nxt.cell_type != "code":
                    problems.append(Problem(path, f"{where} is a question (tag {PREDICT}) but the next cell is not "
                                                  "a code cell: put it right before the cell whose output answers it"))
                problems += [Problem(path, f"{where}, a question, {p}") for p in q.problems]
                mine.append((q.index, [f for f, _ in q.choices]))
            if lang == REFERENCE:
                ref = mine
            elif ref is not None and mine != ref:
                problems.append(Problem(path, f"its questions {_keys(mine)} differ from '{REFERENCE}' {_keys(ref)}: "
                                              "same cells, same fragments in the same order (translate only the prose)"))
    return problems


def _keys(found):
    return "[" + "; ".join(f"cell {i + 1}: " + ", ".join(f"`{f}`" for f in frags) for i, frags in found) + "]"


def answer_problems(nb, path, machine):
    """The answer key is the output: exactly one choice of each question must appear in what the next
    cell printed on `machine` (nb: the notebook with that machine's outputs; path: its source)."""
    problems = []
    for q, text, hits in answers(nb):
        if len(hits) == 1:
            continue
        where = f"cell {q.index + 1} (line {cell_line(path, q.index)})"
        shown = text.strip().replace("\n", " | ")
        shown = (shown[:300] + " …") if len(shown) > 300 else shown
        choices = ", ".join(f"`{q.choices[i][0]}`" for i in (hits or range(len(q.choices))))
        if not hits:
            problems.append(Problem(path, f"{where}: none of the choices {choices} appears in what cell {q.index + 2} "
                                          f"printed on {machine}: {shown or '(nothing)'}\n  The answer key is that "
                                          "output: make one choice a fragment of it (or have the cell print the "
                                          "value the question asks about)."))
        else:
            problems.append(Problem(path, f"{where}: several choices ({choices}) appear in what cell {q.index + 2} "
                                          f"printed on {machine}: {shown}\n  Exactly one must: use longer "
                                          "fragments, such as `b is a=True` rather than `True`."))
    return problems
