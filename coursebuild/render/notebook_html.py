"""A notebook as HTML: mkdocs-jupyter's conversion (nbconvert), made lean before its render cache keeps it.

What is the same on every notebook page is put aside once: mkdocs-jupyter inlines ~600 KB of CSS and
the copy-button script in every page; lean_nb2html stores them in .cache/notebook-assets/ under their
hash and leaves a mark that the page (pages.py) turns into links to shared files in the site. It also
draws the copy icon with CSS, drops empty collapsers, unwraps code tokens that change nothing a reader
sees, makes each copy button copy the code the cell shows, and hands the colours of the code to the
browser's highlight API instead of a <span> per token. coursebuild/patches.py installs lean_nb2html in
place of mkdocs-jupyter's nb2html; hands HTML (and the asset mark) to the render cache.
"""
import ast
import hashlib
import re
import shutil
from html import unescape
from pathlib import Path

import mkdocs_jupyter.convert

from coursebuild import course

STYLE = re.compile(r"<style[^>]*>(.*?)</style>", re.S)

# nbconvert's MathJax and Mermaid loaders: unused here, and they point at third-party CDNs
# (an empty MathJax URL even makes the page load itself as a script).
UNUSED_SCRIPT = re.compile(r"<script[^>]*>(?:(?!</script>).)*?(?:mathjax|mermaid)(?:(?!</script>).)*</script>"
                           r"|<script src=\"\">\s*</script>", re.S | re.I)

INLINE_SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)

COPY_ICON = re.compile(r'<svg aria-hidden="true" class="clipboard-copy-icon".*?</svg>', re.S)

# The copy icon once, as a CSS mask on the button, instead of an inline SVG (or a <span>) in every code cell.
COPY_ICON_CSS = """.jupyter-wrapper clipboard-copy::before { content: ""; display: inline-block; width: 15px; height: 20px;
  vertical-align: text-bottom; color: #57606a;
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

# inside a copy button: the "Copied" notice (extra.js makes it when a reader first copies), and a <div>
# and an icon that CSS draws instead (COPY_ICON_CSS)
COPY_BUTTON_INSIDE = re.compile(r'<div>\s*<span class="notice" hidden(?:="")?>[^<]*</span>\s*'
                                r'<span class="clipboard-copy-icon" aria-hidden="true"></span></div>\s*')

# JupyterLab's layout boxes around each cell's input, its outputs and each output, and CodeMirror's and
# Pygments' around the code: on a static page they only nest what they hold (extra.css lays the cell out
# without them, and the code's <pre> is its own scrolling box)
LAYOUT_BOX = re.compile(r'<div class="(?:jp-Cell-inputWrapper|jp-InputArea jp-Cell-inputArea|jp-OutputArea-child'
                        r'|jp-Cell-outputWrapper|zeroclipboard-container|CodeMirror cm-s-jupyter|highlight-ipynb[^"]*)"[^>]*>')

# mkdocs-jupyter wraps each code cell in a second cell <div>, without the id, around nbconvert's
CELL_TWICE = re.compile(r'<div class="jp-Cell jp-CodeCell[^"]*">(?=<div class="jp-Cell jp-CodeCell[^"]*" id=)')

# nbconvert's Tab stops: every cell's input, every output
CELL_TAB_STOP = re.compile(r'(<div class="(?:jp-Cell-inputWrapper|[^"]*\bjp-OutputArea-output\b[^"]*)"[^>]*?) tabindex="0"')

# mkdocs-jupyter's template writes `<clipboard-copy for="cell-1", aria-label=...>`: the comma is read
# as an attribute named "," (`,=""` once sanitize.py has serialized the page)
STRAY_COMMA = re.compile(r'(<clipboard-copy\b[^>]*?)\s,(?:="")?(?=[\s>])')

# classes and attributes of JupyterLab's markup that nothing styles or reads on a static page (JupyterLab's
# editor and drag-and-drop rules are trimmed away; what is left of .jp-MarkdownOutput sets what a <div>
# has anyway): about 5 KB of a long page
UNUSED_MARKUP = re.compile(r'(?<=[" ])jp-Notebook-cell(?=[" ])|(?<=")jp-CodeMirrorEditor jp-Editor (?=jp-InputArea-editor")'
                           r'|(?<=jp-InputArea-editor") data-type="inline"'
                           r'| data-mime-type="text/markdown"|(?<=jp-RenderedMarkdown) jp-MarkdownOutput(?=[" ])')

# What every notebook page gets the same: mkdocs-jupyter inlines ~600 KB of CSS, the copy-button
# script and an icon per cell. lean_nb2html puts the first two aside once, in files named by their
# hash, and leaves a mark that on_page_content turns into links to shared files.
ASSET_STORE = course.ROOT / ".cache" / "notebook-assets"
NB2HTML = mkdocs_jupyter.convert.nb2html  # mkdocs-jupyter's own, which lean_nb2html wraps

ASSETS = re.compile(r"<!-- nb-assets (\S+\.css) (\S+\.js) -->")


def lean_nb2html(*args, **kwargs):
    """mkdocs-jupyter's conversion, with the work that is the same for every page done before its
    render cache keeps the result (an unchanged build then reads and edits pages a quarter the size):
    CSS and script put aside, the copy icon as CSS, empty collapsers gone, code tokens unwrapped."""
    html = UNUSED_SCRIPT.sub("", NB2HTML(*args, **kwargs))
    css = "\n".join(_stylesheets(STYLE.findall(html)) + [COPY_ICON_CSS])
    html = _as_ranges(_copy_from_code(_plain_tokens(html, css)), css)
    css = _without_dead_rules(css) + "\n" + _highlight_css(css)
    js = "\n;\n".join(INLINE_SCRIPT.findall(html))
    names = [_stored(css, "css"), _stored(js, "js")]
    html = COPY_ICON.sub('<span class="clipboard-copy-icon" aria-hidden="true"></span>',
                         INLINE_SCRIPT.sub("", STYLE.sub("", html)))
    # JupyterLab's cell collapsers are empty and do nothing on a static page (5 KB on a long one).
    html = BEFORE_DIV.sub("", EMPTY_COLLAPSER.sub("", html))
    html = _lean_cells(COPY_BUTTON_INSIDE.sub("", html))
    # nbconvert makes every cell and output a Tab stop (three per code cell); a keyboard needs only the
    # copy buttons, and the code or output that scrolls sideways (docs/assets/javascripts/extra.js).
    html = CELL_TAB_STOP.sub(r"\1", html)
    html = STRAY_COMMA.sub(r"\1", html)
    html = UNUSED_MARKUP.sub("", html)
    return f"<!-- nb-assets {names[0]} {names[1]} -->" + html


def _lean_cells(html):
    """The cells without the layout boxes (LAYOUT_BOX) and mkdocs-jupyter's second cell <div>
    (CELL_TWICE), a Markdown cell one box with its rendered Markdown (MARKDOWN_CELL): eight of the
    fifteen elements a code cell had, three of a Markdown cell's four. With the copy button's inside
    and the token spans (_as_ranges), this halves a long page's elements."""
    html = _without_divs(html, lambda tag: LAYOUT_BOX.fullmatch(tag[0]) or CELL_TWICE.match(tag.string, tag.start()))
    return _without_divs(MARKDOWN_CELL.sub(_merged_markdown_cell, html), lambda tag: tag[0] == MERGED)


