"""Every change this build makes to what mkdocs-jupyter, mkdocs-static-i18n and Material do, in one table.

Each entry says what it changes, why, the upstream issue where there is one, the version it was written
for (the pin in requirements.txt) and a fingerprint of the library code or template it depends on.
tests/test_patches.py fails, naming the entry and what to check, when an installed version or a
fingerprint differs: a library update then gets looked at before a patch silently stops working (or
starts doing harm). The entries with `install` replace a library function; apply() installs them, once
per process (coursebuild/hooks.py calls it when MkDocs loads the hooks). The others are template
overrides (overrides/) and rewrites of what a library writes, done where the entry says.

Checked and replaced by a public option (mkdocs-jupyter 0.26.3): the render cache's key and eviction
(three private functions of mkdocs-jupyter were patched, and its post_build event removed) are now its
`cache_dir` option, one folder per language (coursebuild/render/render_cache.py). mkdocs-jupyter 0.26.3
has no option for heading ids, the table of contents or the page's HTML, and MkDocs' events come after
its conversion (and its cache): the patches below stay.
"""
import ast
import hashlib
import importlib
import importlib.util
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Patch:
    name: str
    library: str        # the distribution, as requirements.txt pins it
    version: str        # the version the patch was written for
    target: str         # what it depends on: "module:Qualified.name" (its source) or "package/path/file" (glob)
    fingerprint: str    # sha256 of that source or file, first 12 hex digits (fingerprint(target))
    what: str           # what the patch does, and where
    why: str
    check: str          # what to look at when the version or the fingerprint changes
    upstream: str = ""  # the issue or pull request, where there is one
    install: tuple = ()  # (module, attribute, "coursebuild.module:replacement"): apply() sets it


JUPYTER, I18N, MATERIAL, MKDOCS = "mkdocs-jupyter", "mkdocs-static-i18n", "mkdocs-material", "mkdocs"

