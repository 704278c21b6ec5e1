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


NAME = re.compile(r"[\w.-]+")  # letters (any script), digits, _ . -


def _odd(name):
    return ", ".join(sorted({"a space" if c.isspace() else repr(c) for c in name if not NAME.fullmatch(c)}))


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
        if not NAME.fullmatch(concept):  # a space: mkdocs.yml's entry and the page's address break on it
            fixed = re.sub(r"[^\w.-]+", "-", concept).strip("-")
            problems.append(course.Problem(course.source(REFERENCE, concept), (
                f"the file name has a character a page address cannot keep ({_odd(concept)}): rename the notebook "
                f"in every language, e.g. git mv 'notebooks/{REFERENCE}/{concept}.py' notebooks/{REFERENCE}/{fixed}.py "
                "(and its .ipynb twin), and its nav entry in mkdocs.yml")))
            continue
        if (only and concept not in only) or page in {p for _, p in listed}:
            continue
        before = [(n, p) for n, p in listed if p < page]
        after = f"after line {before[-1][0]} ({before[-1][1]})" if before else f"after line {start} (nav:)"
        message = f"is not in the site's navigation: add `  - {page}` to nav in mkdocs.yml, {after}."
        problems.append(course.Problem(course.source(REFERENCE, concept), message))
    return problems
