"""Cell tags as marks a reader understands: a claim the fact-check page discusses links to its section
there (same language), `gpu-only` says where its checks run; other tags are the build's machinery and
are hidden. Hands the marks (HTML above each cell) back to pages.py.
"""
import json
import re
from functools import lru_cache
from html import escape, unescape
from pathlib import Path

from coursebuild.render.headings import slugify

GPU_ONLY = "gpu-only"

SETUP = "setup"

SUMMARY = "summary"

FACT_CHECK = "06-fact-check"  # the page with a section, and a verdict, for each popular claim

# mkdocs-jupyter shows each cell tag as a gray chip in the code's box, where the copy button is
TAG_TOOLBAR = re.compile(r'(<div class="jp-InputArea-editor">)<div class="celltoolbar">(.*?)</div>\s*(?=<clipboard-copy)', re.S)

CELL_TAG = re.compile(r'<span class="cell-tag">([^<]*)</span>')

MD_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)


def marks(toolbar, page, config, files):
    """The cell's tags as marks: a claim checked on the fact-check page links to its section there
    (same language), `gpu-only` says where its checks run; other tags are machinery: hidden. The marks
    go above the code's box, not in it under the copy button, and without a box of their own (extra.css
    lines them up on the right)."""
    labels = config.extra["labels"]
    marks = []
    for tag in CELL_TAG.findall(toolbar):
        tag = unescape(tag)
        if tag == GPU_ONLY:
            marks.append(f'<span class="nb-mark nb-mark--gpu" title="{escape(labels["gpu_only_title"])}">'
                         f'{escape(labels["gpu_only"])}</span>')
        elif tag.startswith("claim-"):
            target = _fact_check_sections(*_fact_check_source(config, page)).get(tag)
            if target is None:  # a fact the course teaches, not a popular claim with a verdict
                continue
            anchor, heading = target
            other = files.get_file_from_path(f"{page.file.src_uri.split('/', 1)[0]}/{FACT_CHECK}.ipynb")
            if other is None or other is page.file:  # on the fact-check page the cell sits in its section
                continue
            href = other.url_relative_to(page.file) + "#" + anchor
            marks.append(f'<a class="nb-mark nb-mark--claim" href="{escape(href)}" title="{escape(heading)}">'
                         f'{escape(labels["claim"])}</a>')
    return "".join(marks)


def _fact_check_source(config, page):
    path = Path(config.docs_dir) / page.file.src_uri.split("/", 1)[0] / f"{FACT_CHECK}.ipynb"
    return str(path), path.stat().st_mtime_ns if path.is_file() else None


@lru_cache(maxsize=None)
def _fact_check_sections(path, mtime):
    """{'claim-M1': (heading id, heading text)}: the fact-check section whose cells carry each tag."""
    import markdown
    from nbconvert.filters.strings import html2text

    if mtime is None:
        return {}
    path = Path(path)
    sections, heading = {}, None
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "markdown":
            found = MD_HEADING.findall(source)
            if found:
                from xml.etree.ElementTree import fromstring
                text = html2text(fromstring(markdown.markdown("## " + found[-1])))
                heading = (slugify(text, "-"), text)
            continue
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith("claim-") and heading is not None:
                sections.setdefault(tag, heading)
    return sections