PATCHES = (
    Patch("theme-files", MKDOCS, "1.6.1", "mkdocs.structure.files:Files.add_files_from_theme", "d0957d978590",
          what="replaces Files.add_files_from_theme with coursebuild/render/theme_files.py:add_files_from_theme, "
               "which lists each installed theme folder once per process",
          why="it lists and pattern-matches Material's 14,500 files for every language's build: a sixth of a "
              "live-preview rebuild",
          check="the filter's patterns and the precedence of theme folders (the first that has the file)",
          install=("mkdocs.structure.files", "Files.add_files_from_theme",
                   "coursebuild.render.theme_files:add_files_from_theme")),
    Patch("native-watcher", MKDOCS, "1.6.1", "mkdocs.livereload:LiveReloadServer.__init__", "184ea78d7bc5",
          what="coursebuild/serve.py serves with a LiveReloadServer whose observer is watchdog's native one "
               "(inotify on Linux) instead of a PollingObserver",
          why="polling every 0.5 s added a quarter of a second, on average, between an edit and the rebuild "
              "of the live preview",
          check="that __init__ still sets self.observer before watch() schedules the folders on it"),
    Patch("heading-ids", JUPYTER, "0.26.3", "mkdocs_jupyter/convert.py", "82aa0227f659",
          what="replaces add_anchor_lower_id with coursebuild/render/headings.py:add_anchor",
          why="it folds headings to ASCII: every Japanese and Korean heading got id=\"\" (links to #_1, #_2, "
              "and Material's search threw on the duplicates)",
          check="whether its ids keep non-ASCII letters now (pymdownx.slugs' slugify(case='lower'), as "
                "mkdocs.yml's toc uses), and that its own patch of nbconvert's heading (new_heading) still calls "
                "add_anchor_lower_id from the module",
          install=("mkdocs_jupyter.convert", "add_anchor_lower_id", "coursebuild.render.headings:add_anchor")),
    Patch("toc-from-cells", JUPYTER, "0.26.3", "mkdocs_jupyter.plugin:Plugin.on_pre_page", "e8362a67809c",
          what="replaces _get_nb_toc_tokens with coursebuild/render/headings.py:toc_tokens",
          why="it reads the table of contents from its Markdown export, which drops inline code: headings "
              "lost their `code`, and a question's choices became headings named \"-\"",
          check="that the plugin still calls _get_nb_toc_tokens(path, toc_depth) for (toc_tokens, title) on a "
                "cache miss, and whether its export keeps inline code now",
          install=("mkdocs_jupyter.plugin", "_get_nb_toc_tokens", "coursebuild.render.headings:toc_tokens")),
    Patch("lean-html", JUPYTER, "0.26.3", "mkdocs_jupyter.nbconvert2:nb2html", "84632ff35863",
          what="wraps nb2html with coursebuild/render/notebook_html.py:lean_nb2html (before the render cache)",
          why="every page inlined ~600 KB of CSS and the copy-button script; the copy button copied a hidden "
              "second copy of the source, which the page minifier collapsed; 0.26 writes the Pygments "
              "styles as a Python list, which is not CSS",
          check="nb2html's arguments and output: <style> and inline <script> blocks, the clipboard-copy-txt "
                "div after each code cell, the Pygments styles as a list (notebook_html._stylesheets)",
          install=("mkdocs_jupyter.convert", "nb2html", "coursebuild.render.notebook_html:lean_nb2html")),
    Patch("sanitize-html", JUPYTER, "0.26.3", "mkdocs_jupyter.nbconvert2:nb2html", "84632ff35863",
          what="replaces the HTMLExporter nb2html builds with coursebuild/render/sanitize.py:Exporter: "
               "nbconvert's sanitizing on, through nh3 (an allowlist) instead of bleach",
          why="mkdocs-jupyter makes nbconvert's clean_html a no-op: an <img onerror> or <svg onload> in a Markdown "
              "cell, and the <script> of an HTML output, ran on every language's page",
          check="that nb2html still builds HTMLExporter(...) by that name from its module, and that nbconvert's lab "
                "template still passes Markdown cells and HTML, Markdown, SVG outputs through clean_html when "
                "resources.should_sanitize_html is set",
          install=("mkdocs_jupyter.nbconvert2", "HTMLExporter", "coursebuild.render.sanitize:Exporter")),
    Patch("preview-last-good", MKDOCS, "1.6.1", "mkdocs.commands.serve:serve", "5895ed345e23",
          what="wraps the build that MkDocs' serve command calls with coursebuild/preview.py:kept_when_failing: "
               "each rebuild goes into a folder beside the served one, swapped in on success",
          why="after a failed rebuild MkDocs' server held every request until a build succeeded (every URL hung "
              "once a deleted concept was still linked), and its folder was half rebuilt",
          check="that serve() still calls build(config, ...) by that name from its module into config.site_dir, and "
                "still holds requests after a builder that raises",
          install=("mkdocs.commands.serve", "build", "coursebuild.preview:kept_when_failing")),
    Patch("interface-strings", JUPYTER, "0.26.3", "mkdocs_jupyter/templates/mkdocs_html/notebook.html.j2",
          "c3a0f945b2c2",
          what="coursebuild/render/pages.py:content replaces the copy button's English label and notice "
               "(and Python-Markdown's \"Permanent link\") with the page's language (extra.labels)",
          why="a Japanese or Korean page must show no English interface string",
          check="that the template still writes aria-label=\"Copy to Clipboard\" and >Copied!</span> (or has "
                "an option for them now)"),
    Patch("notebook-files", I18N, "1.3.1", "mkdocs_static_i18n.reconfigure:ExtendedPlugin.reconfigure_files",
          "a24e05d3b0a9",
          what="coursebuild/render/i18n.py:notebook_files (on_files, after i18n) wraps notebooks in "
               "mkdocs-jupyter's NotebookFile again, keeping where i18n put them",
          why="i18n rebuilds every file as a plain File, which counts only *.md as a page: notebook pages "
              "were copied as raw source, with a green --strict build",
          check="whether reconfigure_files keeps other plugins' File subclasses now",
          upstream="mkdocs-static-i18n #198 (open), PR #172 (closed unmerged)"),
    Patch("notebook-translations", I18N, "1.3.1", "mkdocs_static_i18n.plugin:I18n.on_files", "b1a41fb40ce6",
          what="coursebuild/render/i18n.py:notebook_files sets each notebook's alternates and i18n's "
               "i18n_files_per_language (a private attribute) for the language switcher and the sitemap",
          why="i18n links only Markdown pages to their translations: notebook pages switched language to "
              "the home page, and the sitemap left them out",
          check="that on_files still fills i18n_files_per_language[current_language] with "
                "files.documentation_pages(), and how reconfigure_files_alternates sets file.alternates",
          upstream="mkdocs-static-i18n #198"),
    Patch("404-per-language", I18N, "1.3.1", "mkdocs_static_i18n.reconfigure:ExtendedPlugin.reconfigure_page_context",
          "b1d98d20fa44",
          what="coursebuild/render/i18n.py: home_alternates (on_template_context) and page_404 "
               "(on_post_template) write each language's 404 page to its folder, its switcher to the homes",
          why="i18n writes every language's 404.html to the site's root (the last built wins) and leaves its "
              "language switcher pointing at the translations of the last page built",
          check="where i18n writes 404.html now, and how it sets config.extra.alternate for template pages"),
    Patch("clean-after-failed-build", I18N, "1.3.1", "mkdocs_static_i18n.plugin:I18n.on_post_build",
          "2b881706e3bd",
          what="coursebuild/render/i18n.py:cleaning_restored wraps I18n.on_post_build: MkDocs' cleaning of the "
               "site folder is turned on again however the languages' builds end",
          why="i18n turns mkdocs.utils.clean_directory off while it builds the other languages and on again "
              "only if they all build: after one strict abort the live preview served deleted pages",
          check="whether on_post_build restores clean_directory in a finally block now",
          install=("mkdocs_static_i18n.plugin", "I18n.on_post_build", "coursebuild.render.i18n:cleaning_restored")),
    Patch("search-sections", MATERIAL, "9.8.1", "material.plugins.search.plugin:SearchIndex.add_entry_from_context",
          "28cd37288ddd",
          what="replaces SearchIndex.add_entry_from_context with coursebuild/search/index.py:"
               "add_entry_from_context: the parsed sections are cached, and what is not prose is skipped",
          why="parsing every page's HTML again was a tenth of an unchanged build; heading anchors, copy "
              "buttons and cell marks showed in results' titles and snippets",
          check="that the method still parses page.content with Parser and calls create_entry_for_section",
          install=("material.plugins.search.plugin", "SearchIndex.add_entry_from_context",
                   "coursebuild.search.index:add_entry_from_context")),
    Patch("search-per-language", MATERIAL, "9.8.1", "material/templates/assets/javascripts/workers/search.*.min.js",
          "da1b3df5e5f0",
          what="coursebuild/search/index.py splits the search index per language and points each page's "
               "worker at docs/assets/javascripts/workers/search-i18n.js, which wraps Material's worker",
          why="one index for all languages, and Japanese queries looked up unsegmented, Korean words only by "
              "their exact beginning",
          check="the worker's messages (SETUP 0, QUERY 2, RESULT 3), the index format, and the \"search\" "
                "entry of the page's __config",
          upstream="mkdocs-material #3112 (Japanese queries are not segmented)"),
    Patch("bundle-after-paint", MATERIAL, "9.8.1", "material/templates/base.html", "8536d352b009",
          what="coursebuild/render/pages.py:after_paint turns Material's bundle <script> into one that "
               "overrides/partials/after-paint.html starts after the first paint (and gives it the document)",
          why="the bundle ran before the first paint (~40 ms of a phone's CPU; Lighthouse counted it in LCP)",
          check="the bundle's script tag in base.html, and that document$ still takes the document"),
    Patch("search-dialog-name", MATERIAL, "9.8.1", "material/templates/partials/search.html", "bfd556535abc",
          what="coursebuild/render/pages.py:named_search gives Material's search dialog (role=\"dialog\") the "
               "aria-label of its own search box",
          why="axe reports a dialog without a name as serious (aria-dialog-name) whenever the dialog is exposed",
          check="the dialog's opening tag and the search input's aria-label in search.html; drop the rewrite "
                "if Material names the dialog itself"),
    Patch("palette", MATERIAL, "9.8.1", "material/templates/partials/palette.html", "fb935107ae7d",
          what="overrides/partials/palette.html and overrides/partials/javascripts/palette.html replace "
               "Material's palette component",
          why="Material's component restyled the whole page four times after the first render (~80 ms of a "
              "phone's CPU on the longest page)",
          check="what the component stores (__palette) and sets on <body>; copy any new option"),
    Patch("palette-script", MATERIAL, "9.8.1", "material/templates/partials/javascripts/palette.html",
          "8790389765ea",
          what="overrides/partials/javascripts/palette.html replaces Material's palette script",
          why="see palette",
          check="the stored choice's format and the media-query fallback"),
    Patch("repository-link", MATERIAL, "9.8.1", "material/templates/partials/source.html", "6847616d67be",
          what="overrides/partials/source.html: Material's repository link without data-md-component=\"source\"",
          why="that attribute makes every page fetch stars and forks from api.github.com, a third party",
          check="the link's markup"),
    Patch("404-page", MATERIAL, "9.8.1", "material/templates/404.html", "80c93494b543",
          what="overrides/404.html replaces Material's 404 page (text in the page's language, and a script "
               "that opens the 404 page of the address's language)",
          why="GitHub Pages serves the root 404.html for every missing address, in any language",
          check="the blocks Material's 404.html fills"),
    Patch("toc-entry", MATERIAL, "9.8.1", "material/templates/partials/toc-item.html", "418f31ce2e6d",
          what="overrides/partials/toc-item.html: Material's table-of-contents entry without its md-ellipsis <span>",
          why="the span cuts nothing off here (titles wrap) and is one element more per section of every page "
              "(Lighthouse's dom-size)",
          check="the entry's markup (copy any change but the span)"),
    Patch("korean-strings", MATERIAL, "9.8.1", "material/templates/partials/languages/ko.html", "3652aebfc5b4",
          what="overrides/partials/languages/ko.html: Material's Korean strings, four corrected (맨 위로, 검색 준비 중…, "
               "언어 설정, 내비게이션) and the copy notice worded as the notebook cells word it",
          why="a Korean reviewer found them wrong: spacing, a non-standard spelling, and 검색 초기화, which "
              "reads as 'reset search' where Material means 'initializing search'",
          check="the keys Material's ko.html has now (copy any new key) and whether it fixed these strings itself"),
    Patch("japanese-strings", MATERIAL, "9.8.1", "material/templates/partials/languages/ja.html", "8076e721277e",
          what="overrides/partials/languages/ja.html: Material's Japanese strings, the search labels corrected "
               "(検索の準備中…, one clearing label 検索語を消去) and the copy label worded as the notebook cells word it",
          why="a Japanese reviewer read 検索を初期化 ('initializing search') as a second 'clear search' beside クリア",
          check="the keys Material's ja.html has now (copy any new key) and whether it fixed these strings itself"),
)


