"""Notebook pages under mkdocs-static-i18n, which knows only Markdown pages: notebook files wrapped again
after it rebuilt every file (mkdocs-static-i18n #198), linked to their translations (language switcher,
hreflang alternates, sitemap), and one 404 page per language; and MkDocs' cleaning of the site folder
turned on again after a language's build failed (the live preview). Hands MkDocs the files of each
language. Each of these is an entry of coursebuild/patches.py.
"""
import functools
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import mkdocs.utils
import mkdocs_jupyter.plugin

from coursebuild import course


def notebook_files(files, config):
    """i18n drops mkdocs-jupyter's wrapper, so notebooks would be copied as raw source: wrap them again."""
    # Replace in place: i18n's Files subclass resolves nav paths per language.
    for file in [f for f in files if f.src_uri.endswith(".ipynb")]:
        if not isinstance(file, mkdocs_jupyter.plugin.NotebookFile):
            notebook = mkdocs_jupyter.plugin.NotebookFile(file, **config)
            # keep where i18n put the page (the default language lives at the site root)
            notebook.dest_path, notebook.abs_dest_path, notebook.url = file.dest_path, file.abs_dest_path, file.url
            files.remove(file)
            files.append(notebook)
            _link_translations(notebook, config)
    # i18n lists in the sitemap the pages it kept at its own on_files, Markdown pages only
    i18n = config.plugins["i18n"]
    i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


def _link_translations(notebook, config):
    """i18n links only Markdown pages to their translations (a plain File counts only *.md as a page);
    link notebook pages too, or their language switcher and hreflang alternates lead to the home pages."""
    i18n = config.plugins["i18n"]
    name = notebook.src_uri.split("/", 1)[1]  # docs/<lang>/<name>.ipynb
    here = i18n.current_language
    page = notebook.url.removeprefix(f"{here}/") if here != i18n.default_language else notebook.url
    notebook.alternates = {  # page: the sitemap template asks (its URL is the site_url joined with url)
        lang: SimpleNamespace(url=page if lang == i18n.default_language else f"{lang}/{page}", page=None)
        for lang in i18n.build_languages if (Path(config.docs_dir) / lang / name).is_file()
    }


def home_alternates(context, template_name, config):
    """The 404 page's language switcher leads to each language's home: i18n leaves it pointing at the
    translations of the last page built."""
    if template_name == "404.html" and config.extra.get("alternate"):
        i18n, base = config.plugins["i18n"], urlsplit(config.site_url or "/").path.rstrip("/")
        # as an attribute, as i18n sets it for each page (the template reads the attribute first)
        config.extra.alternate = [{**alt, "link": base + i18n.get_language_config(alt["lang"]).link}
                                  for alt in config.extra["alternate"]]
    return context


def page_404(output, template_name, config):
    """Each language's 404 page goes to its own folder (i18n writes them all to the root, the last built
    winning): the root one, the default language's, is the one GitHub Pages serves, and it sends a reader
    of another language's missing page to that language's (overrides/404.html)."""
    i18n = config.plugins["i18n"]
    if template_name == "404.html" and i18n.current_language != i18n.default_language:
        course.write_atomic(Path(config.site_dir) / i18n.current_language / template_name, output)
        return ""  # MkDocs writes nothing for an empty page
    return output


def cleaning_restored(on_post_build):
    """mkdocs-static-i18n 1.3.1 turns MkDocs' cleaning of the site folder off while it builds the other
    languages, and on again only if they all build: after one strict abort (a page still in nav whose
    notebook was deleted) the preview never cleaned its folder again and served deleted pages until it
    was restarted. Turn it on again however the languages' builds end."""
    @functools.wraps(on_post_build)  # keeps its event priority
    def wrapped(self, config):
        clean = mkdocs.utils.clean_directory
        try:
            return on_post_build(self, config)
        finally:
            mkdocs.utils.clean_directory = clean
    return wrapped


cleaning_restored.wraps_original = True  # coursebuild/patches.py installs it around I18n.on_post_build
