"""Benchmark the build: cold and warm build times, page weights, and search (hit rate of the query
set per language, what search downloads per language). Prints numbers; asserts nothing.

Usage: python -m tools.bench [--no-lighthouse] [--no-search]
"""
import argparse
import contextlib
import os
import re
import signal
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from coursebuild import course
from tools import search_eval
from tools.static_site import free_port

BUDGET_HTML = 150_000


def timed_build(site_dir, root=course.ROOT):
    """Seconds that ./scripts/build takes (the same command, without the virtual-environment check)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "coursebuild.build", "-q", "-d", str(site_dir)], cwd=root,
                   check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


PROSE_EDITED = "notebooks/ja/04-choosing-a-device.py"


def _edit_prose(root, words):
    """Add a sentence under the title of a Japanese notebook (in a copy of the project)."""
    path = root / PROSE_EDITED
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"^(# # .*)$", rf"\1\n#\n# {words}", text, count=1, flags=re.M), encoding="utf-8")


def prose_edit_seconds(tmp):
    """(./scripts/build after a one-sentence edit, edit to page served by ./scripts/serve), measured in
    a copy of the project."""
    root = course.copy_project(Path(tmp) / "project")
    site = Path(tmp) / "edited-site"
    timed_build(site, root)
    _edit_prose(root, "一文を足しました。")
    subprocess.run([sys.executable, "-m", "coursebuild.course.twins"], cwd=root, check=True, stdout=subprocess.DEVNULL)  # ./scripts/sync
    rebuild = timed_build(site, root)
    port = free_port()
    with subprocess.Popen([sys.executable, "-m", "coursebuild.serve", "-a", f"127.0.0.1:{port}"], cwd=root,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as preview:
        try:
            url = f"http://127.0.0.1:{port}/tutorial/ja/04-choosing-a-device/"
            _served(url, "", timeout=180)
            start = time.perf_counter()
            _edit_prose(root, "プレビューで確かめます。")
            _served(url, "プレビューで確かめます。", timeout=60)
            return rebuild, time.perf_counter() - start
        finally:
            preview.send_signal(signal.SIGINT)


def _served(url, text, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if text in urllib.request.urlopen(url, timeout=5).read().decode():
                return
        time.sleep(0.05)
    raise TimeoutError(f"{url} did not show {text!r} within {timeout} s")


def html_bytes(page):
    """The page's own HTML, without the stylesheets inlined in it (the same on every page)."""
    return len(re.sub(r"<style>.*?</style>", "", page.read_text(encoding="utf-8"), flags=re.S).encode())


def first_visit_bytes(site, page):
    """The page and every stylesheet, script, image and icon it loads up front."""
    soup = BeautifulSoup(page.read_text(encoding="utf-8"), "html.parser")
    total, seen = page.stat().st_size, set()
    for el in soup.find_all(["link", "script", "img"]):
        if el.name == "link" and not {"stylesheet", "icon", "preload"} & set(el.get("rel", [])):
            continue
        url = el.get("href") or el.get("src") or el.get("data-after-paint")  # scripts start after the paint
        if not url or urlsplit(url).scheme:
            continue
        target = (page.parent / urlsplit(url).path).resolve()
        if target.is_file() and target not in seen:
            seen.add(target)
            total += target.stat().st_size
    return total


def print_search(site):
    """Search: the query set of tests/search_queries.yml in Chromium, and what a first search downloads."""
    print(f"\nsearch (tests/search_queries.yml; a hit: the expected page in the first {search_eval.TOP}):")
    found = search_eval.measure(site, course.LANGS)
    for part in search_eval.parts():
        print(f" {part}:\n" + search_eval.report([r for r in found if r["part"] == part]))
    print("  what a first search downloads (gzip; fetched in a worker when the reader first opens search):")
    for lang in course.LANGS:
        got = search_eval.downloads(site, lang)
        index = got[f"search/search_index.{lang}.json"]
        print(f"    {lang}: {sum(got.values()) / 1000:6.1f} KB in {len(got)} files, of which the index {index / 1000:.1f} KB")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--no-search", action="store_true", help="skip the search query set (Chromium)")
    args = parser.parse_args(argv)
    port = free_port()
    # Built for the local server, so absolute URLs (canonical, hreflang) stay on this machine.
    os.environ["SITE_URL"] = f"http://127.0.0.1:{port}/tutorial/"
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        shutil.rmtree(course.ROOT / ".cache", ignore_errors=True)  # executed notebooks and rendered pages
        cold = timed_build(site)
        warm = min(timed_build(site) for _ in range(3))
        print(f"cold build (execute + render):  {cold:6.1f} s")
        print(f"unchanged build (best of 3):    {warm:6.1f} s   ({cold / warm:.1f}x faster; budget >= 10x)")
        rebuild, preview = prose_edit_seconds(tmp)
        print(f"build after a one-sentence edit: {rebuild:5.1f} s   ({PROSE_EDITED})")
        print(f"./scripts/serve, edit to page:  {preview:6.1f} s   (budget 3 s; the browser reloads when the "
              "page is served)")
        print(f"\nnotebook pages (HTML budget {BUDGET_HTML // 1000} KB):")
        print(f"  {'page':40} {'HTML KB':>8} {'first visit KB':>15}   (HTML: without its inline stylesheets)")
        for lang in course.LANGS:
            for concept in course.concepts():
                page = site / ("" if lang == "en" else lang) / concept / "index.html"
                print(f"  {lang + '/' + concept:40} {html_bytes(page) / 1000:8.1f} "
                      f"{first_visit_bytes(site, page) / 1000:15.1f}")
        print("\nhome pages and cheat sheets (first-visit budget 300 KB; notebook pages 400 KB):")
        for lang in course.LANGS:
            for name in ("index.html", "cheatsheet/index.html"):
                page = site / ("" if lang == "en" else lang) / name
                print(f"  {lang + '/' + name.removesuffix('index.html'):40} {html_bytes(page) / 1000:8.1f} "
                      f"{first_visit_bytes(site, page) / 1000:15.1f}")
        print("\nstylesheets trimmed by PurgeCSS (coursebuild/assets/trim_css.py):")
        for css in sorted(site.glob("assets/*/*.trimmed.css")):
            print(f"  {css.relative_to(site).as_posix():60} {css.stat().st_size / 1000:8.1f} KB")
        if not args.no_search:
            print_search(site)
        if not args.no_lighthouse:
            print()
            subprocess.run([sys.executable, "-m", "tools.bench_lighthouse", str(site), "--port", str(port)], cwd=course.ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
