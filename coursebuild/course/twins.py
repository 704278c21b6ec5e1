"""The committed .ipynb twin of each .py notebook, which Colab and the download link use: written by
./scripts/sync (and the live preview); a missing or stale twin is a problem handed to the execute stage.

Usage: python -m coursebuild.course.twins   (rewrites every twin from its .py)
"""
import sys

import jupytext

from coursebuild import course, lock


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
    """Rewrite the twins that are missing or out of date."""
    for lang, concept in all_notebooks(only):
        text = expected(lang, concept)
        twin = path(lang, concept)
        if not twin.exists() or twin.read_text(encoding="utf-8") != text:
            course.write_atomic(twin, text)
            log(f"wrote {twin.relative_to(course.ROOT)}")


def main():
    try:
        with lock.held():  # not while a build runs: it watches the project's files
            write()
    except course.BuildError as err:  # a notebook that cannot be read (not UTF-8, a header that does not parse)
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
