"""Search in every language (with docs/assets/javascripts/workers/search-i18n.js).

Material's search plugin, under mkdocs-static-i18n, writes one index for every language; Japanese
queries are looked up unsegmented and Korean words only by their exact beginning. These hooks
1. split that index into search/search_index.<lang>.json, one per language (a page searches only its
   own language's pages, and a first search downloads only that index), and leave in
   search/search_index.json, which Material's page script always fetches, only the configuration;
2. point every page's search worker at search-i18n.js, which loads the page's language index into
   Material's worker and segments (ja) or stems (ko) the query as the index was.
3. keep each page's sections, as Material's search parser splits them, between builds (parsing every
   page's HTML again is a tenth of an unchanged build).
The query set in tests/search_queries.yml measures the outcome (tests/test_search.py). coursebuild/hooks.py
calls split() and point_worker(); coursebuild/patches.py installs add_entry_from_context. Hands the
site, with its indexes, to the assets stage."""
import contextlib
import hashlib
import importlib.metadata
import json
import pickle
import re
from pathlib import Path
from types import SimpleNamespace

from material.plugins.search import plugin as search_plugin

from coursebuild import course
from coursebuild.search import thesaurus

WORKER = "search-i18n.js"
# "search": "../../assets/javascripts/workers/search.a7633da7.min.js" in the page's __config
CONFIG_WORKER = re.compile(r'("search": ")([^"]*assets/javascripts/workers/)(search\.[0-9a-f]+\.min\.js)(")')


SECTIONS = course.ROOT / ".cache" / "search-sections"
_MATERIAL = importlib.metadata.version("mkdocs-material").encode() + hashlib.sha256(Path(__file__).read_bytes()).digest()
_used_sections = set()

# What a page shows around its prose, on every heading or code cell: heading anchors (¶), the copy
# button with its hidden "Copied" notice, the marks above cells (coursebuild/render/marks.py). Not the
# reader's prose: search results would show them in titles and snippets.
NOT_PROSE = {"anchor-link", "headerlink", "zeroclipboard-container", "nb-mark"}


class _ProseParser(search_plugin.Parser):
    """Material's search parser, skipping what is not prose (NOT_PROSE), as it skips what an author
    marks data-search-exclude."""

    def handle_starttag(self, tag, attrs):
        if NOT_PROSE.intersection((dict(attrs).get("class") or "").split()):
            attrs = [*attrs, ("data-search-exclude", "")]
        super().handle_starttag(tag, attrs)


def _sections(html):
    """Material's search Parser(...).data for this HTML (_ProseParser's), from the cache when the same
    HTML was parsed before with the same Material and this file; an unreadable entry is a miss."""
    entry = SECTIONS / f"{hashlib.sha256(html.encode() + _MATERIAL).hexdigest()[:24]}.pickle"
    _used_sections.add(entry)
    with contextlib.suppress(OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
        return pickle.loads(entry.read_bytes())
    parser = _ProseParser()
    parser.feed(html)
    parser.close()
    with contextlib.suppress(OSError):
        SECTIONS.mkdir(parents=True, exist_ok=True)
        course.write_atomic(entry, pickle.dumps(parser.data))
    return parser.data


def add_entry_from_context(self, page):
    """SearchIndex.add_entry_from_context (Material 9.8), with the parsed sections cached."""
    search = page.meta.get("search") or {}
    if search.get("exclude"):
        return
    for section in _sections(page.content):
        if not section.is_excluded():
            self.create_entry_for_section(section, page.toc, page.url, page)



def _languages(config):
    i18n = config.plugins["i18n"]
    return i18n.default_language, list(i18n.build_languages)


def point_worker(output, page, config):
    """The page's search worker: search-i18n.js, for the page's language, around Material's."""
    lang = config.theme["language"]
    found = CONFIG_WORKER.search(output)
    if found is None:
        raise ValueError(f"{page.file.src_uri}: Material's search worker is not in the page's __config; "
                         "coursebuild/search/index.py must learn this Material version")
    return CONFIG_WORKER.sub(lambda m: f"{m[1]}{m[2]}{WORKER}?lang={lang}&material={m[3]}{m[4]}", output, count=1)


def point_worker_404(output, template_name, config):
    """The 404 page searches its language too."""
    return point_worker(output, SimpleNamespace(file=SimpleNamespace(src_uri=template_name)), config) \
        if template_name == "404.html" else output


def language_of(location, default, langs):
    first = location.split("/", 1)[0]
    return first if first in langs and first != default else default


def split(config):
    """One index per language, from the one i18n merged (after every language is built)."""
    for entry in SECTIONS.glob("*.pickle"):
        if entry not in _used_sections:
            entry.unlink(missing_ok=True)
    _used_sections.clear()
    folder = Path(config.site_dir) / "search"
    merged = json.loads((folder / "search_index.json").read_text(encoding="utf-8"))
    default, langs = _languages(config)
    for lang in langs:
        docs = [doc for doc in merged["docs"] if language_of(doc["location"], default, langs) == lang]
        if not docs:
            raise ValueError(f"search: no page in '{lang}' in the search index")
        # synonyms: coursebuild/search/synonyms/<lang>.yml, which the worker applies to the pages and the query alike
        index = {"config": {**merged["config"], "lang": [lang], "synonyms": thesaurus.load(lang)}, "docs": docs}
        (folder / f"search_index.{lang}.json").write_text(
            json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    (folder / "search_index.json").write_text(
        json.dumps({"config": merged["config"], "docs": []}, separators=(",", ":")), encoding="utf-8")
