"""MkDocs hooks that make mkdocs-static-i18n and mkdocs-jupyter work together.

Without them, notebook pages come out as raw source under i18n, Japanese and Korean headings get
empty ids, notebook pages do not switch language to the same page, and every notebook page inlines
~600 KB of CSS. They also give each notebook page its Colab link, download link and provenance
(rendered by overrides/main.html)."""
import ast
import contextlib
import hashlib
import json
import logging
import posixpath
import re
import shutil
import sys
from functools import lru_cache
from html import escape, unescape
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urljoin, urlsplit

import jinja2
import mkdocs_jupyter.convert
import mkdocs_jupyter.plugin
from markdown.extensions.toc import TocExtension
from mkdocs.plugins import event_priority
from pymdownx.slugs import slugify

log = logging.getLogger("mkdocs.hooks.course")


def _only_warnings(record):
    """Third-party chatter (a line per notebook and language: converted, cache hit, copied; i18n's
    config overrides) is dropped; their warnings and errors still show."""
    return record.levelno >= logging.WARNING


for _name in ("mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter",
              "mkdocs.plugins.mkdocs_static_i18n.reconfigure"):
    _logger = logging.getLogger(_name)
    if not any(getattr(f, "__name__", None) == "_only_warnings" for f in _logger.filters):
        _logger.addFilter(_only_warnings)

# MkDocs loads this file by its path (mkdocs.yml, hooks:), outside any package: make the package importable
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from coursebuild import course  # noqa: E402
from coursebuild.assets import minify as minify_pages, trim_css  # noqa: E402
from coursebuild.course import questions  # noqa: E402

# mkdocs-jupyter folds headings to ASCII, so Japanese and Korean headings get empty ids.
# Use the same Unicode-preserving slugify for the heading ids and for the table of contents.
_slugify = slugify(case="lower")


def _add_anchor(html, anchor_link_text="¶"):
    """mkdocs-jupyter's heading anchor, with a readable Unicode id instead of an ASCII-folded one."""
    from xml.etree.ElementTree import Element

    from defusedxml import ElementTree
    from nbconvert.filters.strings import html2text

    try:
        h = ElementTree.fromstring(html)
    except Exception:
        return html
    link = _slugify(html2text(h), "-")
    h.set("id", link)
    anchor = Element("a", {"class": "anchor-link", "href": "#" + link})
    anchor.text = anchor_link_text
    h.append(anchor)
    return ElementTree.tostring(h).decode("utf-8", "replace")


mkdocs_jupyter.convert.add_anchor_lower_id = _add_anchor


def _nb_toc_tokens(fpath, toc_depth):
    """The table of contents from the notebook's Markdown cells as written. mkdocs-jupyter reads it from
    its own Markdown export, which drops inline code: a heading loses its `code`, and a question's
    choices (`- `fragment``) become bare "- " lines that Markdown reads as headings named "-"."""
    import markdown

    cells = json.loads(Path(fpath).read_text(encoding="utf-8"))["cells"]
    body = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    md = markdown.Markdown(extensions=["fenced_code", TocExtension(toc_depth=toc_depth, slugify=_slugify)])
    md.convert(body)
    title = next((t["name"] for t in md.toc_tokens if t["level"] == 1), None)
    return md.toc_tokens, title


mkdocs_jupyter.plugin._get_nb_toc_tokens = _nb_toc_tokens

# mkdocs-jupyter's render cache: under i18n each language's build evicts the other languages'
# entries, and its key ignores this file. Key on this file too, and evict once, after all languages.
_HOOKS_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
_cache_key = mkdocs_jupyter.plugin._compute_cache_key
_cache_path = mkdocs_jupyter.plugin._get_cache_path
_used_cache_paths = set()


def _keyed_with_hooks(*args):
    return hashlib.sha256((_cache_key(*args) + _HOOKS_DIGEST).encode()).hexdigest()


