"""What a reader does on the site, in Chromium (issue 23): copy a cell, land on a missing page, paste or
compose a search, read Korean and Japanese lines and the cheat sheets' code on a phone, move by
keyboard in either colour scheme; and what the pages ask of the network and tell search engines.

The figures the tests measure (cells that copy right, tab stops, code cells that scroll sideways) are
printed: `./scripts/test tests/test_reader_ui.py -n 0 -q -s` shows them (-n 0: in one process, whose
output -s can show)."""
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from urllib.parse import urlsplit

from coursebuild import course
import pytest
from conftest import taking_turns
from tools.static_site import served
from test_browser import (CONTEXT, DEFAULT, DESKTOP, LANGS, LUMINANCE, PAGE_TYPES, PHONE, SAMPLE_NOTEBOOK,  # noqa: F401
                          Log, desktop, opened, page_url, phone, search, tab)
from test_reader_interface import labels

CONCEPTS = course.concepts()
MARKDOWN_PAGES = ("index", "cheatsheet")
ALL_PAGES = [(lang, name) for lang in LANGS for name in (*MARKDOWN_PAGES, *CONCEPTS)]
# What each language's readers type, and find on every page of their language (tests/test_browser.py).
QUERY = {"en": "tensor", "ja": "テンソル", "ko": "텐서"}
PHONE_390 = {**PHONE, "viewport": {"width": 390, "height": 844}}


# ------------------------------------------------------------------------------------- 1. copy

@pytest.fixture(scope="module")
def clipboard(chromium):
    """A context whose pages may write and read the clipboard, as a reader's browser lets a copy button."""
    context = chromium.new_context(**DESKTOP, permissions=["clipboard-read", "clipboard-write"])
    context.set_default_timeout(15_000)
    yield context
    context.close()


FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)[ \t]*\{?\.?(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)\n"
                   r"(?P=indent)(?P=fence)[ \t]*$", re.S | re.M)


def fenced(markdown):
    """[(language, source)] of the fenced code blocks in Markdown, in order."""
    return [(f["lang"] or "text", "\n".join(line.removeprefix(f["indent"]) for line in f["body"].split("\n")))
            for f in FENCE.finditer(markdown)]


def code_sources(lang, name):
    """[(language, source)] of the code a page shows with a copy button, in page order: a notebook's
    code cells (docs/<lang>/<name>.ipynb) and the code blocks of its Markdown cells, a Markdown page's
    fenced code blocks."""
    if name in MARKDOWN_PAGES:
        return fenced((course.DOCS / lang / f"{name}.md").read_text(encoding="utf-8"))
    nb = json.loads((course.DOCS / lang / f"{name}.ipynb").read_text(encoding="utf-8"))
    found = []
    for cell in nb["cells"]:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        found += [("python", source)] if cell["cell_type"] == "code" else fenced(source)
    return found


COPY_BUTTONS = "clipboard-copy, .md-code__button[data-md-type=copy]"  # mkdocs-jupyter's; Material 9.8's
# Before a click: the clipboard holds a marker, the button's closed <details> are open, the button is in
# view (an answer's cells open a frame after the reader answers). Where the pointer will press it, and
# whether the button, not something over it, is there (what Playwright's click checks, without its wait
# for two frames of no movement).
AIM = """async b => {
  await navigator.clipboard.writeText('(nothing copied)');
  for (let d = b.closest('details:not([open])'); d; d = d.parentElement.closest('details:not([open])')) d.open = true;
  let aim = {};
  for (const until = Date.now() + 5000; Date.now() < until; await new Promise(requestAnimationFrame)) {
    b.scrollIntoView({block: 'center'});
    const box = b.getBoundingClientRect(), x = box.left + box.width / 2, y = box.top + box.height / 2;
    const there = box.width && box.height ? document.elementFromPoint(x, y) : null;
    aim = {x, y, hit: !!there && b.contains(there), there: there?.outerHTML.slice(0, 200)};
    if (aim.hit) break;
  }
  return aim;
}"""
PASTE = """async () => {
  for (const until = Date.now() + 5000; Date.now() < until; await new Promise(next => setTimeout(next, 10))) {
    const text = await navigator.clipboard.readText();
    if (text !== '(nothing copied)') return text;
  }
  return '(nothing copied within 5 s)';
}"""