def _source_root(module):
    """The folder a module's package lives in (site-packages, for an installed library)."""
    spec = importlib.util.find_spec(module.split(".")[0])
    return Path(spec.submodule_search_locations[0]).parent


def fingerprint(target):
    """sha256 (12 hex digits) of a function's or method's source ("module:Class.name"), or of the file a
    path names from site-packages (a glob: its one match)."""
    if ":" in target:
        module, qualname = target.split(":")
        path = Path(importlib.util.find_spec(module).origin)
        text = path.read_text(encoding="utf-8")
        nodes = ast.parse(text).body
        for part in qualname.split("."):
            node = next((n for n in nodes if getattr(n, "name", None) == part), None)
            if node is None:
                return f"{qualname} is gone from {path.name}"
            nodes = getattr(node, "body", [])
        data = ast.get_source_segment(text, node).encode()
    else:
        found = sorted(_source_root(target.replace("/", ".")).glob(target))
        if len(found) != 1:
            return f"{len(found)} files match {target}"
        data = found[0].read_bytes()
    return hashlib.sha256(data).hexdigest()[:12]


def _resolve(dotted):
    """The object at 'package.module:Name.attribute'."""
    module, _, qualname = dotted.partition(":")
    found = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


_applied = {}  # patch name: (object patched, attribute, what apply() put there)
originals = {}  # patch name: what the library had there (for tests that compare the two)


def apply():
    """Install every patch that replaces a library function, once per process. A replacement marked
    wraps_original is called with the library's function and returns the one to install."""
    for patch in PATCHES:
        if not patch.install or patch.name in _applied:
            continue
        module, attribute, replacement = patch.install
        owner, _, name = attribute.rpartition(".")
        target = _resolve(f"{module}:{owner}") if owner else importlib.import_module(module)
        original = getattr(target, name)  # AttributeError: the library no longer has it (see PATCHES)
        new = _resolve(replacement)
        new = new(original) if getattr(new, "wraps_original", False) else new
        setattr(target, name, new)
        _applied[patch.name] = (target, name, new)
        originals[patch.name] = original


def installed(patch):
    """Whether apply() installed the patch and it is still in place."""
    if patch.name not in _applied:
        return False
    target, name, new = _applied[patch.name]
    return getattr(target, name) is new

