"""The committed .ipynb twin of each .py notebook, which Colab and the download link use: written by
./scripts/sync (and the live preview); a missing or stale twin is a problem handed to the execute stage.

A twin can also hold an author's edit: Colab's "Save a copy in GitHub" writes only the .ipynb, and
JupyterLab may save the .ipynb of a pair. A twin newer than its .py whose cells differ from the .py's
is such an edit; rewriting it from the .py would drop it without a word, so write() refuses, naming
the twin and the command that carries the edit into the .py (jupytext --sync: the pair is declared in
the notebook's header, and the newer side wins).

Usage: python -m coursebuild.course.twins   (rewrites every twin from its .py)
"""
import sys

import jupytext

from coursebuild import course, lock
from coursebuild.course import conflicts


def path(lang, concept):
    return course.NOTEBOOKS / lang / f"{concept}.ipynb"


def expected(lang, concept):
    return jupytext.writes(course.read(lang, concept), fmt="ipynb")


def all_notebooks(only=None):
    return [(lang, p.stem) for lang in course.LANGS for p in sorted((course.NOTEBOOKS / lang).glob("*.py"))
            if not only or p.stem in only]


def stale(only=None):
    problems = []
    for lang, concept in all_notebooks(only):
        twin = path(lang, concept)
        if not twin.exists() or twin.read_text(encoding="utf-8") != expected(lang, concept):
            problems.append(course.Problem(
                twin, f"is missing or out of date with {concept}.py: run ./scripts/sync and commit it"))
    return problems


def write(only=None, log=print):
    """Rewrite the twins that are missing or out of date; BuildError, before writing any, where a twin
    holds an edit its .py lacks."""
    conflicted = conflicts.conflict_problems()
    if conflicted:
        raise course.BuildError("\n".join(str(p) for p in conflicted))
    stale = []
    for lang, concept in all_notebooks(only):
        text = expected(lang, concept)
        twin = path(lang, concept)
        if not twin.exists() or twin.read_text(encoding="utf-8") != text:
            stale.append((lang, concept, twin, text))
    edited = [course.Problem(twin, _edited_message(lang, concept)) for lang, concept, twin, _ in stale
              if _holds_an_edit(lang, concept, twin)]
    if edited:
        raise course.BuildError("\n".join(str(p) for p in edited))
    for _, _, twin, text in stale:
        course.write_atomic(twin, text)
        log(f"wrote {twin.relative_to(course.ROOT)}")


def _cells(nb):
    return [(c.cell_type, c.source.strip(), sorted(c.get("metadata", {}).get("tags", []))) for c in nb.cells]


def _holds_an_edit(lang, concept, twin):
    """Whether the twin was saved after its .py and its cells say something the .py does not."""
    if not twin.exists() or twin.stat().st_mtime_ns <= course.source(lang, concept).stat().st_mtime_ns:
        return False
    try:
        saved = jupytext.read(twin)
    except Exception:  # not a notebook (a merge gone wrong): nothing jupytext could carry over
        return False
    return _cells(saved) != _cells(course.read(lang, concept))


def _edited_message(lang, concept):
    py = course.source(lang, concept).relative_to(course.ROOT)
    twin = path(lang, concept).relative_to(course.ROOT)
    return (f"holds edits that {py.name} lacks (saved after it, e.g. from Colab or JupyterLab): rewriting it "
            f"from {py.name} would drop them, so it is left as it is.\n  Keep them: .venv/bin/jupytext --sync {twin} "
            f"(carries them into {py}; check `git diff {py}`), then run the command again.\n  Drop them: "
            f"touch {py}, then run the command again.")


def main():
    try:
        with lock.held():  # not while a build runs: it watches the project's files
            write()
    except course.BuildError as err:  # a notebook that cannot be read (not UTF-8, a header that does not parse)
        print(f"error: {err}", file=sys.stderr)
        return 1
    except OSError as err:  # a read-only notebooks/ or .cache/
        print(f"error: {course.unwritable(err)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
