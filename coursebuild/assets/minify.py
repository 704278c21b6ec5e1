"""Minify every page of a built site with minify-html (whitespace between tags, the inline stylesheets).

Run by coursebuild/hooks.py at the end of `mkdocs build`, after trim_css.py has trimmed the
stylesheets and put them inline: it takes about 5% off a notebook page (tests/test_site.py holds each
first visit to its budget). Before that, Material's __config JSON is written compactly and the cell ids
nothing refers to are dropped. Closing tags and
<html>/<head> stay, so any HTML parser reads the pages as before.

minify-html keeps the whitespace of <pre>, <textarea> and <code> (and scripts and styles) and collapses
it everywhere else. Before it runs, each page is checked for text whose whitespace matters elsewhere:
in an element the page's CSS sets `white-space: pre` (or pre-wrap, pre-line, break-spaces) on, or that a
copy button copies (`<clipboard-copy for=ID>`, `data-clipboard-target="#ID"`). Such text would lose its
line breaks: the build stops and names the page and the element.

Each page's HTML is read once and parsed once (by the check; minify-html then tokenizes the same text in
Rust), and only when it is new: the minified page is kept in .cache/minified/ under a hash of the page
and of the code that minifies it, so a page that did not change is neither checked nor minified again.

Then csp.hashed() puts the small inline scripts back. Usage: python -m coursebuild.assets.minify SITE_DIR"""
import hashlib
import html.parser
import importlib.metadata
import json
import os
import re
import sys
from pathlib import Path

import minify_html

from coursebuild import course

CACHE = course.ROOT / ".cache" / "minified"
KEEP = 400  # entries kept, the most recently used (a site has about 100 pages; tests and benchmarks build others)

KEPT = {"pre", "textarea", "code", "script", "style"}  # minify-html keeps the whitespace inside these
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
PRESERVING = re.compile(r"white-space\s*:\s*(?:pre|pre-wrap|pre-line|break-spaces)\b")
RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
# the last compound selector of a selector: what the rule styles
COMPOUND = re.compile(r"(?:^|[\s>+~])([^\s>+~]+)$")
PART = re.compile(r"([.#]?)([\w-]+)")
COLLAPSED = re.compile(r"[^\S ]| {2}")  # what minify-html would change: a line break, a tab, two spaces


class _Whitespace(html.parser.HTMLParser):
    """The elements of a page whose whitespace matters, outside those minify-html keeps, and whose text
    has whitespace it would collapse: [(tag, attributes, text)]."""

    def __init__(self, selectors, copied):
        super().__init__(convert_charrefs=True)
        self.selectors, self.copied = selectors, copied
        self.open, self.found = [], []  # open: [tag, attrs, matters, text parts]

    def _matters(self, tag, attrs):
        classes = set((attrs.get("class") or "").split())
        if attrs.get("id") in self.copied or PRESERVING.search(attrs.get("style") or ""):
            return True
        return any((not want_tag or want_tag == tag) and (not want_id or want_id == attrs.get("id"))
                   and want_classes <= classes for want_tag, want_id, want_classes in self.selectors)

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        attrs = dict(attrs)
        self.open.append([tag, attrs, tag not in KEPT and self._matters(tag, attrs), []])

    def handle_endtag(self, tag):
        while self.open:
            name, attrs, matters, text = self.open.pop()
            if matters and COLLAPSED.search("".join(text)):
                self.found.append((name, attrs, "".join(text)))
            if name == tag:
                break

    def handle_data(self, data):
        if any(entry[0] in KEPT for entry in self.open):
            return
        for entry in self.open:
            entry[3].append(data)


def _selectors(page_html):
    """(tag, id, classes) of the last compound of each selector that preserves whitespace, from the
    page's <style>s (its stylesheets are inline: trim_css.py), except those naming a tag
    minify-html keeps, or a pseudo-element (generated text)."""
    css = "\n".join(re.findall(r"<style[^>]*>(.*?)</style>", page_html, re.S))
    found = set()
    for selectors, body in RULE.findall(css):
        if not PRESERVING.search(body):
            continue
        for selector in selectors.split(","):
            last = COMPOUND.search(selector.strip())
            if not last or "::" in last[1]:
                continue
            compound = re.sub(r"\[[^\]]*\]|:[\w-]+(?:\([^)]*\))?", "", last[1])  # attributes, pseudo-classes
            parts = PART.findall(compound)
            tag = parts[0][1] if parts and not parts[0][0] and compound[0] != "*" else ""
            if tag in KEPT:
                continue
            ids = [name for mark, name in parts if mark == "#"]
            found.add((tag, ids[0] if ids else "", frozenset(name for mark, name in parts if mark == ".")))
    return found


