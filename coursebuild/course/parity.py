"""Same pages, same sections, same code in every language: each concept has a notebook per language, with
the same cells and headings in the same order, code cells identical once comments (and `_TEXT`
messages) are removed, and the same tags. Hands the problems found to the execute stage.
"""
import re

from coursebuild import course
from coursebuild.course import LANGS, REFERENCE


def parity_problems(only=None):
    """Everything that breaks 'same pages, same sections, same code' across languages."""
    problems = []
    names = {lang: {p.stem for p in (course.NOTEBOOKS / lang).glob("*.py") if not only or p.stem in only}
             for lang in LANGS}
    for lang in LANGS:
        for missing in sorted(names[REFERENCE] - names[lang]):
            problems.append(course.Problem(
                course.source(lang, missing),
                f"missing: translate {course.source(REFERENCE, missing).relative_to(course.ROOT)} into '{lang}'"))
        for extra in sorted(names[lang] - names[REFERENCE]):
            problems.append(course.Problem(
                course.source(lang, extra),
                f"has no '{REFERENCE}' original: add {course.source(REFERENCE, extra).relative_to(course.ROOT)} "
                "or rename this file to match it"))
    for concept in sorted(names[REFERENCE]):
        ref = course.read(REFERENCE, concept)
        ref_code = [course.strip_comments(c.source) for c in course.code_cells(ref)]
        ref_tags = [sorted(course.tags(c)) for c in course.code_cells(ref)]
        for lang in LANGS:
            if lang == REFERENCE or concept not in names[lang]:
                continue
            path = course.source(lang, concept)
            nb = course.read(lang, concept)
            if outline(nb) != outline(ref):
                problems.append(course.Problem(path, _outline_diff(outline(ref), outline(nb))))
            code = [course.strip_comments(c.source) for c in course.code_cells(nb)]
            if len(code) != len(ref_code):
                problems.append(course.Problem(path, f"has {len(code)} code cells, '{REFERENCE}' has "
                                              f"{len(ref_code)}: copy the code cells from the original"))
                continue
            for i, (mine, theirs) in enumerate(zip(code, ref_code)):
                if mine != theirs:
                    problems.append(course.Problem(path, f"code cell {i + 1} differs from '{REFERENCE}' "
                                                  "(only comments may differ): copy it from the original"))
            for i, (mine, theirs) in enumerate(zip((sorted(course.tags(c)) for c in course.code_cells(nb)), ref_tags)):
                if mine != theirs:
                    problems.append(course.Problem(path, f"code cell {i + 1} has tags {mine}, '{REFERENCE}' has "
                                                  f"{theirs}: use the same tags"))
    return problems


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


def _outline_diff(ref, mine):
    for i, (a, b) in enumerate(zip(ref, mine)):
        if a != b:
            return (f"cell {i + 1} is {b!r} but the '{REFERENCE}' original has {a!r} "
                    "(same cells and headings in every language)")
    return (f"has {len(mine)} cells, the '{REFERENCE}' original has {len(ref)} "
            "(same cells and headings in every language)")