class _AtomicPath(type(Path())):
    """The plugin writes its entries with path.write_text (UTF-8): write them whole or not at all."""

    def write_text(self, data, encoding=None, errors=None, newline=None):
        course.write_atomic(self, data)


_rendered = {"cached": 0, "rendered": 0}


def _recorded_cache_path(cache_dir, cache_key):
    path = _AtomicPath(_cache_path(cache_dir, cache_key))
    _used_cache_paths.add(path)
    _rendered["cached" if path.exists() else "rendered"] += 1
    if path.exists():  # a damaged entry (a killed write, a full disk) is a miss, never a crash
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            entry["toc_tokens"]  # noqa: B018
            _assets_of(entry["content"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.info("render cache entry %s is unreadable (%s): rendering the page again",
                        path, type(err).__name__)
            with contextlib.suppress(OSError):
                path.unlink()
            _rendered["cached"] -= 1
            _rendered["rendered"] += 1
    return path


mkdocs_jupyter.plugin._compute_cache_key = _keyed_with_hooks
mkdocs_jupyter.plugin._get_cache_path = _recorded_cache_path


_serving = False


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_env(env, config, files):
    """Keep compiled templates between builds: compiling Material's templates, once per language, is
    a third of an unchanged build."""
    env.bytecode_cache = jinja2.FileSystemBytecodeCache(str(_jinja_cache()))
    return env


@lru_cache(maxsize=None)
def _jinja_cache():
    folder = course.ROOT / ".cache" / "jinja"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def on_config(config):
    """Drop mkdocs-jupyter's own cache eviction, which runs after each language (see on_post_build)."""
    jupyter = config.plugins["mkdocs-jupyter"]
    config.plugins.events["post_build"] = [
        method for method in config.plugins.events["post_build"] if getattr(method, "__self__", None) is not jupyter]
    return config


@event_priority(-200)  # after i18n's on_post_build, which builds the other languages
def on_post_build(config):
    if config.plugins["i18n"].building:  # one language of several: the others still need their entries
        return
    cache_dir = Path(config.plugins["mkdocs-jupyter"].config["cache_dir"])
    for entry in cache_dir.glob("*.json"):
        if entry not in _used_cache_paths:
            entry.unlink()
    _used_cache_paths.clear()
    log.info("notebook pages: %d rendered, %d from the render cache", _rendered["rendered"], _rendered["cached"])
    _rendered.update(cached=0, rendered=0)
    site = Path(config.site_dir)
    # Only the styles the pages use (PurgeCSS, cached), inline in each page, then the pages minified.
    # Not while serving: a live reload must be quick, and it shows the same pages the same way.
    if not _serving:
        trim_css.trim(site)
        trim_css.inline(site, urlsplit(config.site_url or "/").path or "/")
        minify_pages.minify(site)


STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)
# nbconvert's MathJax and Mermaid loaders: unused here, and they point at third-party CDNs
# (an empty MathJax URL even makes the page load itself as a script).
UNUSED_SCRIPT = re.compile(r"<script[^>]*>(?:(?!</script>).)*?(?:mathjax|mermaid)(?:(?!</script>).)*</script>"
                           r"|<script src=\"\">\s*</script>", re.S | re.I)
INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
COPY_ICON = re.compile(r'<svg aria-hidden="true" class="clipboard-copy-icon".*?</svg>', re.S)
# The copy icon once, as a CSS mask, instead of an inline SVG in every code cell.
COPY_ICON_CSS = """.jupyter-wrapper .clipboard-copy-icon { display: inline-block; width: 20px; height: 20px;
  background-color: currentColor; -webkit-mask: var(--nb-copy-icon) center / contain no-repeat;
  mask: var(--nb-copy-icon) center / contain no-repeat;
  --nb-copy-icon: url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E%3Cpath d='M0 6.75C0 5.784.784 5 1.75 5h1.5a.75.75 0 010 1.5h-1.5a.25.25 0 00-.25.25v7.5c0 .138.112.25.25.25h7.5a.25.25 0 00.25-.25v-1.5a.75.75 0 011.5 0v1.5A1.75 1.75 0 019.25 16h-7.5A1.75 1.75 0 010 14.25v-7.5z'/%3E%3Cpath d='M5 1.75C5 .784 5.784 0 6.75 0h7.5C15.216 0 16 .784 16 1.75v7.5A1.75 1.75 0 0114.25 11h-7.5A1.75 1.75 0 015 9.25v-7.5zm1.75-.25a.25.25 0 00-.25.25v7.5c0 .138.112.25.25.25h7.5a.25.25 0 00.25-.25v-7.5a.25.25 0 00-.25-.25h-7.5z'/%3E%3C/svg%3E"); }"""
NOTEBOOK_ASSETS = "assets/notebook"
EMPTY_COLLAPSER = re.compile(r'<div class="jp-Collapser[^"]*">\s*</div>\n?')
CODE_BLOCK = re.compile(r'(<div class="highlight-ipynb[^"]*"><pre>)(.*?)(</pre>)', re.S)
TOKEN = re.compile(r'<span class="([\w-]+)">([^<]*)</span>')
TOKEN_STYLE = re.compile(r"\.highlight-ipynb \.([\w-]+)\s*\{([^}]*)\}")
PLAIN_TOKENS = {"p"}  # punctuation
# a token's text, then the next token: (kept text, class, next class)
SAME_STYLE = re.compile(r'(<span class="([\w-]+)">[^<]*)</span><span class="([\w-]+)">')
# nbconvert puts each of a cell's ~10 nested divs on its own line; the browser ignores that whitespace
BEFORE_DIV = re.compile(r"(?<=>)\s+(?=</?div[\s>])")
# nbconvert's Tab stops: every cell's input, every output
CELL_TAB_STOP = re.compile(r'(<div class="(?:jp-Cell-inputWrapper|[^"]*\bjp-OutputArea-output\b[^"]*)"[^>]*?) tabindex="0"')
TITLE = re.compile(r"<h1\b[^>]*>.*?</h1>", re.S)
# Where overrides/main.html puts the Colab and download buttons and the provenance line: under the title.
NB_HEAD = "<!-- nb-head -->"


# What every notebook page gets the same: mkdocs-jupyter inlines ~600 KB of CSS, the copy-button
# script and an icon per cell. _lean_nb2html puts the first two aside once, in files named by their
# hash, and leaves a mark that on_page_content turns into links to shared files.
ASSET_STORE = course.ROOT / ".cache" / "notebook-assets"
ASSETS = re.compile(r"<!-- nb-assets (\S+\.css) (\S+\.js) -->")
_nb2html = mkdocs_jupyter.convert.nb2html


def _lean_nb2html(*args, **kwargs):
    """mkdocs-jupyter's conversion, with the work that is the same for every page done before its
    render cache keeps the result (an unchanged build then reads and edits pages a quarter the size):
    CSS and script put aside, the copy icon as CSS, empty collapsers gone, code tokens unwrapped."""
    html = UNUSED_SCRIPT.sub("", _nb2html(*args, **kwargs))
    css = "\n".join(_stylesheets(STYLE.findall(html)) + [COPY_ICON_CSS])
    html = _copy_from_code(_plain_tokens(html, css))
    js = "\n;\n".join(INLINE_SCRIPT.findall(html))
    names = [_stored(css, "css"), _stored(js, "js")]
    html = COPY_ICON.sub('<span class="clipboard-copy-icon" aria-hidden="true"></span>',
                         INLINE_SCRIPT.sub("", STYLE.sub("", html)))
    # JupyterLab's cell collapsers are empty and do nothing on a static page (5 KB on a long one).
    html = BEFORE_DIV.sub("", EMPTY_COLLAPSER.sub("", html))
    # nbconvert makes every cell and output a Tab stop (three per code cell); a keyboard needs only the
    # copy buttons, and the code or output that scrolls sideways (docs/assets/javascripts/extra.js).
    html = CELL_TAB_STOP.sub(r"\1", html)
    return f"<!-- nb-assets {names[0]} {names[1]} -->" + html


mkdocs_jupyter.convert.nb2html = _lean_nb2html


# the code as Pygments shows it (_plain_tokens has run), then mkdocs-jupyter's copy of the cell's source
COPY_TEXT = re.compile(r'(<div class="highlight-ipynb[^"]*"><pre>)((?:(?!</pre>).)*)(</pre>\s*</div>)\s*'
                       r'<div (?:class="clipboard-copy-txt" id="([^"]+)"|id="([^"]+)" class="clipboard-copy-txt")>(.*?)</div>',
                       re.S)
TAG = re.compile(r"<[^>]+>")


def _copy_from_code(html):
    """The copy button copies the code the cell shows, which is made the cell's source byte for byte,
    instead of mkdocs-jupyter's second copy of it in a hidden <div>: that div's lines were collapsed
    into one by the page minifier (which keeps the whitespace of <pre> only), and it repeated every
    cell's source in the page (15 KB on the longest one). Pygments drops the source's leading and
    trailing newlines and ends the code with one; they are put back as the source has them."""
    def one(match):
        opening, shown, closing, cell_id, other_id, source = match.groups()
        cell_id = cell_id or other_id
        source = unescape(source)
        body = source.strip("\n")
        lead = source[:len(source) - len(source.lstrip("\n"))]
        trail = source[len(lead) + len(body):]
        shown = shown.removesuffix("\n")
        if unescape(TAG.sub("", shown)) != body:
            raise ValueError(f"a code cell's highlighted text is not its source ({body[:60]!r}...): the copy button "
                             "would copy something else; scripts/mkdocs_hooks.py must learn this nbconvert/Pygments")
        # the HTML parser drops a newline that directly follows <pre>: a source that starts with one needs two
        lead = "\n" + lead if lead else ""
        return f'{opening[:-1]} id="{cell_id}">{lead}{shown}{trail}{closing}'
    return COPY_TEXT.sub(one, html)


def _stored(text, suffix):
    name = f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.{suffix}"
    if not (ASSET_STORE / name).exists():
        course.write_atomic(ASSET_STORE / name, text)
    return name


def _assets_of(html):
    """The mark of a converted page, naming its (css, js) assets; ValueError when the mark or a file is
    missing (the render cache entry is then rendered again)."""
    mark = ASSETS.match(html)
    if mark is None or not all((ASSET_STORE / name).is_file() for name in mark.groups()):
        raise ValueError("notebook assets missing")
    return mark


@event_priority(-200)  # after mkdocs-static-i18n (-100), which rebuilds every file as a plain File
def on_files(files, config):
    """i18n drops mkdocs-jupyter's wrapper, so notebooks would be copied as raw source: wrap them again."""
    # Replace in place: i18n's Files subclass resolves nav paths per language.
    for file in [f for f in files if f.src_uri.endswith(".ipynb")]:
        if not isinstance(file, mkdocs_jupyter.plugin.NotebookFile):
            notebook = mkdocs_jupyter.plugin.NotebookFile(file, **config)
            # keep where i18n put the page (the default language lives at the site root)
            notebook.dest_path, notebook.abs_dest_path, notebook.url = file.dest_path, file.abs_dest_path, file.url
            files.remove(file)
            files.append(notebook)
            _link_translations(notebook, config)
    # i18n lists in the sitemap the pages it kept at its own on_files, Markdown pages only
    i18n = config.plugins["i18n"]
    i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


def _link_translations(notebook, config):
    """i18n links only Markdown pages to their translations (a plain File counts only *.md as a page);
    link notebook pages too, or their language switcher and hreflang alternates lead to the home pages."""
    i18n = config.plugins["i18n"]
    name = notebook.src_uri.split("/", 1)[1]  # docs/<lang>/<name>.ipynb
    here = i18n.current_language
    page = notebook.url.removeprefix(f"{here}/") if here != i18n.default_language else notebook.url
    notebook.alternates = {  # page: the sitemap template asks (its URL is the site_url joined with url)
        lang: SimpleNamespace(url=page if lang == i18n.default_language else f"{lang}/{page}", page=None)
        for lang in i18n.build_languages if (Path(config.docs_dir) / lang / name).is_file()
    }


def on_page_markdown(markdown, page, config, files):
    """Attach what the page template shows above a notebook: links and provenance."""
    if not page.file.src_uri.endswith(".ipynb"):
        return markdown
    nb = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))
    meta = nb["metadata"].get("course")
    if meta is None:
        raise ValueError(f"{page.file.src_uri}: not produced by scripts/execute.py; run ./scripts/build")
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
        "gpu_only": sum(GPU_ONLY in c.get("metadata", {}).get("tags", []) for c in nb["cells"]),
        "predict": _answer_key(page, nb),
        "setup": [i for i, c in enumerate(nb["cells"]) if SETUP in c.get("metadata", {}).get("tags", [])],
    }
    return markdown


