"""The questions on the built site: on every notebook page, in every language; readable in order and graded
without JavaScript (output, checks and explanation simply follow the question); with it, answered by
keyboard, giving nothing away before an answer, graded by the real output, tallied in the page's
language, kept in the browser only, and clean for axe."""
import json

from coursebuild import course
import pytest
from coursebuild.course import questions
from test_browser import (LANGS, SAMPLE_NOTEBOOK, Log, axe_script, desktop, opened, page_url, phone,  # noqa: F401
                          private_tab, tab)
from test_reader_interface import labels
from test_site import notebook_pages, page_path, soup

MIN_QUESTIONS = 3


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_every_notebook_page_has_three_questions_graded_by_its_outputs(site, lang, concept):
    html = soup(site / page_path(lang, concept))
    marked = html.select("[data-predict]")
    assert len(marked) >= MIN_QUESTIONS, f"{lang}/{concept}: {len(marked)} questions"
    nb = json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))
    key = [hits for _, _, hits in questions.answers(nb)]
    assert [[int(q["data-answer"])] for q in marked] == key, f"{lang}/{concept}: the key is not the outputs'"
    for number, q in enumerate(marked, 1):
        assert q["data-predict"] == str(number)
        choices = q.select("ul.predict-choices > li[data-choice]")
        assert 2 <= len(choices) <= 4 and int(q["data-answer"]) < len(choices)
        # A choice is its fragment and nothing else: no explanation that would give the answer away.
        assert all(li.get_text() == li.code.get_text() for li in choices), f"{lang}/{concept}: {choices}"
        # Without JavaScript: the question reads as written, then the asked cell with its output, then the
        # checks and the explanation, in that order.
        answering = html.find(id=q["data-output"])
        assert answering is not None and "jp-CodeCell" in answering["class"]
        output = answering.select_one(f'.jp-Cell-outputArea[data-reveal="{number}"]')
        assert output is not None, f"{lang}/{concept}: question {number}'s output is not marked"
        fragment = choices[int(q["data-answer"])].code.get_text()
        assert questions.shows(fragment, output.get_text()), fragment
        reveals = html.select(f'.predict-reveal[data-reveal="{number}"]')
        assert reveals and reveals[-1].select(".jp-MarkdownCell"), f"{lang}/{concept}: question {number}: no explanation"
        assert reveals[0] in answering.find_all_next(), f"{lang}/{concept}: the answer comes before its cell"
    [tally] = html.select("[data-predict-tally]")
    assert tally.has_attr("hidden"), "the tally needs JavaScript: hidden without it"
    assert tally["data-tally"] == labels(lang)["predict_tally"]


# ------------------------------------------------------------------------------ in a browser

HIDDEN = "el => !el.checkVisibility()"


def closed(locator):
    """Not on screen: not in the page yet (predict.js adds it from its <noscript> when the reader
    answers), or there and hidden."""
    return locator.count() == 0 or all(locator.nth(i).evaluate(HIDDEN) for i in range(locator.count()))
# Everything on screen that could give the answer of question n away before it is answered.
GIVEAWAYS = """n => {
  const q = document.querySelector(`[data-predict="${n}"]`);
  const asked = document.getElementById(q.dataset.output);
  const shown = el => el.checkVisibility();
  const found = [];
  const output = asked.querySelector(".jp-Cell-outputArea");
  if (output && shown(output)) found.push("output: " + output.innerText.slice(0, 80));
  for (const pre of document.querySelectorAll(".jupyter-wrapper pre"))
    if (shown(pre) && /^\\s*assert\\b/m.test(pre.innerText) && pre.closest(`[data-reveal="${n}"]`))
      found.push("assert: " + pre.innerText.slice(0, 80));
  for (const el of document.querySelectorAll(`[data-reveal="${n}"]`))
    if (shown(el)) found.push("revealed: " + el.innerText.slice(0, 80));
  const code = asked.querySelector("pre")?.innerText || "";
  if (/^\\s*assert\\b/m.test(code)) found.push("assert in the asked cell");
  if (/expect_error\\([^)]*,/.test(code)) found.push("expected-error fragment in the asked cell");
  return found;
}"""