# what a notebook copy button shows once it copied: its notice's text (drawn by extra.css), if shown
NOTICE = "b => { const n = b.querySelector('.notice'); return n && !n.hidden ? getComputedStyle(n, '::before').content : '(no notice)'; }"


@pytest.mark.parametrize("lang, name", ALL_PAGES)
def test_every_copy_button_copies_its_code_byte_for_byte(clipboard, base, lang, name):
    expected = code_sources(lang, name)
    copied, notices = [], []
    with tab(clipboard) as (page, log):
        opened(page, page_url(base, lang, name))  # Material's copy buttons are in, and the questions'
        for show in page.locator("button.predict-show").all():  # the answers' code opens once answered
            show.click()
        buttons = page.locator(COPY_BUTTONS).element_handles()
        assert len(buttons) == len(expected), f"{lang}/{name}: {len(buttons)} copy buttons, {len(expected)} code blocks"
        for i, button in enumerate(buttons):
            aim = button.evaluate(AIM)
            assert aim["hit"], f"{lang}/{name}: copy button {i + 1} is covered where a reader would click it: {aim}"
            page.mouse.click(aim["x"], aim["y"])  # the reader's click (Playwright's would wait two frames first)
            copied.append(page.evaluate(PASTE))
            if button.evaluate("b => b.localName") == "clipboard-copy":  # its notice, made by extra.js on a copy
                notices.append(button.evaluate(NOTICE))
        assert not log.errors, log.errors
    assert set(notices) <= {json.dumps(labels(lang)["copied"], ensure_ascii=False)}, \
        f"{lang}/{name}: a notebook copy button said {set(notices)} as it copied"
    right = [got == source for got, (_, source) in zip(copied, expected)]
    print(f"\ncopy {lang}/{name}: {sum(right)} of {len(expected)} code blocks copy right")
    for (kind, source), got, ok in zip(expected, copied, right):
        assert ok, f"{lang}/{name}: the copy button gives\n{got!r}\nfor the code\n{source!r}"
        if kind in ("python", "py"):
            compile(got, f"{lang}/{name} (copied)", "exec")


# --------------------------------------------------------------------------------------- 3. 404

@pytest.mark.parametrize("lang", LANGS)
def test_a_missing_page_answers_in_the_language_of_its_url_with_search_and_a_way_home(desktop, base, lang):
    """GitHub Pages answers every missing path with the root 404.html (tools/static_site.py does too)."""
    missing = page_url(base, lang, "no-such-page") + "#a-section"
    mine = labels(lang)
    with tab(desktop) as (page, log):
        response = page.goto(missing)
        assert response.status == 404
        page.wait_for_function("lang => document.documentElement.lang === lang", arg=lang)
        page.wait_for_load_state("networkidle")
        assert page.url == missing, f"the address bar shows {page.url}, not the address the reader asked for"
        content = page.locator(".md-content")
        assert content.locator("h1").inner_text().strip() == mine["not_found"]
        assert mine["not_found_text"] in content.inner_text()
        home = content.locator("a").evaluate_all("links => links.map(a => a.href)")
        assert page_url(base, lang, "index") in home, f"{lang}: no link to this language's home page: {home}"
        switcher = dict(page.eval_on_selector_all(
            ".md-select__link[hreflang]", "links => links.map(a => [a.hreflang, a.href])"))
        assert switcher == {other: page_url(base, other, "index") for other in LANGS}, \
            f"{lang}: the language switcher of the 404 page leads to {switcher}"
        hits = search(page, QUERY[lang])
        assert hits and all(urlsplit(h).path.startswith(urlsplit(page_url(base, lang, "index")).path) for h in hits), \
            f"{lang}: the 404 page's search finds {hits}"
        if lang == DEFAULT:
            assert all(not urlsplit(h).path.startswith(tuple(urlsplit(page_url(base, o, "index")).path for o in LANGS[1:]))
                       for h in hits), hits
        own = missing.split("#")[0]
        assert not [e for e in log.errors if f"({own}" not in e], log.errors  # the page's own 404 status aside


# ---------------------------------------------------------------------------- 4. network

