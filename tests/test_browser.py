"""The built site in a real browser: headless Chromium, driven by Playwright, against the site
served on 127.0.0.1 the way GitHub Pages serves it (tools/static_site.py).

What the static checks in test_site.py cannot see: where the language switcher really leads, what
search finds, whether the notebook download arrives as a file, what a page requests and logs, how
it looks on a phone and in dark mode, and what axe-core finds."""
import contextlib
import json
import re
from urllib.parse import unquote, urlsplit

from coursebuild import course
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from tools.browser_tools import npm_package

# The fixtures chromium_path, chromium (one Playwright browser for the session) and base (the site
# served on 127.0.0.1) are in conftest.py: tests/test_search.py drives the same browser.

LANGS = course.LANGS
DEFAULT = LANGS[0]
CONCEPTS = course.concepts()
NOTEBOOK_PAGES = [(lang, concept) for lang in LANGS for concept in CONCEPTS]
# One notebook page per language for the slower checks, a different notebook in each language.
SAMPLE_NOTEBOOK = {lang: CONCEPTS[i % len(CONCEPTS)] for i, lang in enumerate(LANGS)} if CONCEPTS else {}
PAGE_TYPES = {"home": lambda lang: "index", "notebook": SAMPLE_NOTEBOOK.get, "cheatsheet": lambda lang: "cheatsheet"}