@pytest.mark.parametrize("lang, concept", [(lang, c) for lang in LANGS for c in course.concepts()])
def test_no_question_can_be_answered_by_reading_the_screen(chromium, base, lang, concept):
    """Before an answer: no output of the asked cell, no assert, no expected-error fragment, no explanation
    on screen. After picking a choice (or asking for the answer), they open in place."""
    with private_tab(chromium) as (page, log):
        opened(page, page_url(base, lang, concept))
        total = page.locator("[data-predict]").count()
        assert total >= MIN_QUESTIONS
        for n in range(1, total + 1):
            assert page.evaluate(GIVEAWAYS, n) == [], f"{lang}/{concept}: question {n} before an answer"
        for n in range(1, total + 1):
            q = page.locator(f'[data-predict="{n}"]')
            if n % 2:
                q.locator("button.predict-choice").first.click()
            else:
                q.locator("button.predict-show").click()
            assert not page.locator(f'[id="{q.get_attribute("data-output")}"] [data-reveal="{n}"]').evaluate(HIDDEN)
            reveals = page.locator(f'.predict-reveal[data-reveal="{n}"]')
            assert all(not reveals.nth(i).evaluate(HIDDEN) for i in range(reveals.count())), \
                f"{lang}/{concept}: question {n}: the answer's cells stay closed after answering"
        assert not log.errors, "\n".join(log.errors)


def _first_question(page):
    q = page.locator("[data-predict]").first
    return q, page.locator(f"[id='{q.get_attribute('data-output')}'] .jp-Cell-outputArea")


@pytest.mark.parametrize("lang", LANGS)
def test_picking_an_answer_shows_the_output_a_verdict_and_the_tally(chromium, base, axe_script, lang):
    concept = SAMPLE_NOTEBOOK[lang]
    mine = labels(lang)
    with private_tab(chromium) as (page, log):
        opened(page, page_url(base, lang, concept))
        q, output = _first_question(page)
        total = page.locator("[data-predict]").count()
        assert closed(output), f"{lang}/{concept}: the output shows before an answer"
        buttons = q.locator("button.predict-choice")
        assert q.locator("fieldset legend").inner_text().strip(), "the question is the group's legend"
        answer = int(q.get_attribute("data-answer"))
        wrong = (answer + 1) % buttons.count()
        tally = page.locator("[data-predict-tally]")
        assert tally.is_visible()
        assert tally.inner_text().startswith(mine["predict_tally"].split("{")[0].strip())

        buttons.nth(wrong).focus()  # by keyboard
        page.keyboard.press("Enter")
        assert not output.evaluate(HIDDEN), "the output is shown once the reader has answered"
        verdict = q.locator("[role=status]")
        text = verdict.inner_text()
        assert text.startswith(mine["predict_wrong"]), text
        assert mine["predict_printed"] in text and buttons.nth(answer).inner_text().strip() in text
        assert buttons.nth(wrong).get_attribute("aria-pressed") == "true"
        expected = mine["predict_tally"].replace("{right}", "0").replace("{answered}", "1").replace("{total}", str(total))
        assert tally.locator(".predict-count").inner_text() == expected

        buttons.nth(answer).dispatch_event("click")  # the first answer counts (aria-disabled: Playwright refuses to click)
        assert buttons.nth(answer).get_attribute("aria-pressed") == "false"

        second = page.locator("[data-predict]").nth(1)
        second.locator("button.predict-choice").nth(int(second.get_attribute("data-answer"))).press(" ")
        assert second.locator("[role=status]").inner_text().startswith(mine["predict_correct"])
        expected = mine["predict_tally"].replace("{right}", "1").replace("{answered}", "2").replace("{total}", str(total))
        assert tally.locator(".predict-count").inner_text() == expected

        # "Show the answer" opens the answer without counting as a prediction.
        third = page.locator("[data-predict]").nth(2)
        third.locator("button.predict-show").click()
        assert mine["predict_printed"] in third.locator("[role=status]").inner_text()
        assert tally.locator(".predict-count").inner_text() == expected

        page.evaluate(axe_script.read_text(encoding="utf-8"))  # not a <script>: the page allows only its own
        violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
            .violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')})`)""")
        assert not violations, f"{lang}/{concept} after answering:\n" + "\n".join(violations)

        # The answers stay in this browser: back after a reload, and nothing was sent anywhere.
        page.reload(wait_until="networkidle")  # and whatever answering might have sent
        q, output = _first_question(page)
        assert not output.evaluate(HIDDEN)
        assert tally.locator(".predict-count").inner_text() == expected
        page.locator("[data-predict-tally] button").click()
        assert closed(output), "clearing the answers hides the outputs again"
        cleared = mine["predict_tally"].replace("{right}", "0").replace("{answered}", "0").replace("{total}", str(total))
        assert tally.locator(".predict-count").inner_text() == cleared, "clearing the answers resets the score"
        assert not log.foreign(), f"requests to other hosts: {log.foreign()}"
        assert not log.errors, "\n".join(log.errors)


