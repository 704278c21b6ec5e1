"""The memory calculator on 08 gives the figures of the page's own `estimate` (issue 39).

`estimate` is taken from the notebook itself (its source, run here with torch), never copied. The
coefficients the build reads from the executed notebook (coursebuild/render/calculator.py) must equal it
for every setting and many sizes; the static table must show its figures; and in Chromium, values typed
in every language, with every dtype, mode, optimizer and mixed precision, must give `data-total` equal to
it, by keyboard alone too, and on a 390 px phone."""
import ast
import json
import re

from coursebuild import course
from coursebuild.render import calculator
import pytest
from test_browser import DESKTOP, LANGS, PHONE, axe_script, desktop, opened, page_url, tab  # noqa: F401
from test_reader_interface import labels
from test_reader_ui import compose

CONCEPT = "08-will-it-fit"
SIZES = [1, 7, 125 * 10**6, 10**9, 1_300_000_000, 7 * 10**9, 70 * 10**9, 123_456_789_012]


@pytest.fixture(scope="module")
def estimate():
    """The notebook's `estimate` (and the names it reads), run from the notebook's source."""
    import torch

    tree = ast.parse(course.source(course.REFERENCE, CONCEPT).read_text(encoding="utf-8"))
    wanted = [node for node in tree.body
              if isinstance(node, ast.FunctionDef) and node.name == "estimate"
              or isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "STATE_TENSORS" for t in node.targets)]
    assert len(wanted) == 2, "08 no longer defines STATE_TENSORS and estimate at the top level"
    namespace = {"torch": torch}
    exec(compile(ast.Module(wanted, type_ignores=[]), f"{CONCEPT}.py", "exec"), namespace)
    return lambda n, dtype, training, optimizer, mixed: namespace["estimate"](
        n, getattr(torch, dtype), training, optimizer, mixed)


def executed(lang=course.REFERENCE):
    return json.loads((course.DOCS / lang / f"{CONCEPT}.ipynb").read_text(encoding="utf-8"))


def test_the_coefficients_the_build_reads_are_the_estimate_for_every_setting_and_size(estimate):
    table = calculator.coefficients(executed(), CONCEPT)
    wrong = []
    for setting in calculator.settings():
        for n in SIZES:
            expected = list(estimate(n, *setting).values())
            if calculator.bytes_of(table, n, setting) != expected:
                wrong.append(f"{setting} n={n}: {calculator.bytes_of(table, n, setting)} != {expected}")
    assert not wrong, "\n".join(wrong)
    assert len(table) == len(calculator.settings()) == 21


def test_a_line_the_build_cannot_read_stops_it_naming_the_cell():
    nb = executed()
    cell = nb["cells"][calculator.find_cell(nb)]
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["('float32', True, 'adam', False): 16\n"]}]
    with pytest.raises(ValueError, match=r"cell \d+ \(tagged calculator\) printed"):
        calculator.coefficients(nb, CONCEPT)
    cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["('float32', True, 'adam', False): (4, 4, 8, 0)\n"]}]
    with pytest.raises(ValueError, match="printed no line for float32|0||0"):
        calculator.coefficients(nb, CONCEPT)


@pytest.mark.parametrize("lang", LANGS)
def test_the_static_table_shows_the_estimate(estimate, lang):
    table = calculator.coefficients(executed(), CONCEPT)
    links = dict.fromkeys(calculator.SECTIONS, "#s")
    html = calculator.render(table, lang, labels(lang)["calculator"], links)
    static = html[:html.index("<form")]
    rows = re.findall(r"<tr><th scope=\"row\">([^<]+)</th>(.*?)</tr>", static)
    assert [r[0] for r in rows] == [calculator.short(n, lang) for n in calculator.SIZES]
    for n, (_, cells) in zip(calculator.SIZES, rows):
        expected = [calculator.number(sum(estimate(n, *c).values()) / 1e9) for c in calculator.COLUMNS]
        assert re.findall(r"<td>([^<]+)</td>", cells) == expected



def test_one_billion_parameters_with_adam_take_16_gb_in_float32_and_in_mixed_precision():
    """The page's worked example, as the executed notebook's lines give it to the calculator: mixed
    precision counts 16-bit weights and gradients plus float32 master weights and Adam's state, 2 + 2 + 4
    + 8 bytes per parameter (the float32 gradient is made one parameter at a time), as float32's 4 + 4 + 8."""
    table = calculator.coefficients(executed(), CONCEPT)
    mixed = calculator.bytes_of(table, 10**9, ("bfloat16", True, "adam", True))
    fp32 = calculator.bytes_of(table, 10**9, ("float32", True, "adam", False))
    assert mixed == [2 * 10**9, 2 * 10**9, 8 * 10**9, 4 * 10**9]
    assert sum(mixed) == sum(fp32) == 16 * 10**9

