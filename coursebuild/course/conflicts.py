"""Merge-conflict markers left in a notebook or a page: git leaves `<<<<<<< HEAD`, `=======` and
`>>>>>>> branch` around the two sides of a conflict, and both sides were published (in a Markdown
cell, `=======` even turned the line above into a second title). Hands the problems found, each naming
the file and line, to the execute stage and to ./scripts/sync, which stop before writing anything.
"""
import re

from coursebuild import course

# at the start of a line, also in a percent notebook's Markdown (`# <<<<<<< HEAD`)
MARKER = re.compile(r"^(?:# ?)?(<{7}(?: .*)?|>{7}(?: .*)?|\|{7}(?: .*)?)$", re.M)


def files():
    found = [p for lang in course.LANGS for p in sorted((course.NOTEBOOKS / lang).glob("*.py"))]
    found += [p for lang in course.LANGS for p in sorted((course.NOTEBOOKS / lang).glob("*.ipynb"))]
    return found + sorted(p for p in course.DOCS.rglob("*.md") if not any(part.startswith(".") for part in p.parts))


def conflict_problems():
    problems = []
    for path in files():
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        marker = MARKER.search(text) if "<<<<<<<" in text or ">>>>>>>" in text else None
        if marker:
            line = text.count("\n", 0, marker.start()) + 1
            problems.append(course.Problem(path, f"line {line}: a merge-conflict marker, `{marker[1][:40]}`: resolve "
                                                 "the conflict (keep the right side, delete the marker lines "
                                                 "<<<<<<< ======= >>>>>>>), then build again."))
    return problems