def _answer_key(page, nb):
    """[(question cell index, index of the choice the asked cell's output shows, answer cell indices)].
    scripts/execute.py refuses to write a page whose outputs do not pick exactly one choice of each question."""
    key = []
    for question, _, hits in questions.answers(nb):
        if len(hits) != 1:
            raise ValueError(f"{page.file.src_uri}: cell {question.index + 1}, a question, is not answered by exactly "
                             "one choice of the next cell's output; run ./scripts/build")
        key.append((question.index, hits[0], question.answer_cells))
    return key


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
        raise ValueError(f"notebooks/{lang}/{source}.py links to {target}, which is not a notebook of this "
                         "language: link another notebook by its file name, e.g. 07-device-errors.ipynb#summary")
    return f'href="{escape(other.url_relative_to(page.file))}{anchor}"'


def _link(page, target, files):
    """URL of the page whose source is `target` (relative to this page's source), from this page."""
    src_uri = posixpath.normpath(posixpath.join(posixpath.dirname(page.file.src_uri), target))
    other = files.get_file_from_path(src_uri)
    if other is None:
        raise ValueError(f"{page.file.src_uri}: its other view {src_uri} was not generated; run ./scripts/build")
    return other.url_relative_to(page.file)


def on_page_content(html, page, config, files):
    """Link the shared files that _lean_nb2html put aside (the CSS and the copy-button script).
    Put the page's language on the interface strings that MkDocs and mkdocs-jupyter write in
    English, and turn cell tags into marks a reader understands."""
    labels = config.extra["labels"]
    html = html.replace('title="Permanent link"', f'title="{escape(labels["permalink"])}"')
    if "notebook" not in page.meta:
        return INLINE_CODE.sub(_unbroken_tokens, html)
    mark = _assets_of(html)
    css, js = mark.groups()
    html = html[mark.end():]
    page.meta["notebook"]["css"] = _shared_file(config, css)
    page.meta["notebook"]["js"] = _shared_file(config, js)
    html = html.replace('aria-label="Copy to Clipboard"', f'aria-label="{escape(labels["copy"])}"')
    html = html.replace(">Copied!</span>", f">{escape(labels['copied'])}</span>")
    html = TAG_TOOLBAR.sub(lambda m: _marks(m[1], page, config, files), html)
    html = _questions(html, page, labels)
    html = _setup_cells(html, page, labels)
    html = _name_markdown_code(html)
    html = NOTEBOOK_LINK.sub(lambda m: _notebook_link(m, page, files), html)
    # The title first, as on the Markdown pages (and styled like them), then the buttons and provenance.
    title = TITLE.search(html)
    if title is None:
        raise ValueError(f"{page.file.src_uri}: the notebook does not start with a '# title' cell")
    heading = title[0].replace('class="anchor-link"', 'class="headerlink"', 1)
    return heading + NB_HEAD + html[:title.start()] + html[title.end():]