# Material turns its transitions off for reduced motion: the same pages, without waiting for menus to fade in.
CONTEXT = {"reduced_motion": "reduce"}
DESKTOP = {**CONTEXT, "viewport": {"width": 1280, "height": 800}}
PHONE = {**CONTEXT, "viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}

# Every query here must find at least one page in the language of the page it is typed on.
# (language, query, ASCII name for the test id). The query set that measures how well search finds
# the right page is tests/search_queries.yml (tests/test_search.py).
SEARCHES = [("ja", "テンソル", "tensor"), ("ko", "텐서", "tensor"), ("en", "tensor", "tensor"),
            ("en", "set_default_device", "code-set_default_device"), ("en", "to_empty", "code-to_empty"),
            # Material's lunr search alone missed these (its index is segmented, the query was not;
            # Korean matched only the start of a word): the query is now segmented / stemmed too.
            ("ja", "テンソルを", "noun-particle"), ("ja", "ファクトリ関数", "compound"),
            ("ja", "確認する", "verb-suru"), ("ko", "옮기다", "dictionary-form"),
            ("ko", "이동하다", "noun-hada")]


def page_url(base, lang, name):
    prefix = "" if lang == DEFAULT else f"{lang}/"
    return base + prefix + ("" if name == "index" else f"{name}/")


def lang_of(base, url):
    """The language of a page of this site, from its URL."""
    first = urlsplit(url).path[len(urlsplit(base).path):].split("/")[0]
    return first if first in LANGS else DEFAULT


# --------------------------------------------------------------------------------------- setup

@pytest.fixture(scope="session")
def axe_script():
    """axe-core from npm, at the version pinned in package.json."""
    try:
        return npm_package("axe-core") / "axe.min.js"
    except RuntimeError as err:
        pytest.fail(str(err))


class Log:
    """Every request a page makes, and every error it logs."""

    def __init__(self, page):
        self.requests, self.errors = [], []
        page.on("request", lambda r: self.requests.append(r.url))
        page.on("console", lambda m: m.type == "error" and self.errors.append(f"{m.text} ({m.location.get('url')})"))
        page.on("pageerror", lambda e: self.errors.append(f"uncaught {e}"))

    def foreign(self):
        return [u for u in self.requests
                if urlsplit(u).scheme not in ("data", "blob", "about") and urlsplit(u).hostname != "127.0.0.1"]


@pytest.fixture(scope="session")
def desktop(chromium):
    """A browser context shared by the tests that change no stored state (cache stays warm)."""
    context = chromium.new_context(**DESKTOP)
    context.set_default_timeout(15_000)
    yield context
    context.close()


@pytest.fixture(scope="session")
def phone(chromium):
    context = chromium.new_context(**PHONE)
    context.set_default_timeout(15_000)
    yield context
    context.close()


# The page's scripts start after its first paint, one after another (overrides/partials/after-paint.html),
# which marks <html> once they all have run. (An empty data: script queued behind them did this before;
# the Content-Security-Policy runs scripts from the site only.)
SCRIPTS_RAN = """() => new Promise(done => {
  const wait = () => document.documentElement.hasAttribute('data-scripts-ran') ? done() : setTimeout(wait, 20);
  wait();
})"""


def opened(page, url):
    """Go to url and wait until the page's scripts have run (not for the network to be quiet for 500 ms)."""
    page.goto(url)
    page.evaluate(SCRIPTS_RAN)


@contextlib.contextmanager
def tab(context):
    """A new page in `context`, with a log of its requests and errors."""
    page = context.new_page()
    try:
        yield page, Log(page)
    finally:
        page.close()


@contextlib.contextmanager
def private_tab(chromium):
    """A page in a context of its own: for the tests that store something (the palette)."""
    context = chromium.new_context(**DESKTOP)
    context.set_default_timeout(15_000)
    try:
        with tab(context) as opened:
            yield opened
    finally:
        context.close()


# ------------------------------------------------------------------------------ 1. languages

def switch_tour(langs=LANGS):
    """A walk through the languages, one switch at a time, that uses every switch from every
    language to every other once (an Euler circuit of the complete graph): en ja en ko ja ko en."""
    unused = {a: [b for b in reversed(langs) if b != a] for a in langs}
    stack, tour = [langs[0]], []
    while stack:  # Hierholzer
        if unused[stack[-1]]:
            stack.append(unused[stack[-1]].pop())
        else:
            tour.append(stack.pop())
    return tour[::-1]


@pytest.mark.parametrize("concept", CONCEPTS)
def test_language_switcher_opens_the_same_notebook_in_the_other_language(desktop, base, concept):
    tour = switch_tour()
    with tab(desktop) as (page, _):
        opened(page, page_url(base, tour[0], concept))
        for here, there in zip(tour, tour[1:]):
            page.locator(".md-header .md-select").hover()  # the list opens on hover
            page.locator(f".md-select__link[hreflang='{there}']").click()
            want = page_url(base, there, concept)
            with contextlib.suppress(PlaywrightTimeout):
                page.wait_for_url(want, timeout=5_000)
            assert page.url == want, f"{here}/{concept}: the switcher entry '{there}' leads to {page.url}"
            page.evaluate(SCRIPTS_RAN)  # the next hover finds the header the page's scripts have finished
            assert page.locator("html").get_attribute("lang") == there


# --------------------------------------------------------------------------------- 2. search

def search(page, query):
    """Type `query` into Material's search box; the links of the results, once they are shown."""
    tr = json.loads(page.locator("#__config").text_content())["translations"]
    box = page.locator("input[data-md-component=search-query]")
    box.click()
    page.wait_for_function(  # the index is loaded and the worker is ready
        "p => document.querySelector('.md-search-result__meta').textContent.trim() === p",
        arg=tr["search.result.placeholder"])
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    page.wait_for_function(
        """([none, one, other]) => {
             const text = document.querySelector('.md-search-result__meta').textContent.trim();
             return text === none || text === one || new RegExp('^' + other.replace('#', '\\\\d+') + '$').test(text);
           }""",
        arg=[tr["search.result.none"], tr["search.result.one"], tr["search.result.other"]])
    return page.eval_on_selector_all(".md-search-result__item > a", "links => links.map(a => a.href)")


@pytest.mark.parametrize("lang, query", [pytest.param(lang, query, id=f"{lang}-{name}") for lang, query, name in SEARCHES])
def test_search_finds_pages_in_the_language_searched(desktop, base, lang, query):
    with tab(desktop) as (page, _):
        page.goto(page_url(base, lang, "index"))
        hits = search(page, query)
    found = sorted({unquote(urlsplit(h).path[len(urlsplit(base).path):]) or "/" for h in hits})
    print(f"search [{lang}] {query!r}: {len(hits)} results {found if hits else '(a miss)'}")
    assert hits, f"searching {query!r} on the '{lang}' site finds nothing" + (
        "; check plugins.search.separator in mkdocs.yml, which must split code such as "
        "'torch.set_default_device('" if "_" in query else "")
    assert all(lang_of(base, h) == lang for h in hits), f"{query!r} lists pages of another language: {found}"


# -------------------------------------------------------------------- 3. Colab and download

@pytest.mark.parametrize("lang, concept", NOTEBOOK_PAGES)
def test_colab_and_download_links_give_the_same_language_notebook(desktop, base, lang, concept, tmp_path):
    with tab(desktop) as (page, _):
        page.goto(page_url(base, lang, concept))
        colab = page.locator(".nb-bar a[href^='https://colab.research.google.com/']")
        assert colab.count() == 1 and colab.is_visible()
        assert colab.get_attribute("href").endswith(f"/notebooks/{lang}/{concept}.ipynb"), colab.get_attribute("href")
        with page.expect_download() as started:
            page.locator(".nb-bar a[download]").click()
        download = started.value
        assert download.failure() is None, download.failure()
        assert download.suggested_filename.endswith(".ipynb"), download.suggested_filename
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
    nb = json.loads(saved.read_text(encoding="utf-8"))
    assert nb["nbformat"] == 4 and nb["cells"], "the download is not a notebook"
    assert nb["metadata"]["course"]["lang"] == lang, f"{lang}/{concept}: the download is the '{nb['metadata']['course']['lang']}' notebook"
    assert nb["metadata"]["course"]["concept"] == concept


# ---------------------------------------------------------------- 4. requests and console

@pytest.mark.parametrize("lang", LANGS)
def test_pages_request_nothing_from_other_hosts_and_log_no_error(chromium, base, lang):
    """The home page, a notebook page and the cheat sheet, from a first visit (nothing cached)."""
    with private_tab(chromium) as (page, log):
        for kind in ("home", "notebook", "cheatsheet"):
            name = PAGE_TYPES[kind](lang)
            log.requests.clear()
            log.errors.clear()
            page.goto(page_url(base, lang, name), wait_until="networkidle")
            assert not log.foreign(), f"{lang}/{name} requests other hosts: {log.foreign()}"
            assert not log.errors, f"{lang}/{name} logs errors:\n" + "\n".join(log.errors)


# ------------------------------------------------------------------ 5. phone and dark mode

# Every page of the default language; in the others, whose notebooks have the same code and
# outputs, each page type (their prose wraps differently).
PHONE_PAGES = [(DEFAULT, name) for name in ("index", "cheatsheet", *CONCEPTS)] + \
              [(lang, PAGE_TYPES[kind](lang)) for lang in LANGS[1:] for kind in PAGE_TYPES]
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth, wide = [];
  // what scrolls on its own: code, outputs, and tables (Material's script wraps them in a scrolling
  // box; before it runs, Material's stylesheet makes the table itself scroll)
  const allowed = 'pre, .highlight, .jp-OutputArea, .md-typeset__scrollwrap, .md-typeset table:not([class])';
  for (const el of document.querySelectorAll('.md-container *')) {
    const box = el.getBoundingClientRect();
    if ((box.right > width + 1 || box.width > width + 1) && !el.closest(allowed)
        && getComputedStyle(el).visibility !== 'hidden')
      wide.push(`${el.tagName.toLowerCase()}.${[...el.classList].join('.')} (${Math.round(box.left)}..${Math.round(box.right)})`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, width, wide: wide.slice(0, 10)};
}"""


@pytest.mark.parametrize("lang, name", PHONE_PAGES)
def test_nothing_scrolls_sideways_on_a_phone(phone, base, lang, name):
    with tab(phone) as (page, _):
        # before Material's script (it starts after the first paint) and after it
        page.route("**/assets/javascripts/bundle.*.js", lambda route: route.abort())
        page.goto(page_url(base, lang, name))
        before = page.evaluate(OVERFLOW)
        page.unroute("**/assets/javascripts/bundle.*.js")
        page.reload()
        page.wait_for_function("() => document.documentElement.classList.contains('js')")
        after = page.evaluate(OVERFLOW)
    for when, found in (("before its scripts run", before), ("with its scripts", after)):
        assert found["width"] == 375
        assert found["scrollWidth"] <= 375, f"{lang}/{name} {when} is {found['scrollWidth']} px wide: {found['wide']}"
        assert not found["wide"], f"{lang}/{name} {when}: wider than the screen, outside a code block: {found['wide']}"


FIRST_SCREEN = """() => {
  const box = sel => document.querySelector('.md-content ' + sel).getBoundingClientRect();
  const [title, bar, line] = [box('h1'), box('.nb-bar'), box('.nb-provenance')];
  return {height: innerHeight, title: [title.top, title.bottom], bar: [bar.top, bar.bottom], line: [line.top, line.bottom]};
}"""


@pytest.mark.parametrize("lang, concept", NOTEBOOK_PAGES)
def test_phone_first_screen_shows_the_title_then_the_buttons(phone, base, lang, concept):
    with tab(phone) as (page, _):
        page.goto(page_url(base, lang, concept))
        found = page.evaluate(FIRST_SCREEN)
    (top, bottom), bar, line = found["title"], found["bar"], found["line"]
    assert 0 <= top and bottom <= found["height"] / 2, f"{lang}/{concept}: the title is at {top:.0f}..{bottom:.0f} px"
    assert bottom <= bar[0] and bar[1] <= line[0], f"{lang}/{concept}: not title, buttons, provenance: {found}"
    assert line[1] <= found["height"], f"{lang}/{concept}: buttons and provenance end below the first screen: {found}"


LUMINANCE = """
const rgba = c => (c.match(/[\\d.]+/g) || []).map(Number);
const linear = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
const luminance = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
const over = ([r, g, b, a = 1], [R, G, B]) => [r * a + R * (1 - a), g * a + G * (1 - a), b * a + B * (1 - a)];
const background = el => {  // the colour behind el, alpha-blended down to the page
  const layers = [];
  for (; el; el = el.parentElement) {
    const c = rgba(getComputedStyle(el).backgroundColor);
    if (c.length === 3 || c[3] > 0) layers.push(c);
    if (c.length === 3 || c[3] === 1) break;
  }
  return layers.reduceRight((below, c) => over(c, below), [255, 255, 255]);
};
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
"""
DARK = LUMINANCE + """
return (() => {
  const body = background(document.body);
  const cells = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-editor > pre')].map(pre => {
    const bg = background(pre);
    return {bg: luminance(bg), contrast: contrast(over(rgba(getComputedStyle(pre).color), bg), bg)};
  });
  return {body: luminance(body), cells};
})();
"""


@pytest.mark.parametrize("lang", LANGS)
def test_dark_mode_switches_and_keeps_notebook_code_readable(chromium, base, axe_script, lang):
    concept = SAMPLE_NOTEBOOK[lang]
    with private_tab(chromium) as (page, _):
        page.goto(page_url(base, lang, concept))
        assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
        page.locator("form[data-palette] label:not([hidden])").click()
        page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
        found = page.evaluate(f"() => {{ {DARK} }}")
        assert found["body"] < 0.05, f"{lang}/{concept}: the dark page background has luminance {found['body']:.2f}"
        assert found["cells"], f"{lang}/{concept}: no code cells found"
        unreadable = [c for c in found["cells"] if c["contrast"] < 4.5]
        assert not unreadable, f"{lang}/{concept}: code cells below 4.5:1 in dark mode: {unreadable[:3]}"
        # every token colour of the notebook (code, outputs, tracebacks), not only the plain text
        page.evaluate(axe_script.read_text(encoding="utf-8"))  # not a <script>: the page allows only its own
        low = page.evaluate("""async () => (await axe.run({include: [['.jupyter-wrapper']]},
                                 {runOnly: ['color-contrast']})).violations.flatMap(v => v.nodes)
                                 .map(n => n.target.join(' ') + ': ' + n.any[0].message)""")
        assert not low, f"{lang}/{concept}: low contrast in dark mode:\n" + "\n".join(low[:10])
        serious = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
            .violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => `${v.impact} ${v.id}: ${v.help} (e.g. ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')})`)""")
        assert not serious, f"{lang}/{concept} in dark mode:\n" + "\n".join(serious)


