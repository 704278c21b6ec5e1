"""Content is data, not code: a contributor's notebook cannot run script on the site, and no secret of
the machine that builds reaches it.

One copy of the project gets, at the end of its first notebook in every language, the injections a
probe found running (2026-11-28: an <img onerror> in a Markdown cell, an <svg onload> in a heading,
an IPython.display.HTML output with a <script>, a JavaScript output) and a cell that prints the whole
environment (and one that prints 3,000 lines); it is built with a fake CI token in the build's environment, then loaded in Chromium."""
import base64
import hashlib
import re
import sys

import pytest
from bs4 import BeautifulSoup
from conftest import copy_of_project, run

from coursebuild import course
from tools.static_site import served

SECRET = "probe-secret-7f3a91c0"
CONCEPT = course.concepts()[0]

INJECTED = '''

# %% [markdown]
# Zzprobe text <img src=x onerror="window.pwned='img';document.title='pwned-img'">
#
# ## Zzprobe heading <svg onload="window.pwned='svg';document.title='pwned-svg'"></svg>
#
# <script>window.pwned='md-script'</script><a href="javascript:window.pwned='href'">zzlink</a>

# %%
from IPython.display import HTML, Javascript, display
display(HTML("<b>zzhtml</b><script>window.pwned='html';document.title='pwned-html'</script>"
             "<img src=y onerror=\\"window.pwned='htmlimg'\\">"))
display(Javascript("window.pwned='js'"))
print("<script>window.pwned='print'</script>")

# %%
import os
print(sorted(os.environ.items()))

# %%
print("\\n".join(map(str, range(3000))))
'''


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The copy, built with the injections and a secret in the environment: (project, site)."""
    project = copy_of_project(tmp_path_factory.mktemp("project"))
    for lang in course.LANGS:
        with open(project / "notebooks" / lang / f"{CONCEPT}.py", "a", encoding="utf-8") as notebook:
            notebook.write(INJECTED)
    env = {**__import__("os").environ, "CI_JOB_TOKEN": SECRET, "AWS_SECRET_ACCESS_KEY": SECRET}
    done = run(sys.executable, "-m", "coursebuild.course.twins", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    site = project / "site"
    done = run(sys.executable, "-m", "coursebuild.build", cwd=project, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return project, site


pytestmark = pytest.mark.slow


def test_no_script_from_content_runs_on_any_language(built, chromium):
    _, site = built
    with served(site) as base:
        context = chromium.new_context()
        try:
            for lang in course.LANGS:
                page = context.new_page()
                errors = []
                page.on("console", lambda m: m.type == "error" and errors.append(m.text))
                page.goto(base + ("" if lang == "en" else f"{lang}/") + f"{CONCEPT}/", wait_until="load")
                page.wait_for_function("() => document.querySelector('.md-search__input') && window.document$")
                page.wait_for_timeout(300)
                assert page.evaluate("window.pwned") is None, f"{lang}: content ran {page.evaluate('window.pwned')}"
                assert "pwned" not in page.title()
                assert page.locator("b", has_text="zzhtml").count() == 1, "the HTML output's text is kept"
                assert page.locator("h2", has_text="Zzprobe heading").count() == 1
                # The policy is the second line: a handler that got into the page anyway does not run.
                page.evaluate("document.body.insertAdjacentHTML('beforeend', "
                              "`<img src=nothing onerror=\"window.pwned='late'\">`)")
                page.wait_for_timeout(300)
                assert page.evaluate("window.pwned") is None
                # The site's own scripts run under it: only the injected handler was refused.
                assert [e for e in errors if "Content Security Policy" in e and "inline event handler" not in e] == []
                page.close()
        finally:
            context.close()


def test_the_build_allows_only_its_own_scripts_by_a_policy(built):
    _, site = built
    for path in site.rglob("*.js"):
        assert "pwned" not in path.read_text(encoding="utf-8"), f"{path.relative_to(site)} carries an injected script"
    for lang in course.LANGS:
        html = (site / ("" if lang == "en" else lang) / CONCEPT / "index.html").read_text(encoding="utf-8")
        page = BeautifulSoup(html, "html.parser")
        policy = page.find("meta", attrs={"http-equiv": "Content-Security-Policy"})
        assert policy is not None
        script_src = re.search(r"script-src([^;]*)", policy["content"])[1].split()
        assert script_src[0] == "'self'" and all(re.fullmatch(r"'sha256-[A-Za-z0-9+/]+=*'", s) for s in script_src[1:]), \
            f"{lang}: script-src allows more than the site's files and its own inline scripts: {script_src}"
        assert page.head.find(True) is policy or page.head.find("script") is None or \
            policy in page.head.find("script").find_all_previous("meta"), "the policy comes before any script"
        # Inline scripts run only if the policy names their hash: each is the build's own, hashed as written.
        inline = [s.string for s in page.find_all("script") if not s.get("src") and s.string and s.string.strip()
                  and s.get("type", "text/javascript") in ("text/javascript", "module")]
        hashes = {"'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'" for s in inline}
        assert inline and hashes == set(script_src[1:]), f"{lang}: inline scripts and the policy's hashes differ"
        handlers = [(tag.name, a) for tag in page.find_all(True) for a in tag.attrs if a.lower().startswith("on")]
        assert handlers == [], f"{lang}: event-handler attributes on the page: {handlers}"
        links = [a["href"] for a in page.find_all("a", href=True) if a["href"].lower().startswith("javascript:")]
        assert links == []


def test_no_variable_of_the_build_reaches_the_site_downloads_or_search(built):
    project, site = built
    places = [p for p in site.rglob("*") if p.is_file() and p.suffix in (".html", ".json", ".ipynb", ".js")]
    places += list((project / "docs").rglob("*.ipynb"))
    assert any(p.suffix == ".ipynb" for p in places) and any(p.name.startswith("search_index") for p in places)
    leaked = [str(p.relative_to(project)) for p in places if SECRET in p.read_text(encoding="utf-8", errors="replace")]
    assert leaked == [], f"the build's secret was published in {leaked}"
    page = (site / CONCEPT / "index.html").read_text(encoding="utf-8")
    assert "PATH" in page, "the cell that prints the environment ran"


def test_a_very_tall_output_scrolls_inside_a_bounded_box(built, chromium):
    """Before, 20,000 printed lines made an output box 363,750 px tall (probe case 10)."""
    _, site = built
    with served(site) as base:
        context = chromium.new_context(viewport={"width": 1280, "height": 800})
        try:
            page = context.new_page()
            page.goto(base + f"{CONCEPT}/")
            page.wait_for_function("() => document.documentElement.hasAttribute('data-scripts-ran')")
            box = page.locator(".jp-OutputArea-output > pre", has_text="2999").first
            height, scrolls, tab = box.evaluate("b => [b.getBoundingClientRect().height, b.scrollHeight > b.clientHeight, b.tabIndex]")
            assert height <= 0.7 * 800 + 1 and scrolls, f"{height} px tall"
            assert tab == 0, "a keyboard reaches (and so scrolls) the box"
        finally:
            context.close()
