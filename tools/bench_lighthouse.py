"""Lighthouse scores of a built site, served on 127.0.0.1 the way GitHub Pages serves it.

    python -m tools.bench_lighthouse SITE_DIR [--page PATH ...] [--json]

Runs Lighthouse (npm, pinned in package.json; `npm ci` when node_modules lacks it) with its mobile
defaults and simulated throttling on the home page, the median-size and the largest notebook page
and the cheat sheet of every language (or the --page paths, relative to the site's root), three
times each, and prints the four category scores of the median run and the bytes transferred.
Nothing but 127.0.0.1 is contacted. Not a test: scores move with the machine's load."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.browser_tools import CHROMIUM_ARGS, find_chromium, npm_package
from tools.static_site import served

CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
CHROME_FLAGS = " ".join(["--headless=new", *CHROMIUM_ARGS])


def lighthouse():
    return npm_package("lighthouse").parent / ".bin" / "lighthouse"


def notebook_pages(site):
    """The notebook pages of median and of largest size in the default language (folders holding an .ipynb)."""
    pages = sorted(Path(site).glob("*/*.ipynb"), key=lambda p: (p.parent / "index.html").stat().st_size)
    picked = [pages[len(pages) // 2], pages[-1]] if pages else []
    return [f"{p.parent.name}/" for p in dict.fromkeys(picked)]


def default_pages(site):
    """Home, a typical and the heaviest notebook page, and the cheat sheet, in each language."""
    langs = [""] + sorted(f"{p.parent.name}/" for p in Path(site).glob("*/index.html")
                          if len(p.parent.name) == 2 and (p.parent / "cheatsheet").is_dir())
    return [lang + page for lang in langs for page in ("", *notebook_pages(site), "cheatsheet/")]


def run(url, chrome_path):
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        done = subprocess.run(
            [str(lighthouse()), url, "--output=json", f"--output-path={report}", "--quiet",
             f"--only-categories={','.join(CATEGORIES)}", f"--chrome-flags={CHROME_FLAGS}",
             "--disable-full-page-screenshot"],
            env={**os.environ, "CHROME_PATH": chrome_path}, capture_output=True, text=True)
        if done.returncode or not report.is_file():
            sys.exit(f"lighthouse failed on {url}:\n{done.stderr[-3000:]}")
        data = json.loads(report.read_text())
    if data.get("runtimeError"):
        sys.exit(f"lighthouse: {data['runtimeError']}")
    audits = data["audits"]
    return {
        "url": url,
        **{c: round(data["categories"][c]["score"] * 100) for c in CATEGORIES},
        "total-byte-weight": int(audits["total-byte-weight"]["numericValue"]),
        "failed": sorted(k for k, a in audits.items()
                         if a.get("scoreDisplayMode") in ("binary", "metricSavings") and a.get("score") == 0),
        "lighthouse": data["lighthouseVersion"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path, help="a built site (the folder with index.html)")
    parser.add_argument("--page", action="append", help="page path from the site root, e.g. ja/02-moving-tensors/")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--runs", type=int, default=3,
                        help="runs per page; the run with the median performance score is kept (default 3)")
    parser.add_argument("--port", type=int, default=0,
                        help="serve on this port: the one in the SITE_URL the site was built with")
    args = parser.parse_args()
    if not (args.site / "index.html").is_file():
        parser.error(f"{args.site} has no index.html: build the site first (./scripts/build)")
    pages = args.page or default_pages(args.site)
    chrome_path = find_chromium()
    if chrome_path is None:
        sys.exit("no Chromium found: install it or set CHROME_PATH")
    results = []
    with served(args.site, port=args.port) as base:
        for path in pages:
            runs = sorted((run(base + path.lstrip("/"), chrome_path) for _ in range(args.runs)),
                          key=lambda r: r["performance"])
            results.append(runs[len(runs) // 2])  # Lighthouse's advice: the median of several runs
            results[-1]["page"] = "/" + path.lstrip("/")
            results[-1]["performance runs"] = [r["performance"] for r in runs]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"Lighthouse {results[0]['lighthouse']}, mobile, simulated throttling; served gzip-compressed from 127.0.0.1")
    print(f"{'page':32} {'perf':>5} {'a11y':>5} {'b-p':>5} {'seo':>5} {'KiB':>7}   perf of each run")
    for r in results:
        print(f"{r['page']:32} {r['performance']:5} {r['accessibility']:5} {r['best-practices']:5} {r['seo']:5} "
              f"{r['total-byte-weight'] / 1024:7.0f}   {r['performance runs']}")
    for r in results:
        if r["failed"]:
            print(f"{r['page']}: failed audits: {', '.join(r['failed'])}")


if __name__ == "__main__":
    main()
