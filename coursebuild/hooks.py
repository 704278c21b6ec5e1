"""The MkDocs hooks of the build (mkdocs.yml names this file): each event MkDocs calls, in the order it
calls them, and the module that does the job. The jobs are in coursebuild/render (notebook pages),
coursebuild/search (an index per language) and coursebuild/assets (stylesheets, minifying); every
change to what a library does is listed in coursebuild/patches.py, which is applied here.

Without these hooks, notebook pages come out as raw source under mkdocs-static-i18n, Japanese and
Korean headings get empty ids, notebook pages do not switch language to the same page, and every
notebook page inlines ~600 KB of CSS. Under i18n, MkDocs runs a build per language: events marked
"once" act only after the last one.
"""
import logging
import sys
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
from mkdocs.plugins import event_priority

# MkDocs loads hooks by their file path, outside any package (and puts sys.path back afterwards): make
# the package importable; once imported, it stays so for the process.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from coursebuild import course, patches  # noqa: E402
from coursebuild.assets import minify, minify_js, trim_css  # noqa: E402
from coursebuild.render import csp, i18n, pages, render_cache  # noqa: E402
from coursebuild.search import index  # noqa: E402

patches.apply()


def _only_warnings(record):
    """Third-party chatter (a line per notebook and language: converted, cache hit, copied; i18n's
    config overrides) is dropped; their warnings and errors still show."""
    return record.levelno >= logging.WARNING


for _name in ("mkdocs.plugins.mkdocs_jupyter", "mkdocs.mkdocs-jupyter",
              "mkdocs.plugins.mkdocs_static_i18n.reconfigure"):
    _logger = logging.getLogger(_name)
    if not any(getattr(f, "__name__", None) == "_only_warnings" for f in _logger.filters):
        _logger.addFilter(_only_warnings)

_serving = False


def on_startup(command, dirty):
    global _serving
    _serving = command == "serve"


def on_config(config):
    """Each language's build: mkdocs-jupyter's render cache in that language's folder."""
    render_cache.configure(config)
    return config


def on_pre_build(config):
    render_cache.heal(config)


@event_priority(-200)  # after mkdocs-static-i18n (-100), which rebuilds every file as a plain File
def on_files(files, config):
    return i18n.notebook_files(files, config)


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


def on_page_markdown(markdown, page, config, files):
    return pages.meta(markdown, page, config, files)


def on_page_content(html, page, config, files):
    return pages.content(html, page, config, files)


def on_template_context(context, template_name, config):
    return i18n.home_alternates(context, template_name, config)


@event_priority(-100)  # last
def on_post_template(output, template_name, config):
    """Pages MkDocs renders from a template alone (404.html): searching their language, loading Material's
    script after the first paint, no inline script, each language's in its own folder."""
    output = index.point_worker_404(output, template_name, config)
    output = pages.BUNDLE.sub(pages.AFTER_PAINT, output, count=1)
    output = pages.named_search(output, template_name)
    if template_name.endswith(".html") and output.strip():
        output = csp.strict(output, config, _serving, template_name)
    return i18n.page_404(output, template_name, config)


def on_post_page(output, page, config):
    output = pages.finished(output, page, config)
    output = index.point_worker(output, page, config)
    return csp.strict(output, config, _serving, page.file.src_uri)  # no inline script: coursebuild/render/csp.py


@event_priority(-200)  # after i18n's on_post_build, which builds the other languages and merges search
def on_post_build(config):
    """Once: the render cache's count, the search indexes, then (not while serving: a live reload must be
    quick, and shows the same pages the same way) only the styles the pages use (PurgeCSS, cached),
    inline in each page, our scripts minified (esbuild, cached), the pages minified, and the templates'
    small scripts inline again with their hashes in the policy."""
    if config.plugins["i18n"].building:  # one language of several
        return
    render_cache.report()
    index.split(config)
    if not _serving:
        site = Path(config.site_dir)
        trim_css.trim(site)
        trim_css.inline(site, urlsplit(config.site_url or "/").path or "/")
        minify_js.minify(site)
        minify.minify(site)
        csp.hashed(site)  # last: the hashes are of the scripts' final text (minify-html trims scripts too)
