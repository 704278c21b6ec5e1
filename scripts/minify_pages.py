"""Minify every page of a built site with minify-html (whitespace between tags, the inline stylesheets).

Run by scripts/mkdocs_hooks.py at the end of `mkdocs build`, after scripts/trim_css.py has trimmed the
stylesheets and put them inline: it takes about 5% off a notebook page and keeps the longest (the
device-errors page in Japanese) within the first-visit budget (tests/test_site.py). Closing tags and
<html>/<head> stay, so any HTML parser reads the pages as before; <pre> keeps its whitespace.

Usage: python scripts/minify_pages.py SITE_DIR"""
import sys
from pathlib import Path

import minify_html


def minify(site):
    """Minify each .html file under site in place; the bytes saved."""
    saved = 0
    for page in sorted(Path(site).rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        small = minify_html.minify(html, minify_css=True, keep_closing_tags=True,
                                   keep_html_and_head_opening_tags=True)
        if small != html:
            page.write_text(small, encoding="utf-8")
            saved += len(html.encode()) - len(small.encode())
    return saved


if __name__ == "__main__":
    print(f"{minify(sys.argv[1]) / 1000:.1f} KB saved")
