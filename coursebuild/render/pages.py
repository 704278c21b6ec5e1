"""A notebook page as the reader gets it, from the HTML mkdocs-jupyter rendered (notebook_html.py).

meta() (on_page_markdown) gives the page template (overrides/main.html) what it shows above a notebook:
the Colab and download links, the provenance line (device, versions, date), the link to the page's
other view (GPU record or CPU outputs). content() (on_page_content) links the shared CSS and script,
puts the page's language on the interface strings MkDocs and mkdocs-jupyter write in English, turns
cell tags into marks (marks.py), marks the questions (predict.py), closes the setup cell, adds the memory
calculator where a cell asks for it (calculator.py), and puts the title first. after_paint() (on_post_page) makes Material's script wait until the page is painted.
Hands each page's HTML to search and assets.
"""
import json
import posixpath
import re
from html import escape
from pathlib import Path
from urllib.parse import urljoin

from coursebuild.course import BuildError
from coursebuild.render import calculator, marks, notebook_html, predict


def meta(markdown, page, config, files):
    """Attach what the page template shows above a notebook: links and provenance."""
    if not page.file.src_uri.endswith(".ipynb"):
        return markdown
    nb = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
    meta = nb["metadata"].get("course")
    if meta is None:
        raise ValueError(f"{page.file.src_uri}: not produced by the build (coursebuild/execute); run ./scripts/build")
    lang, concept = meta["lang"], meta["concept"]
    twin = f"notebooks/{lang}/{concept}.ipynb"
    colab = config.extra["colab"]
    page.meta["notebook"] = {
        "colab": f"https://colab.research.google.com/github/{colab['repo']}/blob/{colab['branch']}/{twin}",
        "download": f"{concept}.ipynb",
        "provenance": meta["provenance"],
        "view": meta["view"],
        "alternate": meta["alternate"] and _link(page, meta["alternate"], files),
        # cells whose checks need a CUDA GPU: the provenance line says whether they ran here
        "gpu_only": sum(marks.GPU_ONLY in c.get("metadata", {}).get("tags", []) for c in nb["cells"]),
        "predict": predict.answer_key(page, nb),
        "setup": [i for i, c in enumerate(nb["cells"]) if marks.SETUP in c.get("metadata", {}).get("tags", [])],
        "summary": [i for i, c in enumerate(nb["cells"])
                    if c["cell_type"] == "markdown" and marks.SUMMARY in c.get("metadata", {}).get("tags", [])],
        "calculator": calculator.meta(nb, page.file.src_uri),
    }
    return markdown

# a link in a notebook's Markdown to another notebook of its language: `07-device-errors.ipynb#...`
NOTEBOOK_LINK = re.compile(r'href="(\d\d-[\w-]+\.ipynb)(#[^"]*)?"')


def _notebook_link(match, page, files):
    """The link as the site serves it: MkDocs rewrites links in Markdown pages, not in notebooks.
    (JupyterLab, VS Code and GitHub follow the notebook link as written.)"""
    target, anchor = match[1], match[2] or ""
    lang = page.file.src_uri.split("/", 1)[0]  # from a page's CPU view too, to the page itself
    other = files.get_file_from_path(f"{lang}/{target}")
    if other is None:
        source = Path(page.file.src_uri).stem
        raise BuildError(f"notebooks/{lang}/{source}.py links to {target}, which is not a notebook of this "
                         "language: link another notebook by its file name, e.g. 07-device-errors.ipynb#summary")
    return f'href="{escape(other.url_relative_to(page.file))}{anchor}"'


def _link(page, target, files):
    """URL of the page whose source is `target` (relative to this page's source), from this page."""
    src_uri = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
    other = files.get_file_from_path(src_uri)
    if other is None:
        raise ValueError(f"{page.file.src_uri}: its other view {src_uri} was not generated; run ./scripts/build")
    return other.url_relative_to(page.file)

TITLE = re.compile(r"<h1\b[^>]*>.*?</h1>", re.S)

# Where overrides/main.html puts the Colab and download buttons and the provenance line: under the title.
NB_HEAD = "<!-- nb-head -->"