def test_without_javascript_everything_reads_in_order(chromium, base):
    lang, concept = LANGS[1], SAMPLE_NOTEBOOK[LANGS[1]]
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(page_url(base, lang, concept))
        q, output = _first_question(page)
        assert output.is_visible()
        assert q.locator("ul.predict-choices li").first.is_visible()
        assert q.locator("button").count() == 0
        explanation = page.locator('.predict-reveal[data-reveal="1"]').last
        assert explanation.is_visible()
        assert explanation.bounding_box()["y"] > output.bounding_box()["y"], "the explanation comes after the cell"
        assert not page.locator("[data-predict-tally]").is_visible()
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_questions_fit_a_phone_and_stay_readable_in_dark_mode(chromium, base, axe_script, lang):
    concept = SAMPLE_NOTEBOOK[lang]
    context = chromium.new_context(viewport={"width": 375, "height": 812}, is_mobile=True, has_touch=True,
                                   color_scheme="dark", reduced_motion="reduce")
    try:
        page = context.new_page()
        page.goto(page_url(base, lang, concept))
        assert page.locator("body").get_attribute("data-md-color-scheme") == "slate"
        for i in range(page.locator("[data-predict]").count()):
            q = page.locator("[data-predict]").nth(i)
            q.locator("button.predict-choice").first.tap()
        wide = page.evaluate("""() => [...document.querySelectorAll('[data-predict] *, [data-predict-tally] *')]
            .filter(el => el.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
            .map(el => el.tagName + '.' + el.className)""")
        assert not wide, f"{lang}/{concept}: wider than the phone: {wide[:5]}"
        page.evaluate(axe_script.read_text(encoding="utf-8"))  # not a <script>: the page allows only its own
        low = page.evaluate("""async () => (await axe.run({include: [['[data-predict]'], ['[data-predict-tally]']]},
                                 {runOnly: ['color-contrast']})).violations.flatMap(v => v.nodes)
                                 .map(n => n.target.join(' ') + ': ' + n.any[0].message)""")
        assert not low, f"{lang}/{concept}: low contrast in dark mode:\n" + "\n".join(low[:10])
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_the_setup_cell_is_closed_behind_a_summary_and_its_code_still_copies(chromium, base, lang):
    """The first code a reader sees open is the concept's own; the setup cell opens on a click."""
    concept = SAMPLE_NOTEBOOK[lang]
    with private_tab(chromium) as (page, log):
        opened(page, page_url(base, lang, concept))
        setup = page.locator("details.nb-setup")
        assert setup.count() == 1
        assert setup.locator("summary").inner_text().strip() == labels(lang)["setup"]
        assert not setup.locator("pre").first.is_visible()
        first_open = page.locator(".jupyter-wrapper .jp-CodeCell pre").filter(visible=True).first
        assert "import torch" not in first_open.inner_text() and "def expect_error" not in first_open.inner_text()
        setup.locator("summary").click()
        assert "def expect_error" in setup.locator("pre").first.inner_text()
