"""MkDocs hooks for search in three languages (with docs/assets/javascripts/workers/search-i18n.js).

Material's search plugin, under mkdocs-static-i18n, writes one index for every language; Japanese
queries are looked up unsegmented and Korean words only by their exact beginning. These hooks
1. split that index into search/search_index.<lang>.json, one per language (a page searches only its
   own language's pages, and a first search downloads only that index), and leave in
   search/search_index.json, which Material's page script always fetches, only the configuration;
2. point every page's search worker at search-i18n.js, which loads the page's language index into
   Material's worker and segments (ja) or stems (ko) the query as the index was.
The query set in tests/search_queries.yml measures the outcome (tests/test_search.py)."""
import json
import re
from pathlib import Path

from mkdocs.plugins import event_priority

WORKER = "search-i18n.js"
# "search": "../../assets/javascripts/workers/search.a7633da7.min.js" in the page's __config
CONFIG_WORKER = re.compile(r'("search": ")([^"]*assets/javascripts/workers/)(search\.[0-9a-f]+\.min\.js)(")')


def _languages(config):
    i18n = config.plugins["i18n"]
    return i18n.default_language, list(i18n.build_languages)


def on_post_page(output, page, config):
    lang = config.theme["language"]
    found = CONFIG_WORKER.search(output)
    if found is None:
        raise ValueError(f"{page.file.src_uri}: Material's search worker is not in the page's __config; "
                         "scripts/search_hooks.py must learn this Material version")
    return CONFIG_WORKER.sub(lambda m: f"{m[1]}{m[2]}{WORKER}?lang={lang}&material={m[3]}{m[4]}", output, count=1)


def language_of(location, default, langs):
    first = location.split("/", 1)[0]
    return first if first in langs and first != default else default


@event_priority(-300)  # after i18n has built every language and merged their search entries
def on_post_build(config):
    if config.plugins["i18n"].building:  # one language of several: the index is not complete yet
        return
    folder = Path(config.site_dir) / "search"
    merged = json.loads((folder / "search_index.json").read_text(encoding="utf-8"))
    default, langs = _languages(config)
    for lang in langs:
        docs = [doc for doc in merged["docs"] if language_of(doc["location"], default, langs) == lang]
        if not docs:
            raise ValueError(f"search: no page in '{lang}' in the search index")
        index = {"config": {**merged["config"], "lang": [lang]}, "docs": docs}
        (folder / f"search_index.{lang}.json").write_text(
            json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    (folder / "search_index.json").write_text(
        json.dumps({"config": merged["config"], "docs": []}, separators=(",", ":")), encoding="utf-8")