MD_CELL = '<div class="jp-Cell jp-MarkdownCell jp-Notebook-cell'
CELL_OPENING = re.compile(r'<div class="jp-Cell [^"]*" id="cell-id=cell-(\d+)">')
# mkdocs-jupyter wraps each code cell in a second div, without the id, right before nbconvert's
WRAPPER_BEFORE = re.compile(r'<div class="jp-Cell jp-CodeCell [^"]*">\s*$')
DIV = re.compile(r"<div\b|</div>")
CHOICE_LIST = re.compile(r"<ul>(.*?)</ul>", re.S)
OUTPUT_WRAPPER = '<div class="jp-Cell-outputWrapper"'
PREDICT_LABELS = ("predict_correct", "predict_wrong", "predict_printed", "predict_pending", "predict_tally",
                  "predict_reset", "predict_show")


def _cell_span(html, index, page):
    """(start, end) of cell `index` in the page's HTML, its wrapper included."""
    found = next((m for m in CELL_OPENING.finditer(html) if int(m[1]) == index), None)
    if found is None:
        raise ValueError(f"{page.file.src_uri}: cell {index + 1} not found in the rendered page")
    window = max(0, found.start() - 300)
    wrapper = WRAPPER_BEFORE.search(html[window:found.start()])
    start = window + wrapper.start() if wrapper else found.start()
    depth = 0
    for tag in DIV.finditer(html, start):
        depth += 1 if tag[0] == "<div" else -1
        if depth == 0:
            return start, tag.end()
    raise ValueError(f"{page.file.src_uri}: cell {index + 1} is not closed in the rendered page")