# Material's settings for its script, as JSON: its interface strings written as \u escapes (six bytes a
# Japanese or Korean character instead of three) and with spaces after every separator
CONFIG = re.compile(r'(<script id="?__config"? type="?application/json"?>)(.*?)(</script>)', re.S)
HTML_SAFE = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "'": "\\u0027"}


def _compact_config(match):
    """The same settings in UTF-8 and without spaces; what could end the script or an attribute stays escaped."""
    text = json.dumps(json.loads(match[2]), ensure_ascii=False, separators=(",", ":"))
    return match[1] + re.sub("[<>&']", lambda c: HTML_SAFE[c[0]], text) + match[3]


# nbconvert's id on every notebook cell; the page's scripts find a question's output cell by it (data-output)
CELL_ID = re.compile(r' id="(cell-id=cell-\d+)"')
CELL_REFERENCE = re.compile(r'(?:data-output="|href="#)(cell-id=cell-\d+)"')


def _without_unused_cell_ids(page_html):
    """The page without the cell ids nothing refers to (1 to 1.5 KB of a long notebook page)."""
    used = set(CELL_REFERENCE.findall(page_html))
    return CELL_ID.sub(lambda m: m[0] if m[1] in used else "", page_html)


def whitespace_at_risk(page_html):
    """Elements of the page whose whitespace matters and would be collapsed: [(tag, attributes, text)]."""
    copied = set(re.findall(r'<clipboard-copy[^>]*\sfor="?([^"\s>]+)', page_html))
    copied |= set(re.findall(r'data-clipboard-target="#([\w-]+)"', page_html))
    parser = _Whitespace(_selectors(page_html), copied)
    parser.feed(page_html)
    parser.close()
    return parser.found


def minify(site):
    """Minify each .html file under site in place; the bytes saved. ValueError, before any page is
    written, if a page has text whose whitespace matters where minify-html would collapse it."""
    code = hashlib.sha256(Path(__file__).read_bytes() + importlib.metadata.version("minify_html").encode())
    done = []
    for page in sorted(Path(site).rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        key = code.copy()
        key.update(html.encode())
        entry = CACHE / f"{key.hexdigest()[:32]}.html"
        try:
            done.append((page, html, entry.read_text(encoding="utf-8"), None))
            os.utime(entry)  # used: kept by _forget_old
            continue
        except OSError:  # not minified before (or an entry that cannot be read: minified again)
            pass
        for tag, attrs, text in whitespace_at_risk(html):
            described = " ".join(f'{k}="{v}"' for k, v in attrs.items() if k in ("id", "class", "style"))
            raise ValueError(f"{page.relative_to(site)}: <{tag} {described}> holds text whose line breaks or spaces "
                             f"matter (its CSS keeps them, or a copy button copies it), which the page minifier would "
                             f"collapse ({text.strip()[:60]!r}...): put that text in a <pre> (coursebuild/assets/minify.py)")
        small = minify_html.minify(_without_unused_cell_ids(CONFIG.sub(_compact_config, html)), minify_css=True,
                                   keep_closing_tags=True, keep_html_and_head_opening_tags=True)
        done.append((page, html, small, entry))
    saved = 0
    for page, html, small, new_entry in done:
        if small != html:
            page.write_text(small, encoding="utf-8")
            saved += len(html.encode()) - len(small.encode())
        if new_entry:
            course.write_atomic(new_entry, small)  # whole or not at all: the next build reads it
    _forget_old()
    return saved


def _forget_old():
    """Keep the KEEP entries used last."""
    entries = sorted(CACHE.glob("*.html"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        old.unlink(missing_ok=True)


if __name__ == "__main__":
    print(f"{minify(sys.argv[1]) / 1000:.1f} KB saved")
