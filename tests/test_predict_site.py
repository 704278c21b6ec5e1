"""The questions on the built site: on every notebook page, in every language; readable and graded
without JavaScript (the output is simply shown); with it, answered by keyboard, graded by the real
output, tallied in the page's language, kept in the browser only, and clean for axe."""
import json

import course
import pytest
from test_browser import LANGS, SAMPLE_NOTEBOOK, Log, axe_script, desktop, page_url, phone, private_tab, tab  # noqa: F401
from test_reader_interface import labels
from test_site import notebook_pages, page_path, soup

MIN_QUESTIONS = 3


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_every_notebook_page_has_three_questions_graded_by_its_outputs(site, lang, concept):
    html = soup(site / page_path(lang, concept))
    questions = html.select("[data-predict]")
    assert len(questions) >= MIN_QUESTIONS, f"{lang}/{concept}: {len(questions)} questions"
    nb = json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))
    key = [hits for _, _, hits in course.answers(nb)]
    assert [[int(q["data-answer"])] for q in questions] == key, f"{lang}/{concept}: the key is not the outputs'"
    for number, q in enumerate(questions, 1):
        assert q["data-predict"] == str(number)
        choices = q.select("ul.predict-choices > li[data-choice]")
        assert 2 <= len(choices) <= 4 and int(q["data-answer"]) < len(choices)
        assert all(li.code for li in choices), f"{lang}/{concept}: a choice without its `fragment`"
        # Without JavaScript: the question reads as written, and the answering output is on the page.
        answering = html.find(id=q["data-output"])
        assert answering is not None and "jp-CodeCell" in answering["class"]
        assert answering.select(".jp-OutputArea-output"), f"{lang}/{concept}: question {number} has no output"
        fragment = choices[int(q["data-answer"])].code.get_text()
        assert course.shows(fragment, answering.select_one(".jp-Cell-outputWrapper").get_text()), fragment
    [tally] = html.select("[data-predict-tally]")
    assert tally.has_attr("hidden"), "the tally needs JavaScript: hidden without it"
    assert tally["data-tally"] == labels(lang)["predict_tally"]


# ------------------------------------------------------------------------------ in a browser

HIDDEN = "el => !el.checkVisibility()"


def _first_question(page):
    q = page.locator("[data-predict]").first
    return q, page.locator(f"[id='{q.get_attribute('data-output')}'] .jp-Cell-outputWrapper")


@pytest.mark.parametrize("lang", LANGS)
def test_picking_an_answer_shows_the_output_a_verdict_and_the_tally(chromium, base, axe_script, lang):
    concept = SAMPLE_NOTEBOOK[lang]
    mine = labels(lang)
    with private_tab(chromium) as (page, log):
        page.goto(page_url(base, lang, concept), wait_until="networkidle")
        q, output = _first_question(page)
        total = page.locator("[data-predict]").count()
        assert output.evaluate(HIDDEN), f"{lang}/{concept}: the output shows before an answer"
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

        page.add_script_tag(path=str(axe_script))
        violations = page.evaluate("""async () => (await axe.run(document, {resultTypes: ['violations']}))
            .violations.filter(v => ['serious', 'critical'].includes(v.impact))
            .map(v => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(' | ')})`)""")
        assert not violations, f"{lang}/{concept} after answering:\n" + "\n".join(violations)

        # The answers stay in this browser: back after a reload, and nothing was sent anywhere.
        page.reload(wait_until="networkidle")
        q, output = _first_question(page)
        assert not output.evaluate(HIDDEN)
        assert tally.locator(".predict-count").inner_text() == expected
        page.locator("[data-predict-tally] button").click()
        assert output.evaluate(HIDDEN), "clearing the answers hides the outputs again"
        assert not log.foreign(), f"requests to other hosts: {log.foreign()}"
        assert not log.errors, "\n".join(log.errors)


def test_without_javascript_the_question_is_text_and_the_output_is_shown(chromium, base):
    lang, concept = LANGS[1], SAMPLE_NOTEBOOK[LANGS[1]]
    context = chromium.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(page_url(base, lang, concept))
        q, output = _first_question(page)
        assert output.is_visible()
        assert q.locator("ul.predict-choices li").first.is_visible()
        assert q.locator("button").count() == 0
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
        page.add_script_tag(path=str(axe_script))
        low = page.evaluate("""async () => (await axe.run({include: [['[data-predict]'], ['[data-predict-tally]']]},
                                 {runOnly: ['color-contrast']})).violations.flatMap(v => v.nodes)
                                 .map(n => n.target.join(' ') + ': ' + n.any[0].message)""")
        assert not low, f"{lang}/{concept}: low contrast in dark mode:\n" + "\n".join(low[:10])
    finally:
        context.close()