MARKDOWN_CODE = re.compile(r"<pre><code>")


def _name_markdown_code(html):
    """An id for each code block of the notebook's Markdown cells. Material names a block's copy target
    after its closest element with an id, here the cell (`cell-id=cell-7`), which is not a valid CSS
    selector: the copy button threw, and two blocks in one cell would share a name."""
    names = iter(range(1, 10_000))
    return MARKDOWN_CODE.sub(lambda m: f'<pre id="md-code-{next(names)}"><code>', html)


def _setup_cells(html, page, labels):
    """The notebook's setup cell (tag `setup`: imports, version check, helpers) closed behind a one-line
    summary in the page's language: the first code a reader sees open is the concept's own."""
    for index in page.meta["notebook"]["setup"]:
        start, end = _cell_span(html, index, page)
        html = (html[:start] + f'<details class="nb-setup"><summary>{escape(labels["setup"])}</summary>'
                + html[start:end] + "</details>" + html[end:])
    return html


def _questions(html, page, labels):
    """Mark each question cell (data-predict: its number on the page; data-answer: the choice the asked
    cell's output shows) and its choices, and what stays closed until the reader answers (data-reveal:
    the asked cell's output, the answer's cells), for docs/assets/javascripts/predict.js; end the page
    with the tally the script keeps. Without JavaScript everything reads as written, in order."""
    key = page.meta["notebook"].get("predict") or []
    for number, (index, answer, answer_cells) in enumerate(key, 1):
        for cell in answer_cells:
            start, end = _cell_span(html, cell, page)
            html = html[:start] + f'<div class="predict-reveal" data-reveal="{number}">' + html[start:end] + "</div>" \
                + html[end:]
        start, end = _cell_span(html, index + 1, page)
        asked = html[start:end]
        if OUTPUT_WRAPPER not in asked:
            raise ValueError(f"{page.file.src_uri}: cell {index + 2}, which question {number} asks about, has no output")
        asked = asked.replace(OUTPUT_WRAPPER, f'{OUTPUT_WRAPPER} data-reveal="{number}"', 1)
        html = html[:start] + asked + html[end:]
        start, end = _cell_span(html, index, page)
        cell = html[start:end]
        lists = list(CHOICE_LIST.finditer(cell))
        if not lists:
            raise ValueError(f"{page.file.src_uri}: question cell {index + 1} has no list of choices")
        last = lists[-1]
        items = iter(range(100))
        choices = re.sub(r"<li>", lambda m: f'<li data-choice="{next(items)}">', last[1])
        cell = cell[:last.start()] + f'<ul class="predict-choices">{choices}</ul>' + cell[last.end():]
        cell = cell.replace(f'" id="cell-id=cell-{index}">',
                            f' predict" id="cell-id=cell-{index}" data-predict="{number}" data-answer="{answer}" '
                            f'data-output="cell-id=cell-{index + 1}">', 1)
        html = html[:start] + cell + html[end:]
    if key:
        data = " ".join(f'data-{k.removeprefix("predict_")}="{escape(labels[k])}"' for k in PREDICT_LABELS)
        html += f'<div class="predict-tally" data-predict-tally {data} hidden></div>'
    return html


