"""The outputs of a run, as each language's page shows them: copied into the language's notebook (same
code, comments aside), with the paths of the machine that ran them rewritten; checked first (no cell
prints more than OUTPUT_LIMIT, and each question's output picks exactly one choice). Hands notebooks
with outputs and provenance to signed.py.
"""
import json
import re
import sys
from pathlib import Path

from coursebuild import course
from coursebuild.course import BuildError, questions

# Bytes of one cell's outputs a page may show: more is of no use to a reader (a cell that printed
# megabytes made a 48 MB page and a 50 MB search index per language). A build error, not a cut: the
# fix is in the notebook, and every output shown stays what the code printed.
OUTPUT_LIMIT = 100_000


def check_answers(shown):
    """Raise BuildError unless exactly one choice of every question appears in the output that answers
    it, for each (concept, executed notebook) a page shows."""
    problems = []
    for concept, run in shown:
        nb = with_outputs(course.REFERENCE, concept, run, "check")
        machine = run.metadata["course"]["provenance"]["device"]
        problems += questions.answer_problems(nb, course.source(course.REFERENCE, concept), machine)
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))


def check_output_sizes(shown):
    """Raise BuildError naming each cell whose outputs are over OUTPUT_LIMIT, for each (concept, executed
    notebook) a page shows."""
    problems = []
    for concept, run in shown:
        path = course.source(course.REFERENCE, concept)
        machine = run.metadata["course"]["provenance"]["device"]
        for i, cell in enumerate(run.cells):
            size = len(json.dumps(cell.get("outputs", []), ensure_ascii=False).encode())
            if size > OUTPUT_LIMIT:
                images = _image_bytes(cell)
                fix = (f"It is mostly an image ({_size(images)} as the page stores it, base64): draw the figure "
                       "smaller, e.g. plt.figure(figsize=(6, 4), dpi=72), with fewer points (a sample, or a "
                       "histogram instead of a scatter plot), and show it once (plt.show(), not also the "
                       "returned figure)." if images > size / 2 else
                       "Print less: a shape, a few values (t[:5]) or a summary (t.sum(), t.mean()).")
                problems.append(course.Problem(path, f"cell {i + 1} (line {course.cell_line(path, i)}) printed "
                                                     f"{_size(size)} on {machine}; a page shows at most "
                                                     f"{_size(OUTPUT_LIMIT)} of a cell's output.\n  {fix}"))
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))


def _image_bytes(cell):
    return sum(len(str(value)) for out in cell.get("outputs", []) for kind, value in out.get("data", {}).items()
               if kind.startswith("image/"))


def _size(count):
    return f"{count / 1e6:.1f} MB" if count >= 1e6 else f"{count / 1e3:.0f} KB"


def neutral(value):
    """value (an output, or any part of one) with the paths of the machine that ran it rewritten:
    warnings and tracebacks print where the code lives, and a page must not show this machine's
    folders (the checkout, the virtual environment, the kernel's temporary files)."""
    return _rewritten(value, _machine_paths())


def _rewritten(value, rules):
    if isinstance(value, str):
        for pattern, replacement in rules:
            value = pattern.sub(replacement, value)
        return value
    if isinstance(value, list):
        return [_rewritten(v, rules) for v in value]
    if isinstance(value, dict):
        return type(value)((k, _rewritten(v, rules)) for k, v in value.items())
    return value


PATH_CHARS = r"[^\s'\"()\[\]<>=,;|]*"


def _machine_paths():
    """(pattern, replacement): generic forms first (a record made elsewhere has them too), then the
    folders of this machine, longest first."""
    rules = [
        (PATH_CHARS + r"[/\\]ipykernel_\d+[/\\]\d+\.py", "<cell>"),  # the file of a cell's code
        (PATH_CHARS + r"[/\\]course-run-[^/\\\s'\"]+", "…"),  # a scratch folder (sandbox.Scratch)
        (PATH_CHARS + r"[/\\](site-packages|dist-packages)(?=[/\\])", r"…/\1"),
        (PATH_CHARS + r"[/\\]lib[/\\](python3\.\d+)(?=[/\\])", r"…/\1"),
    ]
    folders = {}
    for folder, replacement in ((Path.home(), "~"), (Path(sys.prefix), "…"), (course.ROOT, "…")):
        for form in (folder, folder.resolve()):
            if len(form.parts) > 1:
                folders[str(form)] = replacement
    for folder in sorted(folders, key=len, reverse=True):
        rules.append((r"(?<![\w.-])" + re.escape(folder) + r"(?![\w.-])", folders[folder]))
    return [(re.compile(pattern), replacement) for pattern, replacement in rules]


def with_outputs(lang, concept, run, view, alternate=None):
    """The language's notebook with the outputs of an executed run, and provenance for the page."""
    nb = course.read(lang, concept)
    cells = course.code_cells(nb)
    ran = course.code_cells(run)
    if len(cells) != len(ran):
        raise BuildError(f"{course.source(lang, concept).relative_to(course.ROOT)}: "
                         "code cells do not match the executed original; fix the parity problems first")
    for mine, theirs in zip(cells, ran):
        mine.outputs = neutral(theirs.get("outputs", []))
        mine.execution_count = theirs.get("execution_count")
    nb.metadata["course"] = {"concept": concept, "lang": lang, "view": view, "alternate": alternate,
                             "provenance": run.metadata["course"]["provenance"]}
    return nb
