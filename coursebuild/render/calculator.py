"""The memory calculator on the page whose notebook has a cell tagged `calculator` (08, "Will it fit?").

The formula is the page's: that cell prints, from the page's own `estimate` (checked against PyTorch's
tensors in the cells before it), the bytes per parameter of each part for every setting, one line each:
`('bfloat16', True, 'adam', True): (2, 2, 8, 4)`, that is (dtype, training, optimizer, mixed): (weights,
gradients, optimizer state, master weights). coefficients() reads those lines from the executed notebook;
html() puts after the cell, in the page's language:

- a table of common sizes, computed here from the same lines, for readers without JavaScript (and
  search engines);
- a form, hidden until docs/assets/javascripts/calculator.js shows it (and removes the table), which
  carries the lines in data-per-parameter: the script multiplies, it has no formula of its own.

Each part links to the section of the page that explains it, found through a piece of code in that
section (SECTIONS), so the links follow the page's headings in every language. tests/test_calculator.py
checks the lines against `estimate` itself; tests/test_reader_ui.py types values in a browser.
"""
import ast
import json
import re
from html import escape

from coursebuild.render import predict

TAG = "calculator"

PARTS = ("weights", "gradients", "optimizer", "master")
DTYPES = ("float32", "bfloat16", "float16")
OPTIMIZERS = ("sgd", "sgd-momentum", "adam")

# The sizes offered as presets and in the table: 125M, 1B, 7B, 70B parameters.
SIZES = (125 * 10**6, 10**9, 7 * 10**9, 70 * 10**9)
# The table's columns: (dtype, training, optimizer, mixed).
COLUMNS = (("bfloat16", False, None, False), ("bfloat16", True, "adam", True), ("float32", True, "adam", False))

# Number words for counts, largest first, by language (exponent of ten: word). Every page's field also
# reads the other languages' words: a Japanese reader may well type 7B.
UNITS = {"en": {12: "T", 9: "B", 6: "M", 3: "K"},
         "ja": {12: "兆", 8: "億", 4: "万"},
         "ko": {12: "조", 8: "억", 4: "만"}}

# Where each part is explained: a piece of code in a cell of that section.
SECTIONS = {"weights": "def model_bytes(", "gradients": "optimizer = torch.optim.Adam(model.parameters())",
            "optimizer": "optimizer = torch.optim.Adam(model.parameters())", "master": "def estimate(",
            "activations": "def saved_bytes(", "context": "torch.cuda.mem_get_info()"}

LINE = re.compile(r"^(\(.*\)): (\(.*\))$")
H2 = re.compile(r'<h2 id="?([^">\s]+)"?')


def key(dtype, training, optimizer, mixed):
    """The setting as calculator.js spells it: dtype|training|optimizer|mixed (training and mixed 0 or 1;
    no optimizer and no mixed precision in inference)."""
    if not training:
        optimizer, mixed = None, False
    return f"{dtype}|{int(training)}|{optimizer or ''}|{int(mixed)}"


def settings():
    """Every setting the calculator offers, as (dtype, training, optimizer, mixed)."""
    return [(d, False, None, False) for d in DTYPES] + [
        (d, True, o, m) for d in DTYPES for o in OPTIMIZERS for m in (False, True)]


def find_cell(nb):
    """Index of the cell tagged `calculator`, or None."""
    found = [i for i, c in enumerate(nb["cells"]) if TAG in c.get("metadata", {}).get("tags", [])]
    if len(found) > 1:
        raise ValueError(f"cells {', '.join(str(i + 1) for i in found)} are tagged {TAG}: tag one cell")
    return found[0] if found else None


def coefficients(nb, where):
    """{key: [weights, gradients, optimizer, master] bytes per parameter} from the output of the cell
    tagged `calculator`; every setting the form offers must be there, as a tuple of four integers."""
    index = find_cell(nb)
    cell = nb["cells"][index]
    text = "".join("".join(o.get("text", "")) for o in cell.get("outputs", []) if o.get("output_type") == "stream")
    table = {}
    for line in text.splitlines():
        match = LINE.match(line.strip())
        try:
            setting, per = ast.literal_eval(match[1]), ast.literal_eval(match[2])
            ok = len(setting) == 4 and len(per) == 4 and all(type(n) is int and n >= 0 for n in per)
        except (TypeError, ValueError, SyntaxError):
            ok = False
        if not ok:
            raise ValueError(f"{where}: cell {index + 1} (tagged {TAG}) printed {line!r}; each line must be "
                             "`(dtype, training, optimizer, mixed): (weights, gradients, optimizer, master)`, "
                             "bytes per parameter as integers (notebooks/README.md)")
        table[key(*setting)] = list(per)
    missing = [key(*s) for s in settings() if key(*s) not in table]
    if missing:
        raise ValueError(f"{where}: cell {index + 1} (tagged {TAG}) printed no line for {', '.join(missing)}: "
                         "print every setting the calculator offers")
    return table


def bytes_of(table, n_params, setting):
    """Bytes of each part for a count of parameters, as calculator.js computes them."""
    return [n_params * b for b in table[key(*setting)]]


def short(n, lang):
    """A count as a reader of the language writes it: 7B, 70億, 70억."""
    for exponent, word in UNITS[lang].items():
        if n >= 10**exponent:
            value = n / 10**exponent
            return f"{value:.4f}".rstrip("0").rstrip(".") + word
    return f"{n:,}"


def number(value):
    """A figure in GB or GiB: three significant digits below 1,000, whole numbers with separators above
    (calculator.js formats the same way, with the page's locale)."""
    return f"{round(value):,}" if value >= 1000 else f"{value:.3g}"