def _plain_tokens(html, css):
    """Pygments wraps every token of the code in a span, and most of them change nothing a reader
    sees: names (no style), whitespace, the dot in `torch.cuda` (a bold dot looks like a plain one),
    and neighbours of the same style (the pieces of an f-string). Brackets and commas are drawn in the
    text colour. Together this takes a quarter off a long notebook page and keeps the longest within
    the first-visit budget (tests/test_site.py)."""
    style = dict(TOKEN_STYLE.findall(css))

    def keep(token):
        cls, text = token[1], token[2]
        return token[0] if cls in style and cls not in PLAIN_TOKENS and text.strip() and text != "." else text

    def join(pair):
        return pair[1] if style.get(pair[2]) == style.get(pair[3]) else pair[0]

    def code(block):
        body, joined = TOKEN.sub(keep, block[2]).replace("<span></span>", "", 1), None
        while joined != body:  # each pass joins every other neighbour of a run
            joined, body = body, SAME_STYLE.sub(join, body)
        return block[1] + body + block[3]

    return CODE_BLOCK.sub(code, html)


def _stylesheets(styles):
    """The page's <style> texts. mkdocs-jupyter 0.26 also writes the Pygments styles as a Python list
    (`['pre { ... }']`), which is not CSS: the browser drops it whole and PurgeCSS cannot parse it.
    Its items are the Pygments styles the page already has; keep any that are not."""
    kept = []
    for text in styles:
        if text.strip().startswith("['"):
            items = ast.literal_eval(text.strip())
            kept += [item for item in items if item.strip() not in {k.strip() for k in kept}]
        else:
            kept.append(text)
    return kept


