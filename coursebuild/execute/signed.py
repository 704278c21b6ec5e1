"""The pages the build writes under docs/ (docs/<lang>/NN-name.ipynb), each signed with its path and a
hash: the build replaces or removes only files it wrote itself and nobody changed since; any other
notebook under docs/ stops the build, named, and stays as it is. Hands the pages to MkDocs (render).
"""
import hashlib
import json

import nbformat

from coursebuild import course
from coursebuild.course import BuildError

CPU_VIEW = "cpu"  # folder, under each language, of the CPU view of pages that show recorded outputs

# Every page the build writes carries this mark: the page's path under docs/ and a hash of the file
# with the hash left out. A file under docs/ is the build's to overwrite or remove only when its mark
# is there, names that very path and still matches the bytes (nobody changed the file since).
UNSIGNED = "sha256-of-this-file-with-this-value"


def page_text(nb, page):
    """The text of a generated page, signed for its path under docs/."""
    nb.metadata["course"]["generated"] = {"page": page, "sha256": UNSIGNED}
    text = nbformat.writes(nb)
    return text.replace(UNSIGNED, hashlib.sha256(text.encode()).hexdigest(), 1)


def written_by_build(path):
    """Whether the build wrote this file under docs/ and nobody changed it since."""
    page = path.relative_to(course.DOCS).as_posix()
    try:
        text = path.read_text(encoding="utf-8")
        meta = json.loads(text)["metadata"]["course"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    mark = meta.get("generated") if isinstance(meta, dict) else None
    if isinstance(mark, dict) and isinstance(mark.get("sha256"), str):
        unsigned = text.replace(mark["sha256"], UNSIGNED, 1)
        return mark.get("page") == page and hashlib.sha256(unsigned.encode()).hexdigest() == mark["sha256"]
    # Pages written before pages were signed: the build's metadata, at the path it gives.
    if mark is None and {"lang", "concept", "view"} <= set(meta):
        folder = f"{CPU_VIEW}/" if meta["view"] == "build" and meta.get("alternate") else ""
        return page == f"{meta['lang']}/{folder}{meta['concept']}.ipynb"
    return False


def foreign_notebooks():
    """Notebooks under docs/ that the build did not write (MkDocs skips hidden files and folders)."""
    found = []
    for path in sorted(course.DOCS.rglob("*.ipynb")):
        if any(part.startswith(".") for part in path.relative_to(course.DOCS).parts):
            continue
        if not written_by_build(path):
            found.append(path)
    return found


def refusal(paths):
    lines = []
    for path in paths:
        name = path.relative_to(course.ROOT)
        page = path.relative_to(course.DOCS)
        concept = path.stem
        if len(page.parts) >= 2 and page.parts[0] in course.LANGS and (course.NOTEBOOKS / page.parts[0] /
                                                                      f"{concept}.py").exists():
            lines.append(f"{name}: not the page the build wrote there (changed by hand?); the build will not "
                         "overwrite it.\n"
                         f"  Pages are generated from notebooks/{page.parts[0]}/{concept}.py: put your change "
                         f"there, then delete {name}.")
        else:
            lines.append(f"{name}: a notebook the build did not write; it leaves it untouched but cannot "
                         "publish it.\n  Pages come from notebooks/<lang>/NN-name.py (see notebooks/README.md): "
                         f"write it there in every language, or move {name} out of docs/.")
    return "\n".join(lines)


def write_page(path, nb):
    """Write a generated page (signed); True if the file changed."""
    text = page_text(nb, path.relative_to(course.DOCS).as_posix())
    if path.exists():
        if path.read_text(encoding="utf-8") == text:
            return False
        if not written_by_build(path):  # checked before the build started; re-checked just before writing
            raise BuildError(refusal([path]))
    course.write_atomic(path, text)
    return True