@pytest.fixture(scope="module")
def production(site, tmp_path_factory):
    """The site built for the URL it is published at (mkdocs.yml's site_url), served here: the tests
    build for their own server, where a request to site_url's host would not leave this machine."""
    out = tmp_path_factory.mktemp("production-site")
    env = {k: v for k, v in os.environ.items() if k != "SITE_URL"}
    with taking_turns("checkout"):  # its caches are the checkout's
        done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)],
                              cwd=course.ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    with served(out) as url:
        yield url


@pytest.mark.parametrize("lang", LANGS)
def test_no_page_requests_anything_from_another_origin(chromium, production, lang):
    """Home, a notebook page, the cheat sheet and the 404 page, built for the published URL."""
    context = chromium.new_context(**DESKTOP)
    try:
        page = context.new_page()
        log = Log(page)
        names = {kind: PAGE_TYPES[kind](lang) for kind in PAGE_TYPES} | {"404": "no-such-page"}
        foreign = {}
        for kind, name in names.items():
            log.requests.clear()
            url = page_url(production, lang, name)
            page.goto(url, wait_until="networkidle")
            origin = "{0.scheme}://{0.netloc}".format(urlsplit(url))
            away = [u for u in log.requests if not u.startswith(("data:", "blob:", "about:")) and not u.startswith(origin + "/")]
            if away:
                foreign[f"{lang} {kind}"] = away
        print(f"\nrequests to another origin, {lang}: {sum(map(len, foreign.values()))}")
        assert not foreign, f"requests that leave the site: {foreign}"
    finally:
        context.close()


# ----------------------------------------------------------------------------- 5. search box

PLACEHOLDER = "document.querySelector('.md-search-result__meta').textContent.trim()"


def open_search(page):
    tr = json.loads(page.locator("#__config").text_content())["translations"]
    box = page.locator("input[data-md-component=search-query]")
    box.click()
    page.wait_for_function(f"p => {PLACEHOLDER} === p", arg=tr["search.result.placeholder"])
    return box, tr


def compose(page, box, reading, text):
    """Type `text` as a Japanese or Korean input method does: a composition shown as it is typed, then
    committed. Chromium's own IME path (DevTools Input domain): composition events, input events, and
    no key release after the commit."""
    box.focus()
    cdp = page.context.new_cdp_session(page)
    try:
        for i in range(1, len(reading) + 1):
            cdp.send("Input.imeSetComposition", {"text": reading[:i], "selectionStart": i, "selectionEnd": i})
        cdp.send("Input.insertText", {"text": text})  # the commit
    finally:
        cdp.detach()


# (how, the reading composed, the text committed)
ENTRIES = {"ja": ("てんそる", "テンソル"), "ko": ("ㅌㅔㄴㅅㅓ", "텐서")}


@pytest.mark.parametrize("how", ["paste", "input-method"])
@pytest.mark.parametrize("lang", ["ja", "ko"])
def test_search_runs_when_text_is_pasted_or_committed_without_a_key(desktop, base, lang, how):
    with tab(desktop) as (page, log):
        page.goto(page_url(base, lang, "index"))
        box, tr = open_search(page)
        page.evaluate("""() => { window.keyups = 0; window.compositionends = 0;
            const box = document.querySelector('input[data-md-component=search-query]');
            box.addEventListener('keyup', e => e.isTrusted && window.keyups++);
            box.addEventListener('compositionend', () => window.compositionends++); }""")
        if how == "paste":
            page.keyboard.insert_text(ENTRIES[lang][1])  # what a paste from the context menu sends: input, no key
        else:
            compose(page, box, *ENTRIES[lang])
            assert page.evaluate("window.compositionends") == 1
        assert page.evaluate("window.keyups") == 0 and box.input_value() == ENTRIES[lang][1]
        page.wait_for_function(f"p => {PLACEHOLDER} !== p", arg=tr["search.result.placeholder"], timeout=3_000)
        titles = page.locator(".md-search-result__item h1, .md-search-result__item h2").all_inner_texts()
        assert titles, f"{lang}: '{ENTRIES[lang][1]}' ({how}) shows no result"
        assert not log.errors, log.errors


def prose(lang):
    """The text the authors wrote for a language's pages: Markdown pages and notebook Markdown cells."""
    texts = [p.read_text(encoding="utf-8") for p in (course.DOCS / lang).glob("*.md")]
    for concept in CONCEPTS:
        nb = json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))
        texts += ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    return "\n".join(texts)


