"""The site's navigation (`nav` in mkdocs.yml): every concept must be listed there, or MkDocs builds its
pages and links them from nowhere. Hands the problems found to the execute stage.
"""
import re

from coursebuild import course
from coursebuild.course import REFERENCE


def nav():
    """The pages in the site's navigation (`nav` in mkdocs.yml): (its line, [(line, page)]), or None
    where there is no nav (MkDocs then lists every page)."""
    config = course.ROOT / "mkdocs.yml"
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
    for concept in course.concepts():
        page = f"{concept}.ipynb"
        if (only and concept not in only) or page in {p for _, p in listed}:
            continue
        before = [(n, p) for n, p in listed if p < page]
        after = f"after line {before[-1][0]} ({before[-1][1]})" if before else f"after line {start} (nav:)"
        message = f"is not in the site's navigation: add `  - {page}` to nav in mkdocs.yml, {after}."
        problems.append(course.Problem(course.source(REFERENCE, concept), message))
    return problems
