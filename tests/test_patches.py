"""Every patch of a library (coursebuild/patches.py) still fits the library installed: same version as
it was written for, as requirements.txt pins it, and the same code where it reaches in. When this fails
after a library update, read the entry's `check`, fix or delete the patch, then update the entry."""
import importlib.metadata
import re

import pytest
from conftest import ROOT

from coursebuild import patches

PINS = dict(re.findall(r"^([\w.-]+)==(\S+)", (ROOT / "requirements.txt").read_text(encoding="utf-8"), re.M))


def _id(patch):
    return patch.name


@pytest.mark.parametrize("patch", patches.PATCHES, ids=_id)
def test_the_patch_was_written_for_the_version_installed_and_pinned(patch):
    installed = importlib.metadata.version(patch.library)
    assert installed == patch.version, (
        f"{patch.library} is {installed}, the patch {patch.name} was written for {patch.version}: check "
        f"{patch.check}; then update the version in PATCHES (coursebuild/patches.py)")
    pinned = PINS.get(patch.library)
    assert pinned == patch.version, (
        f"requirements.txt pins {patch.library}=={pinned}, the patch {patch.name} was written for {patch.version}: "
        f"check {patch.check}; then update the version in PATCHES (coursebuild/patches.py)")


@pytest.mark.parametrize("patch", patches.PATCHES, ids=_id)
def test_the_library_code_the_patch_depends_on_is_unchanged(patch):
    now = patches.fingerprint(patch.target)
    assert now == patch.fingerprint, (
        f"{patch.target} ({patch.library} {importlib.metadata.version(patch.library)}) is not what the patch "
        f"{patch.name} was written for (fingerprint {patch.fingerprint}, now {now}): check {patch.check}; then "
        "update its fingerprint in PATCHES (coursebuild/patches.py)")


def test_the_hooks_install_every_replacement_once():
    from coursebuild import hooks  # noqa: F401  (MkDocs loads it; loading it applies the patches)

    patches.apply()  # a second time (the live preview loads the configuration again): nothing doubles
    missing = [p.name for p in patches.PATCHES if p.install and not patches.installed(p)]
    assert not missing, f"not installed: {missing}"
    from mkdocs_static_i18n.plugin import I18n

    assert I18n.on_post_build.__wrapped__.__name__ == "on_post_build", "wrapped once, around i18n's own"
    assert not hasattr(I18n.on_post_build.__wrapped__, "__wrapped__")


def test_every_template_override_is_listed():
    """A file in overrides/ with the path of one of Material's templates replaces it: it needs an entry."""
    material = patches._source_root("material") / "material" / "templates"
    replaced = {p.relative_to(ROOT / "overrides").as_posix() for p in (ROOT / "overrides").rglob("*.html")
                if (material / p.relative_to(ROOT / "overrides")).is_file()}
    listed = {p.target.removeprefix("material/templates/") for p in patches.PATCHES if p.library == patches.MATERIAL}
    # main.html is Material's documented way to extend base.html (blocks and super()), not a replacement
    unlisted = replaced - {"main.html"} - listed
    assert not unlisted, f"template overrides without an entry in coursebuild/patches.py: {unlisted}"


def test_theme_files_are_those_mkdocs_finds(tmp_path):
    """theme-files lists the installed theme folders once per process: the same files, from the same folders."""
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    from coursebuild import hooks  # noqa: F401  (applies the patches)

    (tmp_path / "overrides" / "assets").mkdir(parents=True)
    (tmp_path / "overrides" / "assets" / "extra.js").write_text("", encoding="utf-8")  # an author's, first
    (tmp_path / "overrides" / "main.html").write_text("", encoding="utf-8")  # a template: not a file
    config = load_config(str(ROOT / "mkdocs.yml"), site_dir=str(tmp_path / "site"))
    config.theme.dirs.insert(0, str(tmp_path / "overrides"))
    env = config.theme.get_env()
    found = []
    for add in (patches.originals["theme-files"], Files.add_files_from_theme, Files.add_files_from_theme):
        files = Files([])
        add(files, env, config)
        found.append([(f.src_uri, f.abs_src_path) for f in files])
    assert found[0] == found[1] == found[2]
    assert ("assets/extra.js", str(tmp_path / "overrides" / "assets" / "extra.js")) in found[0]
    assert len(found[0]) > 40
