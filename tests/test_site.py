"""The built site: every notebook page rendered, linked, attributed, light and self-contained."""
import json
import posixpath
import subprocess
from functools import lru_cache
from urllib.parse import unquote, urlsplit

from coursebuild import course
import pytest
from bs4 import BeautifulSoup
from conftest import taking_turns
from mkdocs.config import load_config

CONFIG = load_config(str(course.ROOT / "mkdocs.yml"))
SITE_URL = CONFIG["site_url"]
BASE = urlsplit(SITE_URL).path  # the path the site is published under, e.g. /tutorial/
DEFAULT = course.LANGS[0]
PAGE_BUDGET = 150_000
# A first visit (the page, and the stylesheets, scripts and images it loads up front), uncompressed.
FIRST_VISIT_BUDGET = {"notebook": 300_000, "home": 300_000, "cheatsheet": 300_000}


def page_path(lang, name):
    prefix = "" if lang == DEFAULT else f"{lang}/"
    return f"{prefix}{name}/index.html" if name != "index" else f"{prefix}index.html"


def notebook_pages():
    return [(lang, c) for lang in course.LANGS for c in course.concepts()]


@lru_cache(maxsize=None)
def soup(path):
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def html_files(site):
    return sorted(site.rglob("*.html"))


def resolve(site, page, url):
    """The file (and fragment) a link on `page` points to, or None if it leaves the site."""
    if url.startswith(SITE_URL):
        url = url[len(SITE_URL) - len(BASE):]
    parts = urlsplit(url)
    if parts.scheme or parts.netloc:
        return None
    path = unquote(parts.path)
    if path.startswith(BASE):  # root-relative links (404.html, language switcher)
        path = "/" + path[len(BASE):]
    here = "/" + posixpath.dirname(str(page.relative_to(site)))
    target = posixpath.normpath(posixpath.join(here, path)) if path else "/" + str(page.relative_to(site))
    file = site / target.lstrip("/")
    if file.is_dir() or path.endswith("/"):
        file = file / "index.html"
    return file, unquote(parts.fragment)


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_notebook_page_is_rendered_not_raw_source(site, lang, concept):
    html = (site / page_path(lang, concept)).read_text(encoding="utf-8")
    assert "jupyter-wrapper" in html, f"{lang}/{concept} was not rendered as a notebook"
    assert '"cell_type"' not in html and "# %%" not in html, f"{lang}/{concept} shows raw source"
    assert soup(site / page_path(lang, concept)).select(".jp-OutputArea-output"), "no outputs shown"


def test_no_element_has_an_empty_id(site):
    for page in html_files(site):
        empty = [el.name for el in soup(page).find_all(id=True) if not el["id"].strip()]
        assert not empty, f"{page.relative_to(site)}: elements with an empty id: {empty}"
        headings = soup(page).select(".md-content h1, .md-content h2, .md-content h3")
        missing = [h.get_text(strip=True) for h in headings if h.name != "h1" and not h.get("id")]
        assert not missing, f"{page.relative_to(site)}: headings without id: {missing}"


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_language_switcher_leads_to_the_same_page(site, lang, concept):
    page = site / page_path(lang, concept)
    links = {a["hreflang"]: a["href"] for a in soup(page).select("a.md-select__link[hreflang]")}
    assert set(links) == set(course.LANGS)
    for other, href in links.items():
        target, _ = resolve(site, page, href)
        assert target == site / page_path(other, concept), f"{lang}/{concept}: switcher to {other} goes to {href}"


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_colab_link_opens_the_same_language_notebook_committed_on_the_branch(site, lang, concept):
    colab = CONFIG["extra"]["colab"]
    prefix = f"https://colab.research.google.com/github/{colab['repo']}/blob/{colab['branch']}/"
    hrefs = [a["href"] for a in soup(site / page_path(lang, concept)).find_all("a", href=True)
             if a["href"].startswith("https://colab.research.google.com/")]
    assert hrefs == [prefix + f"notebooks/{lang}/{concept}.ipynb"]
    target = hrefs[0][len(prefix):]
    assert (course.ROOT / target).is_file(), f"{target} does not exist"
    tracked = subprocess.run(["git", "ls-files", "--error-unmatch", target], cwd=course.ROOT, capture_output=True)
    assert tracked.returncode == 0, f"{target} is not committed, so Colab cannot open it"


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_notebook_page_starts_with_its_title_then_buttons_and_provenance(site, lang, concept):
    article = soup(site / page_path(lang, concept)).select_one("article.md-content__inner")
    marks = ("nb-bar", "nb-provenance")
    order = [el.name if el.name == "h1" else next(c for c in el["class"] if c in marks)
             for el in article.find_all(lambda el: el.name == "h1" or set(el.get("class", [])) & set(marks))]
    assert order == ["h1", "nb-bar", "nb-provenance"], f"{lang}/{concept}: page starts {order}"
    assert article.h1.get_text(strip=True), f"{lang}/{concept}: empty title"


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_download_link_is_the_same_language_notebook(site, lang, concept):
    page = site / page_path(lang, concept)
    [link] = soup(page).select("a[download]")
    target, _ = resolve(site, page, link["href"])
    assert target.suffix == ".ipynb" and target.is_file()
    nb = json.loads(target.read_text(encoding="utf-8"))
    assert nb["metadata"]["course"]["lang"] == lang and nb["metadata"]["course"]["concept"] == concept


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_page_says_what_produced_its_outputs(site, lang, concept):
    [line] = soup(site / page_path(lang, concept)).select(".nb-provenance")
    text = line.get_text(" ", strip=True)
    nb = json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))
    provenance = nb["metadata"]["course"]["provenance"]
    for field in ("device", "torch", "date"):
        assert provenance[field] in text, f"{lang}/{concept}: provenance line lacks {field}: {text}"


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_notebook_page_html_is_within_budget(site, lang, concept):
    """The page's own HTML; its stylesheets, inline since they are the same on every page, count in the
    first-visit budget below."""
    from tools.bench import html_bytes
    size = html_bytes(site / page_path(lang, concept))
    assert size < PAGE_BUDGET, f"{lang}/{concept}: {size} bytes of HTML (budget {PAGE_BUDGET})"


