"""mkdocs-jupyter's render cache, one folder per language: .cache/mkdocs-jupyter/<code>/<lang>/.

mkdocs-jupyter keeps each converted page (HTML, table of contents, title) in its `cache_dir`, keyed by
the notebook's bytes and its options, and after each build removes the entries that build did not use.
Under mkdocs-static-i18n each language is a build of its own: with one folder, each language's build
removed the other languages' entries, and every build converted two languages of three again. So each
language gets a folder of its own (its `cache_dir`, set when i18n configures that language's build),
under a hash of the code whose output the cache keeps (notebook_html.py, headings.py, sanitize.py): an edit there
converts every page again, and the folders of older code are removed. A damaged entry (a killed write,
a full disk) or one whose shared assets are gone is removed before the build reads it: the page is
converted again, never a crash. Hands converted pages to pages.py; tells the log how many it converted.
"""
import hashlib
import json
import logging
import shutil
import time
from pathlib import Path

from coursebuild import course
from coursebuild.render import headings, notebook_html, sanitize

log = logging.getLogger("mkdocs.hooks.course")
CACHE = course.ROOT / ".cache" / "mkdocs-jupyter"
CODE = hashlib.sha256(b"".join(Path(m.__file__).read_bytes() for m in (notebook_html, headings, sanitize))).hexdigest()[:16]
_started = {}  # language: when its build began (an entry written since was converted by it)


def configure(config):
    """Point mkdocs-jupyter at this language's folder (on_config, which i18n runs for every language)."""
    i18n = config.plugins["i18n"]
    lang = i18n.current_language or i18n.default_language
    folder = CACHE / CODE / lang
    config.plugins["mkdocs-jupyter"].config["cache_dir"] = str(folder)
    if lang == i18n.default_language:  # once per site build: the folders of older code, and older layouts
        for old in CACHE.glob("*"):
            if old.name != CODE:
                shutil.rmtree(old) if old.is_dir() else old.unlink()
    return folder


def heal(config):
    """Remove the entries of this language's folder that cannot be used (on_pre_build)."""
    folder = Path(config.plugins["mkdocs-jupyter"].config["cache_dir"])
    _started[folder.name] = time.time()
    for entry in folder.glob("*.json"):
        try:
            cached = json.loads(entry.read_text(encoding="utf-8"))
            cached["toc_tokens"]  # noqa: B018
            notebook_html.assets_of(cached["content"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            log.info("render cache entry %s is unreadable (%s): rendering the page again", entry, type(err).__name__)
            entry.unlink(missing_ok=True)


def report():
    """The log line of a site build: pages converted, pages from the cache (all languages)."""
    rendered = cached = 0
    for lang, started in _started.items():
        for entry in (CACHE / CODE / lang).glob("*.json"):
            if entry.stat().st_mtime >= started:
                rendered += 1
            else:
                cached += 1
    _started.clear()
    log.info("notebook pages: %d rendered, %d from the render cache", rendered, cached)
