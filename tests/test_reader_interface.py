"""What a reader sees around the notebooks: the page's language everywhere, tags as meaningful marks,
and an honest line about what produced the outputs."""
import json
from types import SimpleNamespace

from coursebuild import course
from coursebuild.render import marks as cell_marks
import pytest
from test_site import CONFIG, DEFAULT, notebook_pages, page_path, resolve, soup

LANGUAGES = {lang.locale: lang for lang in CONFIG.plugins["i18n"].config["languages"]}


def labels(lang):
    override = LANGUAGES[lang].extra or {}
    return override.get("labels", CONFIG["extra"]["labels"])


def page_notebook(lang, concept):
    return json.loads((course.DOCS / lang / f"{concept}.ipynb").read_text(encoding="utf-8"))


def tagged(nb, predicate):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and any(map(predicate, c["metadata"].get("tags", [])))]


# Interface strings that MkDocs, Material's configuration and mkdocs-jupyter write in English.
ENGLISH_UI = sorted({
    "Copy to Clipboard", "Copied!", "Permanent link", "Dark mode", "Light mode",  # plugin/markdown defaults
    CONFIG["copyright"], *(p["toggle"]["name"] for p in CONFIG["theme"]["palette"]),
    *(CONFIG["extra"]["labels"][k] for k in ("colab", "download", "outputs", "cpu_view", "record_view", "copy",
                                            "permalink", "gpu_only", "gpu_only_title", "predict_wrong",
                                            "predict_printed", "predict_pending", "predict_reset",
                                            "predict_show", "setup")),
    CONFIG["extra"]["labels"]["predict_tally"].split("{")[0],
    CONFIG["extra"]["labels"]["gpu_skipped"].split("{n}")[0], CONFIG["extra"]["labels"]["gpu_ran"].split("{n}")[0],
})