# a Markdown cell and, right inside it once the layout boxes are gone, the box of its rendered Markdown
MARKDOWN_CELL = re.compile(r'<div class="(jp-Cell jp-MarkdownCell[^"]*)"([^>]*)>'
                           r'<div class="(jp-RenderedHTMLCommon jp-RenderedMarkdown[^"]*)"([^>]*)>')

MERGED = "<div data-merged>"  # where the inner box opened, until _without_divs takes it out with its </div>


def _merged_markdown_cell(cell):
    outer, outer_attrs, inner, inner_attrs = cell.groups()
    return f'<div class="{" ".join(outer.split() + inner.split())}"{outer_attrs}{inner_attrs}>{MERGED}'


def _without_divs(html, drop):
    """`html` without the <div>s for which drop(match of the opening tag) is true, and their </div>s,
    keeping what they hold."""
    out, last, closing = [], 0, []  # closing: depths at which a removed box's </div> comes
    depth = 0
    for tag in re.finditer(r'<div\b[^>]*>|</div>', html):
        if tag[0] == "</div>":
            depth -= 1
            if closing and closing[-1] == depth:
                closing.pop()
                out.append(html[last:tag.start()])
                last = tag.end()
            continue
        if drop(tag):
            out.append(html[last:tag.start()])
            last = tag.end()
            closing.append(depth)
        depth += 1
    out.append(html[last:])
    return "".join(out)


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
                             "would copy something else; coursebuild/render/notebook_html.py must learn this nbconvert/Pygments")
        # the HTML parser drops a newline that directly follows <pre>: a source that starts with one needs two
        lead = "\n" + lead if lead else ""
        return f'{opening[:-1]} id="{cell_id}">{lead}{shown}{trail}{closing}'
    return COPY_TEXT.sub(one, html)


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


# a highlighted code cell once _copy_from_code has run: its <pre> holds the text and the tokens' spans
HIGHLIGHTED = re.compile(r'(<div class="highlight-ipynb[^"]*"><pre id="[^"]+")>(.*?)(?=</pre>)', re.S)

