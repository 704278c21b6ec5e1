"""Heading ids and the table of contents of notebook pages, as on the Markdown pages.

mkdocs-jupyter folds headings to ASCII, so Japanese and Korean headings got empty ids; it reads the
table of contents from its own Markdown export, which drops inline code. add_anchor and toc_tokens
replace its two functions (coursebuild/patches.py installs them): the same Unicode-preserving slugify
as the Markdown pages (pymdownx.slugs, mkdocs.yml), on the notebook's Markdown cells as written. Hands
heading ids to the rendered page, and slugify to marks.py (links to the fact-check's sections).
"""
import json
from pathlib import Path

from markdown.extensions.toc import TocExtension
from pymdownx.slugs import slugify as slugs

# the heading ids of the Markdown pages (mkdocs.yml, toc: slugify), for the notebook pages too
slugify = slugs(case="lower")


def add_anchor(html, anchor_link_text="¶"):
    """mkdocs-jupyter's heading anchor, with a readable Unicode id instead of an ASCII-folded one."""
    from xml.etree.ElementTree import Element

    from defusedxml import ElementTree
    from nbconvert.filters.strings import html2text

    try:
        h = ElementTree.fromstring(html)
    except Exception:
        return html
    link = slugify(html2text(h), "-")
    h.set("id", link)
    anchor = Element("a", {"class": "anchor-link", "href": "#" + link})
    anchor.text = anchor_link_text
    h.append(anchor)
    return ElementTree.tostring(h).decode("utf-8", "replace")


def toc_tokens(fpath, toc_depth):
    """The table of contents from the notebook's Markdown cells as written. mkdocs-jupyter reads it from
    its own Markdown export, which drops inline code: a heading loses its `code`, and a question's
    choices (`- `fragment``) become bare "- " lines that Markdown reads as headings named "-"."""
    import markdown

    cells = json.loads(Path(fpath).read_text(encoding="utf-8"))["cells"]
    body = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    md = markdown.Markdown(extensions=["fenced_code", TocExtension(toc_depth=toc_depth, slugify=slugify)])
    md.convert(body)
    title = next((t["name"] for t in md.toc_tokens if t["level"] == 1), None)
    return md.toc_tokens, title