def meta(nb, where):
    """What the page needs to show a calculator, read from the executed notebook, or None: the tagged
    cell, the coefficients, and the cell that stands for each part's section."""
    index = find_cell(nb)
    if index is None:
        return None
    anchors = {}
    for part, code in SECTIONS.items():
        cells = [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code" and code in "".join(c["source"])]
        if len(cells) != 1:
            raise ValueError(f"{where}: the calculator links `{part}` to the section of the cell with `{code}`, "
                             f"found in {len(cells)} cells (coursebuild/render/calculator.py, SECTIONS)")
        anchors[part] = cells[0]
    return {"cell": index, "table": coefficients(nb, where), "anchors": anchors}


def _section_links(html, anchors, page):
    """{part: '#id' of the h2 section explaining it}."""
    links = {}
    for part, cell in anchors.items():
        start, _ = predict.cell_span(html, cell, page)
        headings = list(H2.finditer(html, 0, start))
        if not headings:
            raise ValueError(f"{page.file.src_uri}: no section heading before cell {cell + 1}")
        links[part] = "#" + headings[-1][1]
    return links


def insert(html, page, labels):
    """The page's HTML with the table and the calculator after the cell tagged `calculator`."""
    found = page.meta["notebook"].get("calculator")
    if not found:
        return html
    index, table = found["cell"], found["table"]
    lang = page.file.src_uri.split("/", 1)[0]
    lang = lang if lang in UNITS else "en"
    text = labels["calculator"]
    links = _section_links(html, found["anchors"], page)
    _, end = predict.cell_span(html, index, page)
    return html[:end] + render(table, lang, text, links) + html[end:]


def _link(links, part, words):
    return f'<a href="{links[part]}">{escape(words)}</a>'


def render(table, lang, text, links):
    """The calculator's HTML: the static table, then the form (hidden without JavaScript)."""
    e = escape
    head = "".join(f'<th scope="col">{e(text[f"column_{i}"])}</th>' for i in range(len(COLUMNS)))
    rows = ""
    for n in SIZES:
        cells = "".join(f"<td>{number(sum(bytes_of(table, n, c)) / 1e9)}</td>" for c in COLUMNS)
        rows += f'<tr><th scope="row">{e(short(n, lang))}</th>{cells}</tr>'
    static = (f'<div class="calc-static"><table><caption>{e(text["table_caption"])}</caption>'
              f'<thead><tr><th scope="col">{e(text["params"])}</th>{head}</tr></thead><tbody>{rows}</tbody></table></div>')

    def options(name, values, selected):
        return (f'<select name="{name}">' + "".join(
            f'<option value="{v}"{" selected" if v == selected else ""}>{e(text.get(f"{name}_{v}", v))}</option>'
            for v in values) + "</select>")

    # spaces between the controls: a line breaks there, not inside a label (매개변수 개수⏎1.25억)
    presets = " ".join(f'<button type="button" class="md-button" data-params="{n}">{e(short(n, lang))}</button>'
                       for n in SIZES)
    parts = "".join(f'<tr><th scope="row">{_link(links, p, text[f"part_{p}"])}</th><td data-part="{p}"></td>'
                    f'<td data-part-gib="{p}"></td></tr>' for p in PARTS)
    leaves_out = e(text["leaves_out"]).replace("{activations}", _link(links, "activations", text["activations"])) \
        .replace("{context}", _link(links, "context", text["context"]))
    accepted = {word: exponent for units in UNITS.values() for exponent, word in units.items()}
    data = {"per-parameter": json.dumps(table, separators=(",", ":")),
            "units": json.dumps({w: x for x, w in UNITS[lang].items()}, ensure_ascii=False, separators=(",", ":")),
            "accepted": json.dumps(accepted, ensure_ascii=False, separators=(",", ":")),
            "count": text["count"], "invalid": text["invalid"], "lang": lang}
    attrs = " ".join(f'data-{k}="{e(v)}"' for k, v in data.items())
    form = (
        f'<form class="calc-form" hidden {attrs}>'
        # the rows of controls are flex boxes, not paragraphs: a control wraps to the next row whole
        f'<div class="calc-params"><label for="calc-params">{e(text["params"])}</label> '
        f'<input id="calc-params" name="params" type="text" value="{e(short(SIZES[2], lang))}" autocomplete="off" '
        f'spellcheck="false" aria-describedby="calc-count"> '
        f'<span class="calc-presets" role="group" aria-label="{e(text["presets"])}">{presets}</span></div>'
        f'<p id="calc-count" class="calc-count" aria-live="polite"></p>'
        f'<div class="calc-choices"><label>{e(text["dtype"])} {options("dtype", DTYPES, "bfloat16")}</label> '
        f'<label>{e(text["mode"])} {options("mode", ("training", "inference"), "training")}</label> '
        f'<label>{e(text["optimizer"])} {options("optimizer", OPTIMIZERS, "adam")}</label> '
        f'<label><input type="checkbox" name="mixed" checked> {e(text["mixed"])}</label></div>'
        f'<table><thead><tr><th scope="col">{e(text["part"])}</th><th scope="col">GB</th>'
        f'<th scope="col">GiB</th></tr></thead><tbody>{parts}</tbody><tfoot><tr><th scope="row">{e(text["total"])}'
        f'</th><td data-total aria-live="polite"></td><td data-total-gib></td></tr></tfoot></table>'
        f'<p class="calc-leaves-out">{leaves_out}</p></form>')
    return (f'<div class="calc" data-calculator><p class="calc-title"><strong>{e(text["title"])}</strong> '
            f'{e(text["intro"])}</p>{static}{form}</div>')
