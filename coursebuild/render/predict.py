"""Questions on a notebook page ("predict, then run"): each question cell, its choices, and what stays
closed until the reader answers (the asked cell's output, the answer's cells), marked with data-
attributes for docs/assets/javascripts/predict.js, and the tally at the end of the page. The answer key
comes from the page's outputs (coursebuild/course/questions.py). Hands the marked HTML back to pages.py.

What stays closed is written inside <noscript data-later>: with scripts on, the browser keeps it as one
text node, not as the few hundred elements of the outputs and explanations a page's questions hold
(Lighthouse's dom-size), and predict.js makes it the page's when the reader answers or prints; without
scripts it is ordinary HTML and reads in order, as in Colab.
"""
import re
from html import escape

from coursebuild.course import questions

CELL_OPENING = re.compile(r'<div class="jp-Cell [^"]*" id="cell-id=cell-(\d+)">')

# mkdocs-jupyter wraps each code cell in a second div, without the id, right before nbconvert's
WRAPPER_BEFORE = re.compile(r'<div class="jp-Cell jp-CodeCell [^"]*">\s*$')

DIV = re.compile(r"<div\b|</div>")

CHOICE_LIST = re.compile(r"<ul>(.*?)</ul>", re.S)

OUTPUT_WRAPPER = '<div class="jp-OutputArea jp-Cell-outputArea"'  # the cell's outputs

PREDICT_LABELS = ("predict_correct", "predict_wrong", "predict_printed", "predict_pending", "predict_tally",
                  "predict_reset", "predict_show")


def cell_span(html, index, page):
    """(start, end) of cell `index` in the page's HTML, its wrapper included."""
    found = next((m for m in CELL_OPENING.finditer(html) if int(m[1]) == index), None)
    if found is None:
        raise ValueError(f"{page.file.src_uri}: cell {index + 1} not found in the rendered page")
    window = max(0, found.start() - 300)
    wrapper = WRAPPER_BEFORE.search(html[window:found.start()])
    start = window + wrapper.start() if wrapper else found.start()
    depth = 0
    for tag in DIV.finditer(html, start):
        depth += 1 if tag[0] == "<div" else -1
        if depth == 0:
            return start, tag.end()
    raise ValueError(f"{page.file.src_uri}: cell {index + 1} is not closed in the rendered page")


def answer_key(page, nb):
    """[(question cell index, index of the choice the asked cell's output shows, answer cell indices)].
    The execute stage (outputs.py) refuses to write a page whose outputs do not pick exactly one choice of
    each question."""
    key = []
    for question, _, hits in questions.answers(nb):
        if len(hits) != 1:
            raise ValueError(f"{page.file.src_uri}: cell {question.index + 1}, a question, is not answered by exactly "
                             "one choice of the next cell's output; run ./scripts/build")
        key.append((question.index, hits[0], question.answer_cells))
    return key


# Material gives a Markdown code block its copy button when the page loads, not when it is added later
MARKDOWN_CODE_BLOCK = "<pre><code>"


def _later(part, number):
    """`part` kept out of the page's elements until predict.js opens it (see the module's header)."""
    if MARKDOWN_CODE_BLOCK in part or "</noscript>" in part:
        return part
    return f'<noscript data-later="{number}">{part}</noscript>'


def mark_questions(html, page, labels):
    """Mark each question cell (data-predict: its number on the page; data-answer: the choice the asked
    cell's output shows) and its choices, and what stays closed until the reader answers (data-reveal:
    the asked cell's output, the answer's cells), for docs/assets/javascripts/predict.js; end the page
    with the tally the script keeps. Without JavaScript everything reads as written, in order."""
    key = page.meta["notebook"].get("predict") or []
    for number, (index, answer, answer_cells) in enumerate(key, 1):
        for cell in answer_cells:
            start, end = cell_span(html, cell, page)
            html = html[:start] + _later(f'<div class="predict-reveal" data-reveal="{number}">' + html[start:end]
                                         + "</div>", number) + html[end:]
        start, end = cell_span(html, index + 1, page)
        asked = html[start:end]
        if OUTPUT_WRAPPER not in asked:
            raise ValueError(f"{page.file.src_uri}: cell {index + 2}, which question {number} asks about, has no output")
        at = asked.index(OUTPUT_WRAPPER)
        depth, close = 0, None
        for tag in DIV.finditer(asked, at):
            depth += 1 if tag[0] == "<div" else -1
            if depth == 0:
                close = tag.end()
                break
        output = asked[at:close].replace(OUTPUT_WRAPPER, f'{OUTPUT_WRAPPER} data-reveal="{number}"', 1)
        asked = asked[:at] + _later(output, number) + asked[close:]
        html = html[:start] + asked + html[end:]
        start, end = cell_span(html, index, page)
        cell = html[start:end]
        lists = list(CHOICE_LIST.finditer(cell))
        if not lists:
            raise ValueError(f"{page.file.src_uri}: question cell {index + 1} has no list of choices")
        last = lists[-1]
        items = iter(range(100))
        choices = re.sub(r"<li>", lambda m: f'<li data-choice="{next(items)}">', last[1])
        cell = cell[:last.start()] + f'<ul class="predict-choices">{choices}</ul>' + cell[last.end():]
        cell = cell.replace(f'" id="cell-id=cell-{index}">',
                            f' predict" id="cell-id=cell-{index}" data-predict="{number}" data-answer="{answer}" '
                            f'data-output="cell-id=cell-{index + 1}">', 1)
        html = html[:start] + cell + html[end:]
    if key:
        data = " ".join(f'data-{k.removeprefix("predict_")}="{escape(labels[k])}"' for k in PREDICT_LABELS)
        html += f'<div class="predict-tally" data-predict-tally {data} hidden></div>'
    return html