def test_counts_read_as_each_language_writes_them():
    assert [calculator.short(n, "en") for n in calculator.SIZES] == ["125M", "1B", "7B", "70B"]
    assert [calculator.short(n, "ja") for n in calculator.SIZES] == ["1.25億", "10億", "70億", "700億"]
    assert [calculator.short(n, "ko") for n in calculator.SIZES] == ["1.25억", "10억", "70억", "700억"]


# ------------------------------------------------------------------------------- in a browser

# What readers type, in each language: (typed, parameters it means)
TYPED = {"en": [("7B", 7 * 10**9), ("1.3b", 1_300_000_000), ("125M", 125 * 10**6), ("7,000,000,000", 7 * 10**9)],
         "ja": [("70億", 7 * 10**9), ("１．２５億", 125 * 10**6), ("7B", 7 * 10**9), ("3000万", 30 * 10**6)],
         "ko": [("70억", 7 * 10**9), ("1.25억", 125 * 10**6), ("7B", 7 * 10**9), ("3000만", 30 * 10**6)]}

FORM = "[data-calculator] form"


def choose(form, dtype, training, optimizer, mixed):
    """Set the form as a reader does (the events a reader's choice fires)."""
    form.locator("select[name=dtype]").select_option(dtype)
    form.locator("select[name=mode]").select_option("training" if training else "inference")
    if training:
        form.locator("select[name=optimizer]").select_option(optimizer)
        box = form.locator("input[name=mixed]")
        if box.is_enabled():
            box.set_checked(mixed)


def total(form):
    value = form.locator("[data-total]").get_attribute("data-total")
    return int(value) if value else None


@pytest.mark.parametrize("lang", LANGS)
def test_typed_values_give_the_estimate_in_every_setting(desktop, base, estimate, lang):
    with tab(desktop) as (page, log):
        opened(page, page_url(base, lang, CONCEPT))
        root = page.locator("[data-calculator]")
        assert root.count() == 1
        assert root.locator(".calc-static").count() == 0, "the table of common sizes stays beside the form"
        form = page.locator(FORM)
        assert form.is_visible()
        params = form.locator("input[name=params]")
        wrong = []
        for typed, n in TYPED[lang]:
            params.fill("")
            params.press_sequentially(typed)
            for setting in calculator.settings():
                choose(form, *setting)
                expected = sum(estimate(n, *setting).values())
                if total(form) != expected:
                    wrong.append(f"{typed!r} {setting}: data-total={total(form)}, estimate={expected}")
        params.fill("")
        params.press_sequentially("seven")
        assert total(form) is None and params.get_attribute("aria-invalid") == "true"
        assert form.locator(".calc-count").inner_text().strip() == labels(lang)["calculator"]["invalid"]
        assert not log.errors, log.errors
        assert not log.foreign(), f"the calculator asked another site: {log.foreign()}"
    assert not wrong, f"{lang}: {len(wrong)} figures differ from the page's estimate:\n" + "\n".join(wrong[:20])


@pytest.mark.parametrize("lang, reading, text", [("ja", "70おく", "70億"), ("ko", "70ㅇㅓㄱ", "70억")])
def test_a_count_typed_with_an_input_method_counts_once_committed(desktop, base, estimate, lang, reading, text):
    with tab(desktop) as (page, _):
        opened(page, page_url(base, lang, CONCEPT))
        form = page.locator(FORM)
        params = form.locator("input[name=params]")
        params.fill("")
        compose(page, params, reading, text)
        assert params.input_value() == text
        assert params.get_attribute("aria-invalid") == "false"
        assert total(form) == sum(estimate(7 * 10**9, "bfloat16", True, "adam", True).values())


