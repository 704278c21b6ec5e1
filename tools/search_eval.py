"""Search quality, measured the way a reader meets it: type each query of tests/search_queries.yml
into the search box of the built site in Chromium and read the first three results.

Shared by tests/test_search.py (asserts the hit rate per language) and tools/bench.py (prints it).
Run alone on a built site: python -m tools.search_eval SITE_DIR"""
import json
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
QUERIES = ROOT / "tests" / "search_queries.yml"
TOP = 3          # a hit: the expected page is among the first TOP results
TARGET = 0.95    # the hit rate each language must reach


def load_queries(path=QUERIES, part=None):
    """[(lang, query, (page, ...))] from the query set: every part, or only `part`. The lines under a
    language at the top are the part search is tuned on ("tune"); a top-level key that is not a
    language ("held-out", a block written blind) holds languages of its own."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    out = []
    for key, value in data.items():
        blocks = {key: value} if isinstance(value, list) else value
        name = "tune" if isinstance(value, list) else key
        if part is None or part == name:
            out += [(lang, str(query), tuple(pages) if isinstance(pages, list) else (pages,))
                    for lang, lines in blocks.items() for query, pages in lines]
    return out


def parts(path=QUERIES):
    """The names of the query set's parts, in file order: tune, held-out, ..."""
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    return list(dict.fromkeys("tune" if isinstance(v, list) else k for k, v in data.items()))


def page_exists(site, lang, page, default="en"):
    folder = Path(site) / ("" if lang == default else lang) / ("" if page == "index" else page)
    return (folder / "index.html").is_file()


def page_of(base, url, langs):
    """The page a result link leads to, and its language: ('03-moving-models', 'ja')."""
    parts = unquote(urlsplit(url).path[len(urlsplit(base).path):]).strip("/").split("/")
    lang = parts.pop(0) if parts and parts[0] in langs else langs[0]
    return (parts[0] if parts and parts[0] else "index"), lang


def open_search(page):
    """Open the search box and wait until the index is loaded; the translations of this page."""
    tr = json.loads(page.locator("#__config").text_content())["translations"]
    page.locator("input[data-md-component=search-query]").click()
    page.wait_for_function(
        "p => document.querySelector('.md-search-result__meta').textContent.trim() === p",
        arg=tr["search.result.placeholder"], timeout=30_000)
    return tr


def results(page, query, tr):
    """Type `query` into the open search box; the links of the results, once they are shown."""
    box = page.locator("input[data-md-component=search-query]")
    box.fill("")
    box.press("End")  # Material reads the query on keyup
    page.wait_for_function(
        "p => document.querySelector('.md-search-result__meta').textContent.trim() === p",
        arg=tr["search.result.placeholder"])
    box.fill(query)
    box.press("End")
    page.wait_for_function(
        """([none, one, other]) => {
             const text = document.querySelector('.md-search-result__meta').textContent.trim();
             return text === none || text === one || new RegExp('^' + other.replace('#', '\\\\d+') + '$').test(text);
           }""",
        arg=[tr["search.result.none"], tr["search.result.one"], tr["search.result.other"]])
    # one item per page: its first link is the page (or its best section), the others its sections
    return page.eval_on_selector_all(".md-search-result__item", "items => items.map(i => i.querySelector('a').href)")


def evaluate(context, base, site, queries, langs):
    """Run every query on the home page of its language. One dict per query."""
    out = []
    for lang in langs:
        mine = [(q, pages) for l, q, pages in queries if l == lang]
        mine = [(q, pages) for q, pages in mine if any(page_exists(site, lang, p, langs[0]) for p in pages)]
        if not mine:
            continue
        page = context.new_page()
        try:
            page.goto(base + ("" if lang == langs[0] else f"{lang}/"))
            tr = open_search(page)
            for query, pages in mine:
                links = results(page, query, tr)
                found = [page_of(base, link, langs) for link in links]
                top = [p if l == lang else f"{l}/{p}" for p, l in found[:TOP]]
                out.append({"lang": lang, "query": query, "expected": pages, "top": top,
                            "count": len(links), "hit": any(p in pages for p in top),
                            "foreign": sorted({l for _, l in found if l != lang})})
        finally:
            page.close()
    return out


def rates(found):
    """{lang: (hits, total)}"""
    table = {}
    for r in found:
        hits, total = table.get(r["lang"], (0, 0))
        table[r["lang"]] = (hits + r["hit"], total + 1)
    return table


def report(found):
    lines = []
    for lang, (hits, total) in rates(found).items():
        lines.append(f"  {lang}: {hits}/{total} in the first {TOP} ({hits / total:.0%})")
    misses = [r for r in found if not r["hit"]]
    if misses:
        lines.append("  misses:")
        lines += [f"    [{r['lang']}] {r['query']!r}: want {'|'.join(r['expected'])}, "
                  f"got {r['top'] or 'nothing'} ({r['count']} results)" for r in misses]
    foreign = [r for r in found if r["foreign"]]
    if foreign:
        lines.append(f"  queries listing pages of another language: {len(foreign)}/{len(found)}")
    return "\n".join(lines)


def downloads(site, lang):
    """What search fetches on a page of `lang` (Material fetches it when the page loads, in a worker):
    {file: gzip-compressed bytes}, as served (tools/static_site.py compresses like GitHub Pages)."""
    import gzip

    site = Path(site)
    index = site / "search" / f"search_index.{lang}.json"
    workers = site / "assets" / "javascripts" / "workers"
    files = [site / "search" / "search_index.json", index, *sorted(workers.glob("search*.js"))]
    langs = json.loads(index.read_text(encoding="utf-8"))["config"]["lang"]
    lunr = site / "assets" / "javascripts" / "lunr"
    extra = [lunr / "min" / "lunr.stemmer.support.min.js"] if langs != ["en"] else []
    for code in langs:  # what Material's worker loads for the index's languages
        extra += [lunr / "tinyseg.js"] if code == "ja" else []
        extra += [lunr / "min" / f"lunr.{code}.min.js"] if code != "en" else []
    extra += [lunr / "min" / "lunr.multi.min.js"] if len(langs) > 1 else []
    return {str(f.relative_to(site)): len(gzip.compress(f.read_bytes(), 6, mtime=0)) for f in files + extra}


def measure(site, langs=("en", "ja", "ko")):
    """Serve `site` and run the query set in Chromium; the list of results, each with its part."""
    from playwright.sync_api import sync_playwright

    from tools.browser_tools import CHROMIUM_ARGS, find_chromium
    from tools.static_site import served

    with served(site) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(reduced_motion="reduce", viewport={"width": 1280, "height": 800})
            context.set_default_timeout(15_000)
            return [{**r, "part": part} for part in parts()
                    for r in evaluate(context, base, site, load_queries(part=part), list(langs))]
        finally:
            browser.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tools.search_eval SITE_DIR")
    found = measure(sys.argv[1])
    for part in parts():
        print(f"{part}:\n" + report([r for r in found if r["part"] == part]))
    for lang in ("en", "ja", "ko"):
        got = downloads(sys.argv[1], lang)
        print(f"  {lang}: search downloads {sum(got.values()) / 1000:.1f} KB gzip "
              f"(index {got[f'search/search_index.{lang}.json'] / 1000:.1f} KB)")