def test_pages_link_no_stylesheet_and_start_their_scripts_after_the_first_paint(site):
    """A stylesheet link holds up the first paint (Lighthouse's render-blocking audit): pages carry
    their trimmed stylesheets inline. No script is loaded by the parser: overrides/partials/after-paint.html
    starts them all, Material's first, once the page is painted."""
    for page in site.rglob("*.html"):
        doc = soup(page)
        name = page.relative_to(site)
        assert not doc.find_all("link", rel="stylesheet"), f"{name} links a stylesheet"
        if doc.find("article"):
            assert doc.find_all("style"), f"{name} has no styles"
            # The parser loads no script: the templates' own small scripts are inline, allowed by
            # their hashes in the Content-Security-Policy (coursebuild/render/csp.py).
            parsed = [s["src"] for s in doc.find_all("script", src=True)]
            assert not parsed, f"{name}: scripts the parser loads: {parsed}"
            sizes = [len(s.string or "") for s in doc.find_all("script") if not s.attrs]
            assert all(size < 3000 for size in sizes), f"{name}: a large script holds up the first paint: {sizes}"
            later = doc.find_all("script", attrs={"data-after-paint": True})
            assert later and later[0].has_attr("data-material"), f"{name}: Material's script is not the first to start"
            assert all(s.get("type") == "text/plain" for s in later), f"{name}: a data-after-paint script would run at once"


def test_every_language_has_a_home_page_with_its_lang(site):
    for lang in course.LANGS:
        page = site / page_path(lang, "index")
        assert soup(page).html["lang"] == lang


def test_every_internal_link_and_anchor_resolves(site):
    broken = []
    for page in html_files(site):
        for el in soup(page).find_all(["a", "link", "script", "img"]):
            url = el.get("href") or el.get("src") or el.get("data-after-paint")
            if not url or url.startswith(("mailto:", "javascript:")):
                continue
            hit = resolve(site, page, url)
            if hit is None:
                continue
            target, fragment = hit
            if not target.exists():
                broken.append(f"{page.relative_to(site)} -> {url}")
            elif fragment and target.suffix == ".html" and not soup(target).find(id=fragment) \
                    and not soup(target).find(attrs={"name": fragment}):
                broken.append(f"{page.relative_to(site)} -> {url} (no such anchor)")
    assert not broken, "broken links:\n" + "\n".join(broken[:50])


# Where a page meets an error, it links to that error's section on the errors page that decodes it
# (07: device mismatches; 09: setup and memory).
ERROR_SECTIONS = {
    "03-moving-models": ["07-device-errors/#expected-all-tensors-to-be-on-the-same-device",
                         "09-setup-and-memory-errors/#attempting-to-deserialize-object-on-a-cuda-device"],
    "06-fact-check": ["07-device-errors/#expected-all-tensors-to-be-on-the-same-device",
                      "09-setup-and-memory-errors/#cuda-error-invalid-device-ordinal",
                      "09-setup-and-memory-errors/#cannot-access-accelerator-device-when-none-is-available",
                      "07-device-errors/#module-must-have-its-parameters-and-buffers-on-device-cuda0-device_ids0-but-found-one-of-them-on-device-cpu"],
}


@pytest.mark.parametrize("lang", course.LANGS)
def test_pages_link_to_the_section_of_their_error(site, lang):
    for concept, anchors in ERROR_SECTIONS.items():
        links = {a["href"] for a in soup(site / page_path(lang, concept)).find_all("a", href=True)}
        missing = [a for a in anchors if f"../{a}" not in links]
        assert not missing, f"{lang}/{concept} does not link to these sections of the errors pages: {missing}"

