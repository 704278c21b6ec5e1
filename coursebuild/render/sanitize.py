"""Content is text, code and images, never script: the HTML of Markdown cells and of HTML outputs is
cleaned with an allowlist before it reaches a page.

Before, an `<img onerror>` in a Markdown cell, an `<svg onload>` in a heading and an
`IPython.display.HTML` output ran on every language's page, and the output's `<script>` was moved into
the page's shared script asset. nbconvert can sanitize (HTMLExporter.sanitize_html: Markdown cells,
HTML, Markdown and SVG outputs, raw cells; JavaScript outputs are then not written at all), but its
`clean_html` filter is bleach, which is deprecated (2023: security fixes only, html5lib unmaintained),
and mkdocs-jupyter replaces that filter with one that does nothing. Weighed: bleach (already
installed, through nbconvert) and nh3 (Python binding of the Rust ammonia, maintained, an allowlist
parsed with html5ever as a browser parses). nh3 is used. patches.py ("sanitize-html") installs
Exporter in mkdocs-jupyter's place of HTMLExporter; the page's Content-Security-Policy (csp.py) is
the second line, for what an allowlist might miss.

Allowed: what Markdown writes and what tables and rich outputs need, with classes and ids (heading
anchors), links (http, https, mailto, relative) and images (also data:image URLs). Not allowed: any
script, event handler, style, SVG, form, frame, object. An id that starts with two underscores is
dropped: Material finds its own components by such ids (`__config` holds its settings).
"""
import nh3
from nbconvert.exporters.html import HTMLExporter

TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "cite", "code", "col", "colgroup", "dd", "del",
    "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6",
    "hr", "i", "img", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "s", "samp", "small", "span",
    "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "time", "tr", "u",
    "ul", "var", "wbr",
}
ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "dir"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "col": {"span"}, "colgroup": {"span"},
    "ol": {"start", "type"},
    "details": {"open"},
    "time": {"datetime"},
}
SCHEMES = {"http", "https", "mailto", "data"}
DATA_IMAGE = ("data:image/png;", "data:image/jpeg;", "data:image/gif;", "data:image/webp;", "data:image/svg+xml;")


def _attribute(tag, name, value):
    """data: URLs only as images (an <img> never runs what it shows); no id Material's script looks up."""
    if name in ("href", "src") and value.strip().lower().startswith("data:"):
        return value if tag == "img" and name == "src" and value.strip().lower().startswith(DATA_IMAGE) else None
    if name == "id" and value.startswith("__"):
        return None
    return value


def clean(html):
    """The HTML with only what the allowlist keeps (script and style elements go with their text)."""
    html = html.decode() if isinstance(html, bytes) else str(html)
    return nh3.clean(html, tags=TAGS, clean_content_tags={"script", "style"}, attributes=ATTRIBUTES,
                     attribute_filter=_attribute, url_schemes=SCHEMES, link_rel=None, strip_comments=True)


class Exporter(HTMLExporter):
    """nbconvert's HTML exporter with its sanitizing on, through clean() instead of bleach (and instead
    of mkdocs-jupyter's filter, which lets everything through)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.sanitize_html = True

    def default_filters(self):
        yield from super().default_filters()
        yield ("clean_html", clean)
