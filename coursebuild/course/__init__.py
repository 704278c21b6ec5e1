"""The course's notebooks: where they live, how they are read, and what must match across languages."""
import contextlib
import copy
import difflib
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


class BuildError(Exception):
    """A problem the author must fix; the message names the file and what to do."""


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
    for name in ("mkdocs.yml", "package.json", "package-lock.json", "docs", "notebooks", "overrides", "coursebuild",
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
    try:
        return data.decode("utf-8")
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


# The tags a cell may carry, besides claim-<ID> for each ID in notebooks/claims.yml: predict (a question,
# "predict, then run"), answer (cells shown once the question is answered), setup (the first code cell,
# shown collapsed), gpu-only (checks that need a CUDA GPU). A tag close to one of these is a typo.
KNOWN_TAGS = frozenset({"predict", "answer", "setup", "gpu-only"})
CLAIM_TAG = "claim-"


def claim_ids():
    """The IDs in notebooks/claims.yml, or None where there is no such file."""
    import yaml

    path = NOTEBOOKS / "claims.yml"
    return set(yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.exists() else None


def tag_problems(only=None):
    """Cells tagged in a way a reader's "Run all" does not honour, with a tag that is probably a typo of
    a known one, or with a header whose metadata jupytext could not read (it keeps the text aside)."""
    problems = []
    claims = claim_ids()
    for lang in LANGS:
        for path in sorted((NOTEBOOKS / lang).glob("*.py")):
            if only and path.stem not in only:
                continue
            for i, cell in enumerate(read(lang, path.stem).cells):
                found = []
                raw = cell.get("metadata", {}).get("incorrectly_encoded_metadata")
                if raw is not None:
                    found.append(f": the metadata in its header, `{raw}`, does not parse{_meant(raw)}.\n  Write "
                                 "tags as a list of strings in square brackets: `# %% tags=[\"predict\"]`.")
                kind = str(cell.get("metadata", {}).get("title", ""))
                if kind.startswith("["):
                    found.append(f": `{kind}` in its header is not a cell kind (the cell was read as code): a "
                                 "Markdown cell starts with `# %% [markdown]`.")
                for tag in tags(cell):
                    if tag in REFUSED_TAGS:
                        found.append(f" is tagged {tag}: {REFUSED_TAGS[tag]}.")
                    elif (problem := _tag_problem(tag, claims)) is not None:
                        found.append(f" {problem}")
                problems += [Problem(path, f"cell {i + 1} (line {cell_line(path, i)}){p}") for p in found]
    return problems


def _tag_problem(tag, claims):
    if tag in KNOWN_TAGS or (tag.startswith(CLAIM_TAG) and (claims is None or tag[len(CLAIM_TAG):] in claims)):
        return None
    known = {t.lower(): t for t in KNOWN_TAGS | {CLAIM_TAG + c for c in claims or ()}}
    typed = re.sub(r"[\s_]+", "-", tag.strip().lower())
    close = [known[typed]] if typed in known else [known[m] for m in difflib.get_close_matches(typed, known, 1, 0.8)]
    if tag.startswith(CLAIM_TAG):
        return (f"is tagged {tag}, but notebooks/claims.yml has no claim {tag[len(CLAIM_TAG):]}: "
                + (f"did you mean {close[0]}?" if close else "add the claim there, or fix the tag."))
    if close:
        return (f"is tagged {tag!r}, which the build does not know: did you mean {close[0]!r}? (known tags: "
                f"{', '.join(sorted(KNOWN_TAGS))}, {CLAIM_TAG}<ID>)")
    return None  # a tag for another tool (hide-input, parameters): left alone


def _meant(raw):
    """The tags a header that does not parse probably meant, as they should be written."""
    words = re.findall(r"[\"']([^\"']+)[\"']", raw) or re.findall(r"[\w-]+", raw.partition("=")[2])
    if not raw.lstrip().startswith("tags") or not words:
        return ""
    return f"; it probably meant `tags={json.dumps(words)}`"


def nav():
    """The pages in the site's navigation (`nav` in mkdocs.yml): (its line, [(line, page)]), or None
    where there is no nav (MkDocs then lists every page)."""
    config = ROOT / "mkdocs.yml"
    lines = config.read_text(encoding="utf-8").splitlines() if config.exists() else []
    if "nav:" not in lines:
        return None
    start = lines.index("nav:")
    listed = []
    for number, line in enumerate(lines[start + 1:], start + 2):
        if line.strip() and not line.startswith((" ", "-")):
            break
        page = re.search(r"([\w.-]+\.ipynb)\s*$", line)
        if page:
            listed.append((number, page[1]))
    return start + 1, listed


def nav_problems(only=None):
    """Concepts missing from the site's navigation: MkDocs would build their pages and link them from
    nowhere, with a green build."""
    found = nav()
    if found is None:
        return []
    start, listed = found
    problems = []
    for concept in concepts():
        page = f"{concept}.ipynb"
        if (only and concept not in only) or page in {p for _, p in listed}:
            continue
        before = [(n, p) for n, p in listed if p < page]
        after = f"after line {before[-1][0]} ({before[-1][1]})" if before else f"after line {start} (nav:)"
        problems.append(Problem(source(REFERENCE, concept), f"is not in the site's navigation: add `  - {page}` to "
                                                            f"nav in mkdocs.yml, {after}."))
    return problems


def _outline_diff(ref, mine):
    for i, (a, b) in enumerate(zip(ref, mine)):
        if a != b:
            return (f"cell {i + 1} is {b!r} but the '{REFERENCE}' original has {a!r} "
                    "(same cells and headings in every language)")
    return (f"has {len(mine)} cells, the '{REFERENCE}' original has {len(ref)} "
            "(same cells and headings in every language)")