def test_pages_load_nothing_from_other_hosts(site):
    foreign = []
    for page in html_files(site):
        for el in soup(page).find_all(["script", "link", "img", "iframe", "source"]):
            if el.name == "link" and not {"stylesheet", "preload", "icon", "modulepreload"} & set(el.get("rel", [])):
                continue
            url = el.get("src") or el.get("href")
            if url and resolve(site, page, url) is None:
                foreign.append(f"{page.relative_to(site)}: <{el.name}> {url}")
    css = " ".join(p.read_text(encoding="utf-8") for p in site.rglob("*.css"))
    assert "fonts.googleapis" not in css and "@import url(http" not in css
    assert not foreign, "\n".join(foreign[:20])


def test_search_index_covers_all_languages(site):
    # one index per language (coursebuild/search/index.py; tests/test_search.py checks them further)
    for lang in course.LANGS:
        index = json.loads((site / "search" / f"search_index.{lang}.json").read_text(encoding="utf-8"))
        assert index["config"]["lang"] == [lang] and index["docs"]


def first_visit_pages():
    return [(lang, "notebook", c) for lang, c in notebook_pages()] + \
           [(lang, kind, kind if kind != "home" else "index") for lang in course.LANGS for kind in ("home", "cheatsheet")]


@pytest.mark.parametrize("lang, kind, name", first_visit_pages())
def test_first_visit_is_within_budget(site, lang, kind, name):
    from tools.bench import first_visit_bytes
    size = first_visit_bytes(site, site / page_path(lang, name))
    budget = FIRST_VISIT_BUDGET[kind]
    assert size <= budget, f"{lang}/{name}: a first visit loads {size} bytes (budget {budget})"


# the site's own, small: written for its pages, not trimmed (calculator.css: 08 only)
OWN_STYLESHEETS = ("assets/stylesheets/extra.css", "assets/stylesheets/calculator.css")


def test_stylesheets_are_trimmed_and_no_page_links_an_untrimmed_one(site):
    """PurgeCSS ran (coursebuild/assets/trim_css.py): JupyterLab's ~590 KB and Material's ~140 KB are gone."""
    css = sorted(p.relative_to(site).as_posix() for p in site.glob("assets/*/*.css"))
    assert [c for c in css if c.startswith("assets/notebook/")], css
    untrimmed = [c for c in css if c.endswith(".css") and not c.endswith(".trimmed.css")
                 and c not in OWN_STYLESHEETS]
    assert not untrimmed, f"untrimmed stylesheets: {untrimmed}"
    for c in css:
        assert (site / c).stat().st_size < 100_000, f"{c} is {(site / c).stat().st_size} bytes"


def test_no_page_uses_a_feature_whose_styles_are_trimmed_away(site):
    """coursebuild/assets/trim_css.py drops Material's rules for features the site never renders
    (UNUSED_FEATURES): a page that uses one would show it unstyled. (tests/test_answer_first.py checks
    the classes scripts add too.)"""
    from coursebuild.assets.trim_css import unused_feature
    found = {}
    for page in html_files(site):
        for el in soup(page).find_all(class_=True):
            for name in el["class"]:
                if unused_feature(name):
                    found.setdefault(f"class {name!r} ({unused_feature(name)})", page.relative_to(site).as_posix())
    assert not found, ("pages use classes whose styles the build trims away; take the feature out of "
                       f"UNUSED_FEATURES in coursebuild/assets/trim_css.py: {found}")


def test_a_fork_builds_with_its_own_repository_branch_and_site_url(tmp_path):
    """What .github/workflows/pages.yml passes in a fork: every Colab link and site_url are the fork's."""
    import os
    import sys
    fork = {"COLAB_REPO": "someone/tensor-fork", "COLAB_BRANCH": "try-this", "REPO_URL": "https://github.com/someone/tensor-fork",
            "SITE_URL": "https://someone.github.io/tensor-fork/"}
    with taking_turns("checkout"):  # its caches are the checkout's
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path)],
                              cwd=course.ROOT, capture_output=True, text=True, env={**os.environ, **fork})
    assert done.returncode == 0, done.stderr[-3000:]
    prefix = "https://colab.research.google.com/github/someone/tensor-fork/blob/try-this/"
    for lang, concept in notebook_pages():
        page = BeautifulSoup((tmp_path / page_path(lang, concept)).read_text(encoding="utf-8"), "html.parser")
        colab = [a["href"] for a in page.find_all("a", href=True) if "colab.research.google.com" in a["href"]]
        assert colab == [f"{prefix}notebooks/{lang}/{concept}.ipynb"], f"{lang}/{concept}: {colab}"
        canonical = page.find("link", rel="canonical")["href"]
        assert canonical.startswith(fork["SITE_URL"]), f"{lang}/{concept}: canonical {canonical}"
        assert page.find("a", href=fork["REPO_URL"]), f"{lang}/{concept}: no link to the fork's repository"
    assert fork["SITE_URL"] in (tmp_path / "sitemap.xml").read_text(encoding="utf-8")


def test_every_dialog_has_a_name(site):
    """axe's aria-dialog-name (serious): Material's search dialog is named after its search box."""
    unnamed = [str(page.relative_to(site)) for page in site.rglob("*.html")
               for dialog in soup(page).find_all(attrs={"role": "dialog"}) if not dialog.get("aria-label")]
    assert unnamed == [], f"dialogs without a name on {unnamed[:5]}"