@pytest.mark.parametrize("lang", [lang for lang in course.LANGS if lang != DEFAULT])
def test_japanese_and_korean_pages_have_no_english_interface_strings(site, lang):
    found = []
    for page in sorted((site / lang).rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        found += [f"{page.relative_to(site)}: {text!r}" for text in ENGLISH_UI if text in html]
    assert not found, "English interface text on the page:\n" + "\n".join(found[:30])


def test_every_language_translates_every_interface_label():
    english = CONFIG["extra"]["labels"]
    for lang in course.LANGS:
        if lang == DEFAULT:
            continue
        mine = labels(lang)
        assert set(mine) == set(english), f"{lang}: labels differ from the English keys"
        same = [k for k, v in mine.items() if v and v == english[k]]
        assert not same, f"{lang}: untranslated labels {same}"
        assert LANGUAGES[lang].copyright and LANGUAGES[lang].copyright != CONFIG["copyright"]


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_cell_tags_become_marks_a_reader_understands(site, lang, concept):
    page = site / page_path(lang, concept)
    html = soup(page)
    assert not html.select(".celltoolbar, .cell-tag"), f"{lang}/{concept}: raw cell tags are shown"
    nb = page_notebook(lang, concept)
    sections = cell_marks._fact_check_sections(
        str(course.DOCS / lang / f"{cell_marks.FACT_CHECK}.ipynb"), 0)
    claims = [t for c in nb["cells"] for t in c["metadata"].get("tags", []) if t in sections]
    if concept == cell_marks.FACT_CHECK:
        claims = []  # a mark there would link the page to itself, under the section it links to
    marks = html.select("a.nb-mark--claim")
    assert len(marks) == len(claims), f"{lang}/{concept}: {len(marks)} claim marks for tags {claims}"
    for mark in marks:
        assert mark.get_text(strip=True) == labels(lang)["claim"]
        target, fragment = resolve(site, page, mark["href"])
        assert target == site / page_path(lang, cell_marks.FACT_CHECK), f"{lang}/{concept}: {mark['href']}"
        heading = soup(target).find(id=fragment)
        assert heading is not None and heading.name == "h2", f"{lang}/{concept}: no section {mark['href']}"
        named = " ".join(heading.get_text().rstrip().rstrip("¶").split())  # code in a heading keeps its spaces
        assert " ".join(mark["title"].split()) == named, "the mark names the claim it checks"
    gpu = html.select(".nb-mark--gpu")
    assert len(gpu) == len(tagged(nb, lambda t: t == cell_marks.GPU_ONLY))
    assert all(m.get_text(strip=True) == labels(lang)["gpu_only"] for m in gpu)


def test_claim_sections_are_found_on_the_fact_check_page():
    for lang in course.LANGS:
        sections = cell_marks._fact_check_sections(
            str(course.DOCS / lang / f"{cell_marks.FACT_CHECK}.ipynb"), 0)
        assert {f"claim-M{i}" for i in range(1, 7)} | {f"claim-O{i}" for i in range(1, 6)} <= set(sections), lang


def test_marks_hide_machinery_tags_and_translate_gpu_only():
    toolbar = "".join(f'<div class="button_container tags_button_container"><span class="tag-container">'
                      f'<span class="cell-tag">{t}</span></span></div>'
                      for t in ("raises-exception", "gpu-only", "claim-F1", "something-else"))
    ja = SimpleNamespace(extra={"labels": labels("ja")}, docs_dir=str(course.DOCS))
    page = SimpleNamespace(file=SimpleNamespace(src_uri="ja/02-moving-tensors.ipynb"))
    out = cell_marks.marks(toolbar, page, ja, files=None)
    assert "raises-exception" not in out and "claim-F1" not in out and "something" not in out
    assert f'>{labels("ja")["gpu_only"]}</span>' in out
    assert cell_marks.marks(toolbar.replace("gpu-only", "x"), page, ja, files=None) == ""


@pytest.mark.parametrize("lang, concept", notebook_pages())
def test_provenance_says_which_gpu_only_checks_did_not_run(site, lang, concept):
    [line] = soup(site / page_path(lang, concept)).select(".nb-provenance")
    nb = page_notebook(lang, concept)
    count = len(tagged(nb, lambda t: t == cell_marks.GPU_ONLY))
    said = line.select(".nb-gpu-cells")
    if not count:
        assert not said
        return
    ran_on_gpu = nb["metadata"]["course"]["provenance"]["kind"] == "cuda"
    expected = labels(lang)["gpu_ran" if ran_on_gpu else "gpu_skipped"].replace("{n}", str(count))
    assert [s.get_text(strip=True) for s in said] == [expected]


@pytest.mark.parametrize("lang", course.LANGS)
def test_home_page_says_where_the_checks_ran_and_where_the_files_are(site, lang):
    home = soup(site / page_path(lang, "index")).select_one(".md-content").get_text(" ", strip=True)
    assert f"notebooks/{lang}/" in home, f"{lang}: the home page must point at notebooks/{lang}/"
    assert "README" in home
    assert "CPU" in home or "GPU" in home
    assert labels(lang)["gpu_only"] in home, f"{lang}: the home page must name the GPU-only mark as the pages show it"
    assert "Every claim is checked" not in home


# Material's own strings a native reader stumbled on, corrected in overrides/partials/languages/: the wrong
# wording must not come back (a Material upgrade, a deleted override), and the corrected one is what pages say.
THEME_STRINGS = {
    "ja": {"wrong": ["検索を初期化", ">クリア<", 'aria-label=クリア', "クリップボードへコピー"],
           "right": ["検索の準備中…", "検索語を消去"]},
    "ko": {"wrong": ["맨위로", "검색 초기화", "언어설정", "네비게이션", "상단/헤더", "하단/푸터"],
           "right": ["검색 준비 중…", "맨 위로", "언어 설정"]},
}


@pytest.mark.parametrize("lang", sorted(THEME_STRINGS))
def test_theme_interface_strings_read_as_a_native_reader_expects(site, lang):
    pages = [site / page_path(lang, "index"), site / page_path(lang, "02-moving-tensors")]
    for page in pages:
        html = page.read_text(encoding="utf-8")
        wrong = [s for s in THEME_STRINGS[lang]["wrong"] if s in html]
        assert not wrong, f"{page.relative_to(site)}: Material's uncorrected {lang} strings {wrong}"
        missing = [s for s in THEME_STRINGS[lang]["right"] if s not in html]
        assert not missing, f"{page.relative_to(site)}: the corrected {lang} strings {missing} are not on the page"