def content(html, page, config, files):
    """Link the shared files that notebook_html.lean_nb2html put aside (the CSS and the copy-button script).
    Put the page's language on the interface strings that MkDocs and mkdocs-jupyter write in
    English, and turn cell tags into marks a reader understands."""
    labels = config.extra["labels"]
    html = html.replace('title="Permanent link"', f'title="{escape(labels["permalink"])}"')
    if "notebook" not in page.meta:
        return INLINE_CODE.sub(_unbroken_tokens, html)
    mark = notebook_html.assets_of(html)
    css, js = mark.groups()
    html = html[mark.end():]
    page.meta["notebook"]["css"] = notebook_html.shared_file(config, css)
    page.meta["notebook"]["js"] = notebook_html.shared_file(config, js)
    html = html.replace('aria-label="Copy to Clipboard"', f'aria-label="{escape(labels["copy"])}"')
    # the "Copied" notice, in the page's language, for extra.js to show: an attribute, not text of the
    # interface in the page's text, which search indexes and a reader's Ctrl+F finds
    html = html.replace("<clipboard-copy ", f'<clipboard-copy data-copied="{escape(labels["copied"])}" ')
    html = marks.TAG_TOOLBAR.sub(lambda m: marks.marks(m[2], page, config, files) + m[1], html)
    html = predict.mark_questions(html, page, labels)
    html = _setup_cells(html, page, labels)
    html, summary = _summary(html, page)
    html = calculator.insert(html, page, labels)
    names = iter(range(1, 10_000))  # the summary's code blocks first, as the page shows them
    summary = _name_markdown_code(summary, names)
    html = _name_markdown_code(html, names)
    html = NOTEBOOK_LINK.sub(lambda m: _notebook_link(m, page, files), html)
    # The title first, as on the Markdown pages (and styled like them), then the buttons and provenance.
    title = TITLE.search(html)
    if title is None:
        raise ValueError(f"{page.file.src_uri}: the notebook does not start with a '# title' cell")
    heading = title[0].replace('class="anchor-link"', 'class="headerlink"', 1)
    return heading + NB_HEAD + summary + html[:title.start()] + html[title.end():]

MARKDOWN_CODE = re.compile(r"<pre><code>")


def _name_markdown_code(html, names):
    """An id for each code block of the notebook's Markdown cells. Material names a block's copy target
    after its closest element with an id, here the cell (`cell-id=cell-7`), which is not a valid CSS
    selector: the copy button threw, and two blocks in one cell would share a name."""
    return MARKDOWN_CODE.sub(lambda m: f'<pre id="md-code-{next(names)}"><code>', html)


RENDERED_MARKDOWN = re.compile(r'<div class="[^"]*\bjp-RenderedMarkdown\b[^"]*"[^>]*>(.*)</div>\s*$', re.S)
SUMMARY_TITLE = re.compile(r"^\s*<p><strong>(.*?)</strong></p>", re.S)
HIGHLIGHTED_MARKDOWN_CODE = re.compile(r'<div class="highlight"><pre>(?:<span></span>)?(.*?)</pre>\s*</div>', re.S)


def _summary(html, page):
    """(the page without its summary cell, the summary as a box to put under the title and buttons).
    The cell tagged `summary` (the page's answer in a few lines, and the code to copy) follows the title
    cell in the notebook; on the site it is the first thing after the buttons and the provenance line,
    a Material admonition whose title is the cell's first bold line."""
    found = page.meta["notebook"]["summary"]
    if not found:
        return html, ""
    if len(found) > 1:
        raise ValueError(f"{page.file.src_uri}: cells {', '.join(str(i + 1) for i in found)} are all tagged summary; "
                         "a page has one summary")
    start, end = predict.cell_span(html, found[0], page)
    inner = RENDERED_MARKDOWN.search(html[start:end])
    if inner is None:
        raise ValueError(f"{page.file.src_uri}: cell {found[0] + 1}, tagged summary, is not a Markdown cell")
    body = SUMMARY_TITLE.sub(r'<p class="admonition-title">\1</p>', inner[1], count=1)
    # its code as a plain block, which Material gives a copy button (nbconvert's highlighted block has none)
    body = HIGHLIGHTED_MARKDOWN_CODE.sub(lambda m: "<pre><code>" + notebook_html.TAG.sub("", m[1]) + "</code></pre>", body)
    box = f'<div class="admonition abstract nb-summary" data-summary>{body}</div>'
    return html[:start] + html[end:], box


