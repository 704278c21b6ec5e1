"""The theme's static files (stylesheets, scripts, fonts it ships), each installed theme folder listed
once per process.

MkDocs lists every file of every theme folder and matches each name against a dozen patterns for every
language's build: Material's folder holds 14,500 files, most of them icons for Markdown, and the listing
was a sixth of a live-preview rebuild (three times per build). A folder inside the installed packages
does not change while the process runs (pinned versions, requirements.txt), so its result is kept;
overrides/, which an author edits while the preview runs, is listed every time. Same files, same order,
same precedence as MkDocs' own Files.add_files_from_theme (coursebuild/patches.py, "theme-files").
"""
import fnmatch
import functools
import os
import sysconfig

from mkdocs import utils
from mkdocs.structure.files import File

INSTALLED = tuple(os.path.realpath(p) + os.sep for p in {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")})


def _wanted(name, static_templates):
    """MkDocs' filter: not a template, a dot file, Python, a translation, a page or a readme."""
    patterns = ['.*', '*/.*', '*.py', '*.pyc', '*.html', '*readme*', 'mkdocs_theme.yml', "locales/*",
                *(f'*{x}' for x in utils.markdown_extensions), *static_templates]
    return not any(fnmatch.fnmatch(name.lower(), pattern) for pattern in patterns)


def _listed(folder, static_templates):
    """The static files under a theme folder, as paths relative to it with / (jinja2's list_templates)."""
    found = []
    for dirpath, _, filenames in os.walk(folder):
        base = os.path.relpath(dirpath, folder).replace(os.sep, "/")
        for name in filenames:
            path = name if base == "." else f"{base}/{name}"
            if _wanted(path, static_templates):
                found.append(path)
    return frozenset(found)


_installed = functools.lru_cache(maxsize=None)(_listed)


def static_files(folder, static_templates):
    static_templates = frozenset(static_templates)
    if os.path.realpath(folder).startswith(INSTALLED):
        return _installed(folder, static_templates)
    return _listed(folder, static_templates)


def add_files_from_theme(self, env, config):
    """Files.add_files_from_theme: each static file of the theme that docs/ does not have, from the first
    theme folder that has it."""
    folders = [(folder, static_files(folder, config.theme.static_templates)) for folder in config.theme.dirs]
    for path in sorted(set().union(*(listed for _, listed in folders))):
        if self.get_file_from_path(path) is None:
            folder = next(folder for folder, listed in folders if path in listed)
            self.append(File(path, folder, config.site_dir, config.use_directory_urls))