# --------------------------------------------------------------------- 6. accessibility

AXE_PAGES = [(lang, kind) for lang in LANGS for kind in PAGE_TYPES]


@pytest.mark.parametrize("kind", ["notebook", "cheatsheet"])
def test_scripts_start_after_the_first_paint_and_material_starts_once(chromium, base, kind):
    """overrides/partials/after-paint.html starts the scripts once the page is painted, and hands
    Material the document whose DOMContentLoaded it missed, once."""
    with private_tab(chromium) as (page, log):
        # when Material's script runs, it marks <html> with the class "js"; count the documents it is handed
        page.add_init_script("""new MutationObserver((_, seen) => {
            if (document.documentElement?.classList.contains("js")) { window.materialRan = performance.now(); seen.disconnect(); }
          }).observe(document, {attributes: true, subtree: true});
          window.documentsHanded = 0;
          Object.defineProperty(window, "document$", {configurable: true, set(subject) {
            const next = subject.next.bind(subject);
            subject.next = value => { window.documentsHanded++; return next(value); };
            Object.defineProperty(window, "document$", {value: subject, writable: true, configurable: true});
          }})""")
        page.goto(page_url(base, "en", PAGE_TYPES[kind]("en")))
        page.wait_for_function("() => window.materialRan")
        # The paint entry is queued once the frame is presented, which can be after Material ran: wait for
        # it. Its paintTime (Chrome 133+; startTime is the presentation time) is when the page was painted.
        page.wait_for_function("() => performance.getEntriesByName('first-paint').length")
        paint, ran = page.evaluate("[(e => e.paintTime ?? e.startTime)(performance.getEntriesByName('first-paint')[0]),"
                                   " window.materialRan]")
        assert paint is not None and ran > paint, f"Material's script ran at {ran:.0f} ms, the first paint was at {paint} ms"
        # Material is handed the document once (a second time, it would mount every component again).
        # Its search working is tested above.
        page.wait_for_load_state("networkidle")
        assert page.evaluate("window.documentsHanded") == 1
        # and fetches no sitemap.xml beside the hreflang alternates (overrides/partials/after-paint.html)
        assert not [u for u in log.requests if u.endswith("/sitemap.xml")]
        assert not log.errors, log.errors