def _setup_cells(html, page, labels):
    """The notebook's setup cell (tag `setup`: imports, version check, helpers) closed behind a one-line
    summary in the page's language: the first code a reader sees open is the concept's own."""
    for index in page.meta["notebook"]["setup"]:
        start, end = predict.cell_span(html, index, page)
        html = (html[:start] + f'<details class="nb-setup"><summary>{escape(labels["setup"])}</summary>'
                + html[start:end] + "</details>" + html[end:])
    return html

# code in running text and tables (not a block: no <pre> before it, no highlighting <span> in it)
INLINE_CODE = re.compile(r"(?<!<pre>)(?<!</span>)<code>([^<]*)</code>")

# a token (no space in it) with a place where a line may break inside it: after - / ? ! } | %
BREAKABLE_TOKEN = re.compile(r"[^\s]*[-/?!}|%][^\s]+")


def _unbroken_tokens(code):
    """On the Markdown pages (the cheat sheets), code wraps at its spaces only: a token in which the
    line-breaking rules allow a break (`nvidia-smi`, a path) is kept whole (docs/assets/stylesheets/extra.css);
    a table too wide for a phone scrolls. (In a notebook's prose, a long path or URL may still wrap.)"""
    return "<code>" + BREAKABLE_TOKEN.sub(lambda t: f'<span class="nb-token">{t[0]}</span>', code[1]) + "</code>"

ALTERNATE = re.compile(r'(<link rel="alternate" href=")([^"]+)(" hreflang=")')

# Material's script tag, at the end of <body>: it waits with the page's other scripts until the page
# has been painted (overrides/partials/after-paint.html starts them and Material with them).
BUNDLE = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')

AFTER_PAINT = r'<script type="text/plain" data-after-paint="\1" data-material></script>'


def after_paint(html, name):
    """Material's script tag turned into one that overrides/partials/after-paint.html starts once the page is
    painted; a page without it means Material changed how it loads its script."""
    if not BUNDLE.search(html):
        raise ValueError(f"{name}: Material's bundle script not found; coursebuild/render/pages.py must learn "
                         "this Material version (coursebuild/patches.py, material-bundle-after-paint)")
    return BUNDLE.sub(AFTER_PAINT, html, count=1)


SEARCH_DIALOG = '<div class="md-search" data-md-component="search" role="dialog">'
SEARCH_LABEL = re.compile(r'<input type="text" class="md-search__input" name="query" aria-label="([^"]*)"')


def named_search(html, name):
    """Material's search is a role="dialog" without a name, which axe reports as serious (aria-dialog-name)
    whenever the dialog is exposed; it takes the name of its own search box (検索, 검색, Search).
    Guarded in coursebuild/patches.py (search-dialog-name)."""
    label = SEARCH_LABEL.search(html)
    if SEARCH_DIALOG not in html or label is None:
        if "md-search" not in html:
            return html  # a page without search
        raise ValueError(f"{name}: Material's search dialog not found as expected; coursebuild/render/pages.py "
                         "(named_search) must learn this Material version")
    return html.replace(SEARCH_DIALOG, SEARCH_DIALOG[:-1] + f' aria-label="{label[1]}">', 1)


def finished(output, page, config):
    """Notebook pages must come out rendered; a silently raw page is a build error."""
    if page.file.src_uri.endswith(".ipynb") and "jupyter-wrapper" not in output:
        raise ValueError(f"{page.file.src_uri}: rendered as raw source, not as a notebook")
    output = named_search(after_paint(output, page.file.src_uri), page.file.src_uri)
    # Search engines need the other-language alternates as absolute URLs.
    return ALTERNATE.sub(lambda m: m[1] + urljoin(page.canonical_url, m[2]) + m[3], output)
