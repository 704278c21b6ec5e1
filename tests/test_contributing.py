"""CONTRIBUTING.md is true: its "Add a concept page" and "Add a language" paths, followed in a copy of the
repository exactly as written (every block marked {test}: a file to write, a line to add to a file, the
commands to run), build a site with the new page and the new language.

A block's info string says what to do with it: ```bash {test} runs it with bash in the copy's root;
```LANG {test file="PATH"} writes it to PATH; {test after="PATH:LINE"} and {test before="PATH:LINE"}
put its lines after or before the first line of PATH that is LINE; {test replace="PATH:START"} puts it
in place of the one line of PATH that starts with START. GitHub shows only the language."""
import re
import subprocess

import pytest
import yaml
from conftest import ROOT, copy_of_project

from coursebuild import course

GUIDES = {lang: ROOT / name for lang, name in (("en", "CONTRIBUTING.md"), ("ja", "CONTRIBUTING.ja.md"),
                                               ("ko", "CONTRIBUTING.ko.md"))}
BLOCK = re.compile(r'^```(\w+) \{test(?: (\w+)="([^"]*)")?\}\n(.*?)^```$', re.S | re.M)
CONCEPT, LANGUAGE = "Add a concept page", "Add a language"


def steps(section):
    """[(action, argument, text)] of the {test} blocks of a section (## heading) of CONTRIBUTING.md."""
    text = GUIDES["en"].read_text(encoding="utf-8")
    start = text.index(f"\n## {section}\n")
    end = text.find("\n## ", start + 1)
    found = [(m[2] or "run", m[3], m[4]) for m in BLOCK.finditer(text[start:end if end > 0 else None])]
    assert found, f"CONTRIBUTING.md, {section}: no block marked {{test}}"
    return found


def follow(root, section):
    """Do what the section says, in the copy of the repository at root."""
    for action, argument, text in steps(section):
        if action == "run":
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", text], cwd=root, capture_output=True, text=True,
                                  timeout=600)
            assert done.returncode == 0, (f"CONTRIBUTING.md, {section}: the commands\n{text}failed:\n"
                                          f"{done.stdout[-2000:]}\n{done.stderr[-4000:]}")
            continue
        if action == "file":
            (root / argument).write_text(text, encoding="utf-8")
            continue
        name, _, anchor = argument.partition(":")
        path = root / name
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
        if action == "replace":
            at = [i for i, line in enumerate(lines) if line.startswith(anchor)]
            assert len(at) == 1, f"CONTRIBUTING.md, {section}: {name} has {len(at)} lines starting with {anchor!r}"
            lines[at[0]:at[0] + 1] = [text]
        else:
            at = [i for i, line in enumerate(lines) if line.rstrip("\n") == anchor]
            assert at, f"CONTRIBUTING.md, {section}: {name} has no line {anchor!r}"
            lines.insert(at[0] + (action == "after"), text)
        path.write_text("".join(lines), encoding="utf-8")


@pytest.mark.slow
@pytest.mark.usefixtures("site")
def test_adding_a_concept_then_a_language_as_the_guide_says_builds_the_site(tmp_path):
    """In a copy made once the checkout's site is built (its caches: only what the guide adds runs)."""
    if not (ROOT / ".venv" / "bin" / "python").exists():
        pytest.skip("the guide's commands (./scripts/*) run with the repository's .venv: run ./scripts/test")
    root = copy_of_project(tmp_path / "repository")
    site = root / "site"
    follow(root, CONCEPT)
    for lang in course.LANGS:
        page = site / ("" if lang == course.REFERENCE else lang) / "10-my-concept" / "index.html"
        assert page.is_file(), f"no page {page.relative_to(root)} after '{CONCEPT}'"
        assert re.search(r'data-predict="?1\b', page.read_text(encoding="utf-8")), "the question is marked"
    follow(root, LANGUAGE)
    for page in ("index.html", "cheatsheet/index.html", "10-my-concept/index.html", "01-creating-tensors/index.html",
                 "404.html"):
        html = (site / "zh" / page).read_text(encoding="utf-8")
        assert re.search(r'<html [^>]*lang="?zh\b', html), f"zh/{page} is not a Chinese page"
    assert (site / "search" / "search_index.zh.json").is_file()
    assert re.search(r'hreflang="?zh\b', (site / "index.html").read_text(encoding="utf-8")), "the switcher offers it"


def test_the_guides_language_block_has_every_interface_string():
    """The block replaces the English labels as a whole: one missing would leave a blank or stop the build."""
    from mkdocs.config import load_config

    [block] = [text for action, argument, text in steps(LANGUAGE) if (argument or "").startswith("mkdocs.yml:")]
    [language] = yaml.safe_load(block)
    english = load_config(str(ROOT / "mkdocs.yml"))["extra"]["labels"]
    differ = set(language["extra"]["labels"]) ^ set(english)
    assert not differ, f"CONTRIBUTING.md, {LANGUAGE}: the labels {differ} differ from mkdocs.yml's"


@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_the_short_guides_give_the_same_commands(lang):
    text = GUIDES[lang].read_text(encoding="utf-8")
    for section in (CONCEPT, LANGUAGE):
        for action, _, commands in steps(section):
            for command in commands.splitlines() if action == "run" else ():
                assert command in text, f"{GUIDES[lang].name} lacks `{command}` ({section} in CONTRIBUTING.md)"