# code in running text and tables (not a block: no <pre> before it, no highlighting <span> in it)
INLINE_CODE = re.compile(r"(?<!<pre>)(?<!</span>)<code>([^<]*)</code>")
# a token (no space in it) with a place where a line may break inside it: after - / ? ! } | %
BREAKABLE_TOKEN = re.compile(r"[^\s]*[-/?!}|%][^\s]+")


def _unbroken_tokens(code):
    """On the Markdown pages (the cheat sheets), code wraps at its spaces only: a token in which the
    line-breaking rules allow a break (`nvidia-smi`, a path) is kept whole (docs/assets/stylesheets/extra.css);
    a table too wide for a phone scrolls. (In a notebook's prose, a long path or URL may still wrap.)"""
    return "<code>" + BREAKABLE_TOKEN.sub(lambda t: f'<span class="nb-token">{t[0]}</span>', code[1]) + "</code>"


GPU_ONLY = "gpu-only"
SETUP = "setup"
FACT_CHECK = "06-fact-check"  # the page with a section, and a verdict, for each popular claim
# mkdocs-jupyter shows each cell tag as a gray chip above the code
TAG_TOOLBAR = re.compile(r'<div class="celltoolbar">(.*?)</div>\s*(?=<div class="CodeMirror)', re.S)
CELL_TAG = re.compile(r'<span class="cell-tag">([^<]*)</span>')
MD_HEADING = re.compile(r"^##\s+(.+?)\s*#*\s*$", re.M)