# what the CSS Custom Highlight API can draw (no font-weight, no font-style)
HIGHLIGHT_PROPERTY = re.compile(r"^\s*(color|background-color|text-decoration[\w-]*)\s*:", re.I)


def _group_names(css):
    """{token class: the name of its colour group}: token classes drawn alike share one highlight."""
    style = {cls: _drawn(decls) for cls, decls in TOKEN_STYLE.findall(css)}
    first = {}
    for cls in sorted(style):
        first.setdefault(style[cls], cls)
    return {cls: first[drawn] for cls, drawn in style.items() if drawn}


def _drawn(declarations):
    return "; ".join(d.strip() for d in declarations.split(";") if HIGHLIGHT_PROPERTY.match(d))


def _as_ranges(html, css):
    """The code's colours as ranges of its text (data-hl on the <pre>), which
    docs/assets/javascripts/highlight.js hands to the browser's CSS Custom Highlight API: coloured code
    without an element per token. A long page had a thousand token <span>s, 40 % of its elements
    (Lighthouse's dom-size), and 20 KB of markup. A browser without the API shows the code uncoloured.
    data-hl: `group=gap:length,gap:length;group=...`, offsets in characters of the <pre>'s text as the
    browser holds it (the HTML parser drops a newline right after <pre>), gaps from the previous token
    of the group."""
    names = _group_names(css)

    def one(match):
        opening, body = match.groups()
        pos = -1 if body.startswith("\n") else 0
        text, ranges, last = [], {}, 0
        for token in TOKEN.finditer(body):
            before = body[last:token.start()]
            text.append(before)
            pos += len(unescape(before))
            length = len(unescape(token[2]))
            if token[1] in names:
                ranges.setdefault(names[token[1]], []).append((pos, length))
            text.append(token[2])
            pos += length
            last = token.end()
        text.append(body[last:])
        text = "".join(text)
        if "<" in text:
            raise ValueError(f"a code cell keeps markup after its tokens were taken out ({text[:60]!r}...): "
                             "coursebuild/render/notebook_html.py must learn this nbconvert/Pygments")
        if not ranges:
            return opening + ">" + text
        groups = []
        for name, spans in sorted(ranges.items()):
            end, pairs = 0, []
            for start, length in spans:
                pairs.append(f"{start - end}:{length}")
                end = start + length
            groups.append(f"{name}={','.join(pairs)}")
        return f'{opening} data-hl="{";".join(groups)}">{text}'

    return HIGHLIGHTED.sub(one, html)


def _highlight_css(css):
    """::highlight() rules for the colour groups, drawn as the Pygments rules drew their tokens; on the
    code's <pre> only (a rule on every element of the notebook costs style work on every element)."""
    style = dict(TOKEN_STYLE.findall(css))
    return "\n".join(f".jp-InputArea-editor > pre::highlight(nb-{name}) {{ {_drawn(style[name])} }}"
                     for name in sorted(set(_group_names(css).values())))


# rules the page can no longer match: Pygments' token classes (the code's colours are ranges now,
# _as_ranges), and nbconvert's scoping of JupyterLab's document rules (`.jupyter-wrapper body`: the
# wrapper is inside <body>). PurgeCSS keeps them (a class in a script, an element on the page). 3 KB.
CSS_RULE = re.compile(r"([^{}]+)\{[^{}]*\}\s*")
DEAD_SELECTOR = re.compile(r"^\s*(?:/\*.*?\*/\s*)*(?:\.highlight-ipynb \.[\w-]+\s*$|\.jupyter-wrapper (?:html|body|:root)\b)", re.S)


def _without_dead_rules(css):
    """The notebook stylesheet without rules whose every selector is dead (DEAD_SELECTOR); the token
    colours have been read by then (_plain_tokens, _highlight_css)."""
    def one(rule):
        return "" if all(DEAD_SELECTOR.match(s) for s in rule[1].split(",")) else rule[0]
    return CSS_RULE.sub(one, css)


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


def _stored(text, suffix):
    name = f"{hashlib.sha256(text.encode()).hexdigest()[:12]}.{suffix}"
    if not (ASSET_STORE / name).exists():
        course.write_atomic(ASSET_STORE / name, text)
    return name


def assets_of(html):
    """The mark of a converted page, naming its (css, js) assets; ValueError when the mark or a file is
    missing (the render cache entry is then rendered again)."""
    mark = ASSETS.match(html)
    if mark is None or not all((ASSET_STORE / name).is_file() for name in mark.groups()):
        raise ValueError("notebook assets missing")
    return mark


def shared_file(config, name):
    """The asset `name` (from the asset store) in the site, once for all pages; its URL from the root."""
    target = Path(config.site_dir) / NOTEBOOK_ASSETS / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ASSET_STORE / name, target)
    return f"{NOTEBOOK_ASSETS}/{name}"