def test_palette_starts_in_the_stored_or_the_system_choice_and_switches(chromium, base):
    """overrides/partials/javascripts/palette.html stands in for Material's palette component: the
    page starts in the reader's stored choice (else the system's), with one colour-scheme meta that
    matches it, and Material does not mount its own toggle (which restyles the whole page at load)."""
    url = page_url(base, "en", SAMPLE_NOTEBOOK["en"])
    meta = "() => [...document.querySelectorAll('meta[name=color-scheme]')].map(m => m.content)"
    with private_tab(chromium) as (page, log):
        page.goto(url)
        assert page.locator("body").get_attribute("data-md-color-scheme") == "default"
        assert page.evaluate(meta) == ["light"]
        assert page.locator("form[data-palette] label:not([hidden])").count() == 1
        assert not page.locator("[data-md-component=palette]").count()
        theme = page.evaluate("document.querySelector('meta[name=theme-color]').content")
        header = page.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor")
        assert theme == "#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", header)[:3])
        page.locator("form[data-palette] label:not([hidden])").click()
        page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
        assert page.evaluate(meta) == ["dark"]
        page.reload()
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        assert page.evaluate(meta) == ["dark"]
        # the keyboard: Enter on the toggle switches back, as with Material's component
        page.locator("form[data-palette] input").first.focus()
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
        assert page.evaluate(meta) == ["light"]
        assert not log.errors, log.errors
    dark = chromium.new_context(**DESKTOP, color_scheme="dark")
    try:
        page = dark.new_page()
        page.goto(url)
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        assert page.evaluate(meta) == ["dark"]
    finally:
        dark.close()


@pytest.mark.parametrize("lang, kind", AXE_PAGES)
def test_axe_finds_no_serious_violation_and_languages_are_declared(desktop, base, axe_script, lang, kind):
    name = PAGE_TYPES[kind](lang)
    with tab(desktop) as (page, _):
        page.goto(page_url(base, lang, name))
        assert page.locator("html").get_attribute("lang") == lang
        alternates = page.eval_on_selector_all(
            "head link[rel=alternate][hreflang]", "links => links.map(l => [l.hreflang, l.href])")
        assert sorted(h for h, _ in alternates) == sorted(LANGS), f"{lang}/{name}: hreflang alternates {alternates}"
        wrong = {h: u for h, u in alternates if u != page_url(base, h, name)}
        assert not wrong, f"{lang}/{name}: hreflang alternates that are not this page in that language: {wrong}"
        page.evaluate(axe_script.read_text(encoding="utf-8"))  # not a <script>: the page allows only its own
        violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
            .violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.length}x, e.g. ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')})`)""")
    assert not violations, f"{lang}/{name}:\n" + "\n".join(violations)