def _marks(toolbar, page, config, files):
    """The cell's tags as marks: a claim checked on the fact-check page links to its section there
    (same language), `gpu-only` says where its checks run; other tags are machinery: hidden."""
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
            if other is None:
                continue
            href = other.url_relative_to(page.file) + "#" + anchor
            marks.append(f'<a class="nb-mark nb-mark--claim" href="{escape(href)}" title="{escape(heading)}">'
                         f'{escape(labels["claim"])}</a>')
    return f'<div class="nb-marks">{"".join(marks)}</div>' if marks else ""


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
                heading = (_slugify(text, "-"), text)
            continue
        for tag in cell.get("metadata", {}).get("tags", []):
            if tag.startswith("claim-") and heading is not None:
                sections.setdefault(tag, heading)
    return sections


def _shared_file(config, name):
    """The asset `name` (from the asset store) in the site, once for all pages; its URL from the root."""
    target = Path(config.site_dir) / NOTEBOOK_ASSETS / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ASSET_STORE / name, target)
    return f"{NOTEBOOK_ASSETS}/{name}"


ALTERNATE = re.compile(r'(<link rel="alternate" href=")([^"]+)(" hreflang=")')
# Material's script tag, at the end of <body>: it waits with the page's other scripts until the page
# has been painted (overrides/partials/after-paint.html starts them and Material with them).
BUNDLE = re.compile(r'<script src="([^"]*assets/javascripts/bundle\.[0-9a-f]+\.min\.js)"></script>')
AFTER_PAINT = r'<script type="text/plain" data-after-paint="\1" data-material></script>'


def _bundle_after_paint(html, name):
    if not BUNDLE.search(html):
        raise ValueError(f"{name}: Material's bundle script not found; scripts/mkdocs_hooks.py must learn this "
                         "Material version")
    return BUNDLE.sub(AFTER_PAINT, html, count=1)


def on_template_context(context, template_name, config):
    """The 404 page's language switcher leads to each language's home: i18n leaves it pointing at the
    translations of the last page built."""
    if template_name == "404.html" and config.extra.get("alternate"):
        i18n, base = config.plugins["i18n"], urlsplit(config.site_url or "/").path.rstrip("/")
        # as an attribute, as i18n sets it for each page (the template reads the attribute first)
        config.extra.alternate = [{**alt, "link": base + i18n.get_language_config(alt["lang"]).link}
                                  for alt in config.extra["alternate"]]
    return context


@event_priority(-100)  # last: the page as scripts/search_hooks.py leaves it (searching its language)
def on_post_template(output, template_name, config):
    """Pages MkDocs renders from a template alone (404.html) load Material's script too. Each language's
    404 page goes to its own folder (i18n writes them all to the root, the last built winning): the root
    one, the default language's, is the one GitHub Pages serves, and it sends a reader of another
    language's missing page to that language's (overrides/404.html)."""
    output = BUNDLE.sub(AFTER_PAINT, output, count=1)
    i18n = config.plugins["i18n"]
    if template_name == "404.html" and i18n.current_language != i18n.default_language:
        course.write_atomic(Path(config.site_dir) / i18n.current_language / template_name, output)
        return ""  # MkDocs writes nothing for an empty page
    return output


def on_post_page(output, page, config):
    """Notebook pages must come out rendered; a silently raw page is a build error."""
    if page.file.src_uri.endswith(".ipynb") and "jupyter-wrapper" not in output:
        raise ValueError(f"{page.file.src_uri}: rendered as raw source, not as a notebook")
    output = _bundle_after_paint(output, page.file.src_uri)
    # Search engines need the other-language alternates as absolute URLs.
    return ALTERNATE.sub(lambda m: m[1] + urljoin(page.canonical_url, m[2]) + m[3], output)
