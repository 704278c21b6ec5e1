"""Benchmark the build: the cold, unchanged and one-sentence-edit build times and the live preview's
edit-to-page time (each the median of five, in copies of the project, ./scripts/build end to end),
page weights, and search (hit rate of the query set per language, what search downloads per
language). Prints numbers; asserts nothing.

--baseline REV times the same steps for git revision REV in the same run, each of its steps right
after this checkout's (the machine's load changes: compare numbers of one run only).

Usage: python -m tools.bench [--baseline REV] [--cold-runs N] [--no-lighthouse] [--no-search]
"""
import argparse
import contextlib
import os
import re
import signal
import statistics
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
RUNS = 5
PROSE_EDITED = "notebooks/ja/04-choosing-a-device.py"


def project(dest, rev=None):
    """A copy of the project without caches or site: this checkout's files, or those of git revision rev
    (sharing this checkout's .venv and node_modules)."""
    if rev is None:
        return course.copy_project(dest, caches=False)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=course.ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    if (dest / "requirements.txt").read_bytes() != (course.ROOT / "requirements.txt").read_bytes():
        raise SystemExit(f"{rev} pins other requirements: its builds would reinstall the shared .venv")
    for shared in ("node_modules", ".venv"):
        if (course.ROOT / shared).is_dir():
            (dest / shared).symlink_to((course.ROOT / shared).resolve())
    return dest


def timed_build(root):
    """Seconds that ./scripts/build takes in root, end to end (the shell script, the .venv check, Python)."""
    start = time.perf_counter()
    subprocess.run(["./scripts/build", "-q"], cwd=root, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _edit_prose(root, words):
    """Add a sentence under the title of a Japanese notebook."""
    path = root / PROSE_EDITED
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"^(# # .*)$", rf"\1\n#\n# {words}", text, count=1, flags=re.M), encoding="utf-8")


def _sync(root):  # ./scripts/sync: what an author runs before building
    subprocess.run(["./scripts/sync"], cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def build_times(roots, cold_runs=RUNS):
    """{version: {"cold", "unchanged", "prose": [seconds] * RUNS}}, the versions' runs taken in turns
    (the first cold_runs from a copy without caches or site)."""
    times = {name: {"cold": [], "unchanged": [], "prose": []} for name in roots}
    for run in range(RUNS):
        for name, root in roots.items():
            if run < cold_runs:
                for built in (root / ".cache", root / "site"):
                    subprocess.run(["rm", "-rf", str(built)], check=True)
                times[name]["cold"].append(timed_build(root))
            times[name]["unchanged"].append(timed_build(root))
            _edit_prose(root, f"ベンチマークで足した{run + 1}番目の文です。")
            _sync(root)
            times[name]["prose"].append(timed_build(root))
            print(f"  run {run + 1}, {name}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times[name].items() if v),
                  file=sys.stderr, flush=True)
    return times


def preview_times(roots):
    """{version: [seconds from a saved prose edit to the page served by ./scripts/serve] * RUNS}, the
    previews running side by side and edited in turns."""
    previews, times = {}, {name: [] for name in roots}
    with contextlib.ExitStack() as stack:
        for name, root in roots.items():
            port = free_port()
            process = stack.enter_context(subprocess.Popen(
                [sys.executable, "-m", "coursebuild.serve", "-a", f"127.0.0.1:{port}"], cwd=root,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            stack.callback(process.send_signal, signal.SIGINT)
            previews[name] = (root, f"http://127.0.0.1:{port}/tutorial/ja/04-choosing-a-device/")
        for root, url in previews.values():
            _served(url, "", timeout=300)
        time.sleep(3)  # the first build's late events
        for run in range(RUNS):
            for name, (root, url) in previews.items():
                words = f"プレビューで{run + 1}回目に確かめます。"
                start = time.perf_counter()
                _edit_prose(root, words)
                _served(url, words, timeout=60)
                times[name].append(time.perf_counter() - start)
                time.sleep(2)  # let it settle before the next edit
    return times


def _served(url, text, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            if text in urllib.request.urlopen(url, timeout=5).read().decode():
                return
        time.sleep(0.02)
    raise TimeoutError(f"{url} did not show {text!r} within {timeout} s")


def print_times(builds, previews):
    names = list(builds)
    print(f"build times, median of {RUNS}, cold of {len(builds[names[0]]['cold'])} (./scripts/build end to end, in copies of the project; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at the end):")
    print(f"  {'':36}" + "".join(f"{name:>22}" for name in names))
    rows = [("cold build (execute + render)", "cold"), ("unchanged build", "unchanged"),
            ("build after a one-sentence edit", "prose")]
    for label, key in rows:
        print(f"  {label:36}" + "".join(f"{statistics.median(builds[n][key]):20.2f} s" for n in names))
    print(f"  {'./scripts/serve, edit to page':36}" + "".join(f"{statistics.median(previews[n]):20.2f} s" for n in names))
    for name in names:
        ratio = statistics.median(builds[name]["cold"]) / statistics.median(builds[name]["unchanged"])
        print(f"  {name}: unchanged build {ratio:.0f}x faster than cold (budget >= 50x); every run (s): "
              + "; ".join(f"{key} " + " ".join(f"{t:.2f}" for t in builds[name][key]) for _, key in rows)
              + "; serve " + " ".join(f"{t:.2f}" for t in previews[name]))


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
    parser.add_argument("--baseline", metavar="REV", help="time git revision REV too, in the same run")
    parser.add_argument("--cold-runs", type=int, default=RUNS, metavar="N",
                        help=f"time N cold builds of each version (default {RUNS}; a cold build executes every notebook)")
    parser.add_argument("--no-lighthouse", action="store_true")
    parser.add_argument("--no-search", action="store_true", help="skip the search query set (Chromium)")
    args = parser.parse_args(argv)
    port = free_port()
    # Built for the local server, so absolute URLs (canonical, hreflang) stay on this machine.
    os.environ["SITE_URL"] = f"http://127.0.0.1:{port}/tutorial/"
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"this checkout": project(Path(tmp) / "now")}
        if args.baseline:
            roots = {f"before ({args.baseline})": project(Path(tmp) / "before", args.baseline), **roots}
        builds = build_times(roots, args.cold_runs)
        previews = preview_times(roots)
        print_times(builds, previews)
        site = roots["this checkout"] / "site"
        print(f"\nnotebook pages (HTML budget {BUDGET_HTML // 1000} KB; first-visit budget 300 KB):")
        print(f"  {'page':40} {'HTML KB':>8} {'first visit KB':>15}   (HTML: without its inline stylesheets)")
        for lang in course.LANGS:
            for concept in course.concepts():
                page = site / ("" if lang == "en" else lang) / concept / "index.html"
                print(f"  {lang + '/' + concept:40} {html_bytes(page) / 1000:8.1f} "
                      f"{first_visit_bytes(site, page) / 1000:15.1f}")
        print("\nhome pages and cheat sheets (first-visit budget 300 KB, as for notebook pages):")
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