@pytest.mark.parametrize("lang", LANGS)
def test_search_titles_and_snippets_are_the_pages_prose(desktop, site, base, lang):
    """No heading anchor (¶), no hidden "Copied" notice, no cell mark (GPU-only, fact-check) in what
    search shows: these are interface, written on every cell or heading, not the authors' prose."""
    index = json.loads((site / "search" / f"search_index.{lang}.json").read_text(encoding="utf-8"))["docs"]
    assert not [d["title"] for d in index if "¶" in d["title"] + d["text"]], f"{lang}: ¶ in search titles or text"
    written = prose(lang)
    for key in ("copied", "claim", "gpu_only"):
        label = labels(lang)[key]
        shown = sum((d["title"] + " " + d["text"]).count(label) for d in index)
        assert shown <= written.count(label), \
            f"{lang}: search shows '{label}' {shown} times; the authors wrote it {written.count(label)} times"
    with tab(desktop) as (page, _):
        page.goto(page_url(base, lang, "index"))
        hits = search(page, QUERY[lang])
        shown = page.locator(".md-search-result__item").all_inner_texts()
    assert hits and not [t for t in shown if "¶" in t or labels(lang)["copied"] in t], shown


# ------------------------------------------------------------------------------ 6. lines

# Every place where one line of text ends and the next starts, inside the elements `sel` matches:
# [last character of the line, first of the next, the element's text], from the boxes of the characters.
LINE_BREAKS = """sel => {
  const breaks = [];
  for (const el of document.querySelectorAll(sel)) {
    let prev = null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT, {acceptNode: n =>
      n.parentElement.closest('script, style, .md-clipboard, .headerlink, .anchor-link') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT});
    for (let n; (n = walker.nextNode());) {
      for (let i = 0; i < n.data.length; i++) {
        const range = document.createRange();
        range.setStart(n, i); range.setEnd(n, i + 1);
        const box = range.getClientRects()[0];
        if (!box || !box.height) continue;
        if (prev && box.top >= prev.bottom - 1) breaks.push([prev.ch, n.data[i], el.textContent.trim().slice(0, 80)]);
        prev = {ch: n.data[i], bottom: box.bottom};
      }
    }
  }
  return breaks;
}"""
PROSE = ".md-content :is(p, li, td, th, h1, h2, h3, h4, blockquote)"
HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
# A line may not start with these under strict Japanese line breaking (CSS Text: conditional Japanese
# starters; small kana, the prolonged sound mark and iteration marks), nor, under any rule, with
# closing punctuation.
JA_NO_START = set("ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ々〻ー゠〜～、。，．）」』】〕〉》")


def lines_of(phone_or_desktop, base, lang, names, sel):
    breaks, styles = [], {}
    with tab(phone_or_desktop) as (page, _):
        for name in names:
            page.goto(page_url(base, lang, name))
            breaks += [(name, *b) for b in page.evaluate(LINE_BREAKS, sel)]
            styles[name] = page.evaluate("""sel => [...new Set([...document.querySelectorAll(sel)].map(el => {
                const s = getComputedStyle(el); return s.wordBreak + ' ' + s.lineBreak; }))]""", sel)
    return breaks, styles


@pytest.fixture(scope="module")
def phone_390(chromium):
    context = chromium.new_context(**PHONE_390)
    context.set_default_timeout(15_000)
    yield context
    context.close()


def test_korean_lines_break_between_words(phone_390, base):
    names = ["index", "cheatsheet", *CONCEPTS]
    breaks, styles = lines_of(phone_390, base, "ko", names, PROSE)
    inside = [b for b in breaks if (HANGUL.match(b[1]) or HANGUL.match(b[2])) and not b[1].isspace() and not b[2].isspace()
              and (HANGUL.match(b[1]) or b[1].isalnum()) and (HANGUL.match(b[2]) or b[2].isalnum())]
    print(f"\nko at 390 px: {len(breaks)} line breaks in prose, {len(inside)} inside a word")
    assert all(s.startswith("keep-all") for page in styles.values() for s in page), styles
    assert not inside, "Korean lines that break inside a word:\n" + "\n".join(f"{n}: {a}⏎{b}  ({t})" for n, a, b, t in inside[:20])