@pytest.mark.parametrize("lang", LANGS)
def test_the_calculator_works_by_keyboard_alone(desktop, base, estimate, lang):
    with tab(desktop) as (page, _):
        opened(page, page_url(base, lang, CONCEPT))
        form = page.locator(FORM)
        # the field is in the page's Tab order (tests/test_reader_ui.py walks it); from there, keys only
        form.locator("input[name=params]").focus()
        assert page.evaluate("document.activeElement.name") == "params"
        page.keyboard.press("ControlOrMeta+a")
        page.keyboard.type(calculator.short(10**9, lang))
        assert total(form) == sum(estimate(10**9, "bfloat16", True, "adam", True).values())
        for _ in range(4):  # the presets: the fourth is 70B
            page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        assert form.locator("input[name=params]").input_value() == calculator.short(70 * 10**9, lang)
        assert total(form) == sum(estimate(70 * 10**9, "bfloat16", True, "adam", True).values())
        page.keyboard.press("Tab")  # the dtype
        assert page.evaluate("document.activeElement.name") == "dtype"
        page.keyboard.press("ArrowUp")  # float32
        assert total(form) == sum(estimate(70 * 10**9, "float32", True, "adam", False).values())
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")  # the optimizer
        assert page.evaluate("document.activeElement.name") == "optimizer"
        page.keyboard.press("ArrowUp")  # SGD with momentum
        assert total(form) == sum(estimate(70 * 10**9, "float32", True, "sgd-momentum", False).values())
        page.keyboard.press("Shift+Tab")  # the mode
        page.keyboard.press("ArrowDown")  # inference
        assert total(form) == sum(estimate(70 * 10**9, "float32", False, None, False).values())
        page.keyboard.press("ArrowUp")
        page.keyboard.press("Shift+Tab")  # back to float16 ...
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")
        page.keyboard.press("Tab")  # ... then mixed precision, off with the space bar
        assert page.evaluate("document.activeElement.name") == "mixed"
        page.keyboard.press("Space")
        assert total(form) == sum(estimate(70 * 10**9, "float16", True, "sgd-momentum", False).values())
        page.keyboard.press("Space")
        assert total(form) == sum(estimate(70 * 10**9, "float16", True, "sgd-momentum", True).values())
        page.keyboard.press("Tab")  # the links of the parts lead to their sections
        href = page.evaluate("document.activeElement.getAttribute('href')")
        page.keyboard.press("Enter")
        assert page.evaluate("decodeURIComponent(location.hash)") == href and page.locator(f"h2[id='{href[1:]}']").count() == 1


@pytest.mark.parametrize("lang", LANGS)
def test_the_calculator_fits_a_390_px_phone(chromium, base, estimate, lang):
    context = chromium.new_context(**{**PHONE, "viewport": {"width": 390, "height": 844}})
    try:
        page = context.new_page()
        opened(page, page_url(base, lang, CONCEPT))
        form = page.locator(FORM)
        form.scroll_into_view_if_needed()
        params = form.locator("input[name=params]")
        params.tap()
        params.fill("")
        params.press_sequentially(calculator.short(7 * 10**9, lang))
        form.locator("[data-params]").first.tap()
        assert total(form) == sum(estimate(125 * 10**6, "bfloat16", True, "adam", True).values())
        layout = page.evaluate("""() => {
          const width = document.documentElement.clientWidth;
          const form = document.querySelector('[data-calculator] form');
          const wide = [...form.querySelectorAll('*')].filter(el => el.getBoundingClientRect().right > width + 1)
            .map(el => el.tagName + '.' + el.className);
          const small = [...form.querySelectorAll('input, select, button')].filter(el => {
            const box = (el.type === 'checkbox' ? el.closest('label') : el).getBoundingClientRect();
            return box.height < 24 || box.width < 24; }).map(el => el.outerHTML.slice(0, 80));
          return {width, wide, small, page: document.documentElement.scrollWidth};
        }""")
    finally:
        context.close()
    assert not layout["wide"], f"{lang}: the calculator is wider than a 390 px phone: {layout['wide']}"
    assert not layout["small"], f"{lang}: controls smaller than 24 px on a phone: {layout['small']}"
    assert layout["page"] <= layout["width"], f"{lang}: the page scrolls sideways at 390 px"


@pytest.mark.parametrize("lang", LANGS)
def test_without_javascript_the_page_shows_the_table_of_common_sizes(chromium, base, estimate, lang):
    context = chromium.new_context(**DESKTOP, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(page_url(base, lang, CONCEPT))
        root = page.locator("[data-calculator]")
        assert not root.locator("form").is_visible()
        rows = root.locator(".calc-static tbody tr").all_inner_texts()
    finally:
        context.close()
    expected = [[calculator.short(n, lang)] + [calculator.number(sum(estimate(n, *c).values()) / 1e9)
                                              for c in calculator.COLUMNS] for n in calculator.SIZES]
    assert [r.split("\t") for r in rows] == expected


@pytest.mark.parametrize("lang", LANGS)
def test_axe_finds_no_violation_in_the_calculator(desktop, base, axe_script, lang):
    with tab(desktop) as (page, _):
        opened(page, page_url(base, lang, CONCEPT))
        page.evaluate(axe_script.read_text(encoding="utf-8"))  # not a <script>: the page allows only its own
        violations = page.evaluate("""async () => (await axe.run({include: [['[data-calculator]']]},
            {resultTypes: ['violations']})).violations
            .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.map(n => n.target.join(' ')).join(' | ')})`)""")
    assert not violations, f"{lang}:\n" + "\n".join(violations)


def test_the_page_links_the_calculator_script_only_where_there_is_a_calculator(site):
    for lang in LANGS:
        for concept in course.concepts():
            html = (site / ("" if lang == "en" else lang) / concept / "index.html").read_text(encoding="utf-8")
            assert ("calculator.js" in html) == (concept == CONCEPT) == ("data-calculator" in html), (lang, concept)

