"""The page minifier (coursebuild/assets/minify.py): a page is checked and minified once; an unchanged
page comes from the cache, neither parsed nor minified again (before, every build parsed every page
twice, about 2.5 s); a page whose whitespace matters outside <pre> still stops the build, and nothing
is written."""
import minify_html
import pytest

from coursebuild.assets import minify

PAGE = "<html><head><style>.out{white-space:pre}</style></head><body>\n  <p>one   two</p>\n{}</body></html>"


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setattr(minify, "CACHE", tmp_path / "cache")
    folder = tmp_path / "site"
    (folder / "a").mkdir(parents=True)
    (folder / "index.html").write_text(PAGE.replace("{}", "<pre>kept\n  as is</pre>"), encoding="utf-8")
    (folder / "a" / "index.html").write_text(PAGE.replace("{}", "<div>a</div>"), encoding="utf-8")
    return folder


def _counting(monkeypatch):
    calls = {"parsed": 0, "minified": 0}
    check, small = minify.whitespace_at_risk, minify_html.minify

    def parsed(html):
        calls["parsed"] += 1
        return check(html)

    def minified(html, **options):
        calls["minified"] += 1
        return small(html, **options)

    monkeypatch.setattr(minify, "whitespace_at_risk", parsed)
    monkeypatch.setattr(minify_html, "minify", minified)
    return calls


def test_each_page_is_parsed_once_and_an_unchanged_page_not_again(site, tmp_path, monkeypatch):
    calls = _counting(monkeypatch)
    pristine = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    assert minify.minify(site) > 0
    assert calls == {"parsed": 2, "minified": 2}
    first = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    assert "<pre>kept\n  as is</pre>" in first[site / "index.html"] and "one two" in first[site / "index.html"]
    for page, text in pristine.items():  # the next build writes the same pages again
        page.write_text(text, encoding="utf-8")
    (site / "a" / "index.html").write_text(pristine[site / "a" / "index.html"].replace(">a<", ">b<"), encoding="utf-8")
    minify.minify(site)
    assert calls == {"parsed": 3, "minified": 3}, "only the changed page"
    assert (site / "index.html").read_text(encoding="utf-8") == first[site / "index.html"]
    assert ">b<" in (site / "a" / "index.html").read_text(encoding="utf-8")


def test_a_page_whose_whitespace_matters_stops_it_before_anything_is_written(site):
    minify.minify(site)  # index.html is in the cache now: the failing page is another
    bad = site / "a" / "index.html"
    bad.write_text(PAGE.replace("{}", '<div class="out">a\n  b</div>'), encoding="utf-8")
    index = (site / "index.html").read_text(encoding="utf-8")
    (site / "index.html").write_text(index + " ", encoding="utf-8")
    with pytest.raises(ValueError, match=r'^a/index.html: <div class="out"> holds text whose line breaks'):
        minify.minify(site)
    assert (site / "index.html").read_text(encoding="utf-8") == index + " ", "nothing written"
    assert len(list(minify.CACHE.glob("*.html"))) == 2, "nor cached"


def test_our_scripts_are_minified_once_keeping_their_globals(tmp_path, monkeypatch):
    """coursebuild/assets/minify_js.py: esbuild halves a script, keeps the top-level names the
    templates and Material share, leaves Material's bundle alone, and an unchanged script is not
    minified again (no Node.js)."""
    import subprocess

    from coursebuild.assets import minify_js

    monkeypatch.setattr(minify_js, "CACHE", tmp_path / "cache")
    scripts = tmp_path / "site" / "assets" / "javascripts"
    (scripts / "inline").mkdir(parents=True)
    ours = "// why this is here\n__md_get = (key, storage = localStorage) => {\n  const stored = storage.getItem(key);\n  return stored;\n};\n"
    (scripts / "inline" / "a.js").write_text(ours, encoding="utf-8")
    (scripts / "bundle.0123.min.js").write_text("var  spaced = 1;\n", encoding="utf-8")
    assert minify_js.minify(tmp_path / "site") > 0
    small = (scripts / "inline" / "a.js").read_text(encoding="utf-8")
    assert "__md_get" in small and "why" not in small and len(small) < len(ours) * 0.8, small
    assert (scripts / "bundle.0123.min.js").read_text(encoding="utf-8") == "var  spaced = 1;\n"
    (scripts / "inline" / "a.js").write_text(ours, encoding="utf-8")  # the next build writes it again
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("esbuild ran for an unchanged script"))
    minify_js.minify(tmp_path / "site")
    assert (scripts / "inline" / "a.js").read_text(encoding="utf-8") == small


def test_cell_ids_go_unless_a_question_or_a_link_refers_to_them():
    page = ('<div class="jp-Cell" id="cell-id=cell-1"></div><div class="jp-Cell" id="cell-id=cell-2"></div>'
            '<div data-output="cell-id=cell-2"></div><a href="#cell-id=cell-3">x</a><p id="cell-id=cell-3"></p>')
    assert minify._without_unused_cell_ids(page) == (
        '<div class="jp-Cell"></div><div class="jp-Cell" id="cell-id=cell-2"></div>'
        '<div data-output="cell-id=cell-2"></div><a href="#cell-id=cell-3">x</a><p id="cell-id=cell-3"></p>')