def test_japanese_lines_follow_strict_line_breaking(phone_390, base):
    names = ["index", "cheatsheet", *CONCEPTS]
    breaks, styles = lines_of(phone_390, base, "ja", names, PROSE)
    bad = [b for b in breaks if b[2] in JA_NO_START]
    print(f"\nja at 390 px: {len(breaks)} line breaks in prose, {len(bad)} before a character that may not start a line")
    assert all(s.endswith("strict") for page in styles.values() for s in page), styles
    assert not bad, "Japanese lines that start with a small kana or closing mark:\n" + \
        "\n".join(f"{n}: {a}⏎{b}  ({t})" for n, a, b, t in bad[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_cheat_sheet_code_never_splits_inside_a_token_on_a_phone(phone_390, base, lang):
    breaks, _ = lines_of(phone_390, base, lang, ["cheatsheet"], ".md-content code")
    inside = [b for b in breaks if not b[1].isspace() and not b[2].isspace()]
    assert not inside, f"{lang}: cheat-sheet code split inside a token at 390 px:\n" + \
        "\n".join(f"{a}⏎{b}  ({t})" for _, a, b, t in inside[:20])


SCROLLING_CODE = """() => [...document.querySelectorAll('.jp-InputArea-editor > pre')]
    .map(code => code.scrollWidth > code.clientWidth + 1)"""
MAX_SCROLLING = 0.05


@pytest.mark.parametrize("lang", LANGS)
def test_few_code_cells_scroll_sideways_at_1280_px(desktop, base, lang):
    scrolling = {}
    with tab(desktop) as (page, _):
        for concept in CONCEPTS:
            opened(page, page_url(base, lang, concept))
            for show in page.locator("button.predict-show").all():  # the answers' cells join the page
                show.click()
            scrolling[concept] = page.evaluate(SCROLLING_CODE)
    total = sum(map(len, scrolling.values()))
    wide = sum(sum(cells) for cells in scrolling.values())
    print(f"\n{lang} at 1280 px: {wide} of {total} code cells scroll sideways "
          f"({', '.join(f'{c[:2]}: {sum(v)}/{len(v)}' for c, v in scrolling.items())})")
    assert wide <= MAX_SCROLLING * total, f"{lang}: {wide} of {total} code cells scroll sideways at 1280 px"


# ----------------------------------------------------------------------------- 7. keyboard

# The element that has the focus, how it shows it, and whether it is something a keyboard reader can
# use: a link or control, or a box that scrolls. A control that is visually hidden (the palette
# toggle's radio button) shows the focus on the label after it.
FOCUSED = LUMINANCE + """
return (() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  el.dataset.tabStop ??= String(Math.random());
  const shown = e => { const box = e.getBoundingClientRect(), s = getComputedStyle(e);
    return box.width >= 2 && box.height >= 2 && s.visibility === 'visible' && e.checkVisibility({opacityProperty: true}); };
  const ring = shown(el) ? el : (el.nextElementSibling?.tagName === 'LABEL' && shown(el.nextElementSibling) ? el.nextElementSibling : el);
  const s = getComputedStyle(ring);
  const behind = background(parseFloat(s.outlineOffset) < 0 ? ring : ring.parentElement);  // a ring inside or outside
  const scrolls = el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1;
  const control = el.matches('a[href], button, input, select, textarea, summary, [role=button], [role=link], [role=tab], [contenteditable]');
  // the ring, and whether a box that clips what overflows it cuts it off
  const box = ring.getBoundingClientRect(), grow = parseFloat(s.outlineOffset) + parseFloat(s.outlineWidth);
  let clipped = false;
  for (let up = ring.parentElement; up && up !== document.body; up = up.parentElement) {
    const o = getComputedStyle(up), edge = up.getBoundingClientRect();
    if (o.overflowX !== 'visible' && (box.left - grow < edge.left - 0.5 || box.right + grow > edge.right + 0.5)) clipped = true;
    if (o.overflowY !== 'visible' && (box.top - grow < edge.top - 0.5 || box.bottom + grow > edge.bottom + 0.5)) clipped = true;
  }
  return {id: el.dataset.tabStop, what: el.tagName.toLowerCase() + [...el.classList].filter(c => c !== 'focus-visible').map(c => '.' + c).join(''),
          shown: shown(ring), clipped, outline: s.outlineStyle !== 'none' ? parseFloat(s.outlineWidth) : 0,
          contrast: contrast(over(rgba(s.outlineColor), behind), behind), useful: control || scrolls,
          inCell: !!el.closest('.jupyter-wrapper'), text: (el.innerText || el.value || el.ariaLabel || '').trim().slice(0, 40)};
})();
"""


def tab_stops(page):
    """Every element Tab reaches on the page, from the top, once each."""
    page.evaluate("document.activeElement?.blur(); window.scrollTo(0, 0)")
    stops = []
    for _ in range(600):
        page.keyboard.press("Tab")
        # as the reader sees it once painted and its transitions ended (focusing the search box opens the
        # search, whose colours fade in: under load the ring was measured halfway, at contrast 1.6)
        # (two frames first: the search opens a task after the focus, and its transitions start then)
        found = page.evaluate(f"""() => {{
            const frames = () => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
            return frames().then(() => Promise.all(document.getAnimations()
                .filter(a => a.effect && a.effect.getComputedTiming().endTime !== Infinity)
                .map(a => a.finished.catch(() => null))))
              .then(frames).then(() => {{ {FOCUSED} }});
        }}""")
        if found is None or (stops and found["id"] == stops[0]["id"]):
            break
        stops.append(found)
    return stops


KEYBOARD_PAGES = [(lang, kind) for lang in LANGS for kind in PAGE_TYPES]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("lang, kind", KEYBOARD_PAGES)
def test_keyboard_reaches_only_what_it_can_use_and_always_shows_where_it_is(chromium, base, lang, kind, scheme):
    name = PAGE_TYPES[kind](lang)
    context = chromium.new_context(**DESKTOP, color_scheme=scheme)
    try:
        page = context.new_page()
        opened(page, page_url(base, lang, name))
        code_cells = page.locator(".jp-CodeCell .jp-InputArea-editor").count()
        stops = tab_stops(page)
        # the first stop skips to the content
        page.evaluate("document.activeElement?.blur(); window.scrollTo(0, 0)")
        page.keyboard.press("Tab")
        first = page.evaluate("[document.activeElement.className, document.activeElement.getAttribute('href')]")
        page.keyboard.press("Enter")
        landed = page.evaluate("document.activeElement.closest('.md-content') !== null || location.hash.length > 1")
    finally:
        context.close()
    in_cells = [s for s in stops if s["inCell"]]
    print(f"\ntab stops {lang}/{name} ({scheme}): {len(stops)}, of which {len(in_cells)} in notebook cells ({code_cells} code cells)")
    assert "md-skip" in first[0] and landed, f"{lang}/{name}: the first Tab stop {first} does not lead to the content"
    useless = [s["what"] for s in stops if not s["useful"]]
    assert not useless, f"{lang}/{name}: Tab stops on what a keyboard cannot use: {sorted(set(useless))} ({len(useless)})"
    unseen = [f"{s['what']} {s['text']!r}: shown={s['shown']} outline={s['outline']}px contrast={s['contrast']:.1f} "
              f"clipped={s['clipped']}" for s in stops
              if not (s["shown"] and s["outline"] >= 2 and s["contrast"] >= 3 and not s["clipped"])]
    assert not unseen, f"{lang}/{name} ({scheme}): focus not visible on:\n" + "\n".join(unseen)


# ------------------------------------------------------------------------------ 8. sitemap

XHTML = "{http://www.w3.org/1999/xhtml}"
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def test_sitemap_lists_every_page_with_its_language_alternates(desktop, base):
    response = desktop.request.get(base + "sitemap.xml")
    assert response.ok
    urls = ET.fromstring(response.body()).findall(f"{SITEMAP}url")
    listed = {u.find(f"{SITEMAP}loc").text: u for u in urls}
    wanted = {page_url(base, lang, name): name for lang, name in ALL_PAGES}
    print(f"\nsitemap: {len(set(listed) & set(wanted))} of {len(wanted)} pages")
    assert set(listed) == set(wanted), f"missing: {sorted(set(wanted) - set(listed))}; not pages: {sorted(set(listed) - set(wanted))}"
    for loc, url in listed.items():
        alternates = {a.get("hreflang"): a.get("href") for a in url.findall(f"{XHTML}link[@rel='alternate']")}
        assert alternates == {lang: page_url(base, lang, wanted[loc]) for lang in LANGS}, f"{loc}: alternates {alternates}"
