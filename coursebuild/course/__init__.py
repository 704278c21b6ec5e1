"""Stage 1, the course as written: where the notebooks live (notebooks/<lang>/NN-name.py), how they are
read (jupytext, cached in .cache/parsed/), what their code is once comments are set aside, and how the
build writes a file (whole or not at all). Hands parsed notebooks to the checks beside it (parity.py,
tag_rules.py, questions.py, nav.py, twins.py) and to the execute stage.

Adding a language: its code goes in LANGS (CONTRIBUTING.md, "Add a language", lists every step)."""
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

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
DOCS = ROOT / "docs"
LANGS = ("en", "ja", "ko")
REFERENCE = "en"  # the language whose notebook is executed; its outputs serve all three


class BuildError(ValueError):
    """A problem the author must fix; the message names the file and what to do. (A ValueError, as the
    checks that raise it from MkDocs' events raised before; the commands print it without a traceback.)"""


def load_yaml(path, fix):
    """The data in a YAML file; BuildError naming the file, the line and `fix` where it does not parse."""
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8").removeprefix("\ufeff"))
    except yaml.YAMLError as err:
        problem = " ".join(str(getattr(err, "problem", None) or err).split())
        mark = getattr(err, "problem_mark", None)
        if getattr(err, "context_mark", None) and (mark is None or "end of stream" in problem):
            mark = err.context_mark  # an unclosed quote or bracket: where it was opened, not the file's end
            problem = f"{err.context}, never closed"
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise BuildError(f"{relative(path)}: {where}not valid YAML ({problem}).\n  {fix}") from None


def unwritable(err):
    """One line for a write that failed (an OSError): which of the build's folders, and what to do."""
    path = Path(err.filename) if err.filename else None
    top = path.relative_to(ROOT).parts[0] if path and path.is_relative_to(ROOT) and path != ROOT else None
    if top == ".cache":
        folder = ".cache/ (the build's caches and lock)"
    elif top and top.startswith(".site."):
        folder = f"{top}/ beside site/ (the new site is built there, then swapped in)"
    else:
        folder = f"{top}/" if top else str(path or "a file")
    return (f"cannot write {folder}: {err.strerror or err}. Make it writable (chmod -R u+w; chattr -R -i if it "
            "was made immutable) or remove it, then run the command again; site/ is left as it was.")


def relative(path):
    path = Path(path)
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


@dataclass
class Problem:
    path: Path
    message: str

    def __str__(self):
        return f"{self.path.relative_to(ROOT)}: {self.message}"


def copy_project(dest, caches=True):
    """Copy what the build reads (and its caches) to dest, to try edits without touching the author's
    files (tests, benchmarks); its ./scripts/* run there with this checkout's .venv."""
    Path(dest).mkdir(parents=True, exist_ok=True)
    for shared in ("node_modules", ".venv"):  # npm packages and the virtual environment, only read
        if (ROOT / shared).is_dir():
            (Path(dest) / shared).symlink_to((ROOT / shared).resolve())
    for name in ("mkdocs.yml", "package.json", "package-lock.json", "requirements.txt", "docs", "notebooks",
                 "overrides", "coursebuild", "scripts", "records") + ((".cache",) if caches else ()):
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
    nb = _jupytext(path, _decoded(path, text))
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i}"  # jupytext makes random ids; stable ones keep generated files reproducible
    with contextlib.suppress(OSError):  # the cache is a convenience: a full disk must not stop the build
        write_atomic(entry, json.dumps(nb, ensure_ascii=False))
        for old in folder.glob(f"{prefix}*.json"):  # this file's entries for older text
            if old != entry and re.fullmatch(re.escape(prefix) + "[0-9a-f]{24}\\.json", old.name):
                old.unlink(missing_ok=True)
    return nb


def _decoded(path, data):
    try:  # a byte-order mark (Windows editors save one) is not part of the text: Jupytext read it as a code cell
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as err:
        start = data.rfind(b"\n", 0, err.start) + 1
        line, column = data.count(b"\n", 0, err.start) + 1, len(data[start:err.start].decode("utf-8", "replace")) + 1
        raise BuildError(f"{path.relative_to(ROOT)}: line {line}, column {column}: byte 0x{data[err.start]:02x} is not "
                         "UTF-8, the encoding notebooks are read in.\n  Save the file as UTF-8 (most editors: "
                         "\"Save with Encoding\" or \"Reopen with Encoding\", then UTF-8) and check that line's "
                         "characters.") from None


HEADER = re.compile(r"^#\s*%%.*$", re.M)


def _jupytext(path, text):
    """The notebook in a percent-format text; a cell header jupytext cannot read is named by its line."""
    try:
        return jupytext.reads(text, fmt="py")
    except Exception as err:  # jupytext and nbformat raise anything from ValueError to AttributeError
        where = "the notebook's header or a cell header"
        for found in HEADER.finditer(text):
            try:
                jupytext.reads(found[0] + "\n", fmt="py:percent")
            except Exception:
                where = f"line {text.count(chr(10), 0, found.start()) + 1}: `{found[0]}`"
                break
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise BuildError(f"{path.relative_to(ROOT)}: {where} does not parse ({reason}).\n  A cell header is "
                         "`# %%` or `# %% [markdown]`, then optional metadata such as tags=[\"predict\"] "
                         "(a list of strings in square brackets).") from None


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


@functools.lru_cache(maxsize=4096)  # the parity checks and the cache keys ask for the same cells
def strip_comments(code):
    """What must be identical across languages: the code without comments or blank lines, and without the
    text of translated messages (string literals assigned to a name ending in `_TEXT`, which the code
    prints in the reader's language, e.g. when torch is too old)."""
    kept = []
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return code.strip()
    lines = code.splitlines()
    comments, texts = {}, {}
    statement, target = [], None
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            comments[row] = col
        elif tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            statement, target = [], None
        elif tok.type not in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT):
            statement.append(tok)
            if len(statement) == 2 and statement[0].type == tokenize.NAME and tok.string == "=":
                target = statement[0].string
            if tok.type == tokenize.STRING and target and target.endswith(TRANSLATED) and tok.start[0] == tok.end[0]:
                texts.setdefault(tok.start[0], []).append((tok.start[1], tok.end[1]))
    for row, line in enumerate(lines, start=1):
        for start, end in reversed(texts.get(row, [])):
            line = line[:start] + '"…"' + line[end:]
        if row in comments:
            line = line[: comments[row] - sum(end - start - 3 for start, end in texts.get(row, []))]
        if line.strip() and not (line.strip() == '"…"' and kept and kept[-1].endswith('"…"')):
            kept.append(line.rstrip())  # a translated text may take more or fewer lines: one is kept
    return "\n".join(kept)


TRANSLATED = "_TEXT"


def tags(cell):
    return list(cell.get("metadata", {}).get("tags", []))


def code_cells(nb):
    return [c for c in nb.cells if c.cell_type == "code"]


def code_hash(nb):
    """Hash of what runs: code without comments, and the tags that change how it is checked."""
    payload = [[strip_comments(c.source), sorted(tags(c))] for c in code_cells(nb)]
    return hashlib.sha256(json.dumps(payload, ensure_ascii=False).encode()).hexdigest()[:16]


def cell_line(path, index):
    """1-based line in a percent-format file where cell `index` starts (for error messages)."""
    markers = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if line.startswith("# %%")]
    return markers[index] if index < len(markers) else None
