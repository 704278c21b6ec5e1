"""Screenshots of a built site for comparing its look by eye (before and after a style change).

    python scripts/screenshots.py SITE_DIR OUT_DIR [--page PATH ...] [--full]

Shoots each page (default: a home page, a cheat sheet and the notebook pages whose outputs include
stdout, stderr and tables) in the light and dark schemes, on a desktop and a phone screen, with
headless Chromium, and saves PNGs named <page>-<scheme>-<screen>.png. Each notebook page also gets
one close-up per kind of output it has (stdout, stderr, error, table) in every combination."""
import argparse
import sys
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from browser_tools import CHROMIUM_ARGS, find_chromium
from static_site import served

PAGES = ["", "cheatsheet/", "ja/", "02-moving-tensors/", "ja/06-fact-check/", "ko/03-moving-models/"]
SCREENS = {"desktop": {"viewport": {"width": 1280, "height": 800}},
           "phone": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True,
                     "device_scale_factor": 2}}
SCHEMES = {"light": "light", "dark": "dark"}  # prefers-color-scheme: Material's palette follows it
OUTPUTS = {  # the first element of each kind of output on a page
    "stdout": ".jp-OutputArea-output[data-mime-type='text/plain']",
    "stderr": ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
    "error": ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']",
    "table": ".jupyter-wrapper table, .md-typeset table",
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--page", action="append", help="page path from the site root, e.g. ja/02-moving-tensors/")
    parser.add_argument("--full", action="store_true", help="whole pages, not only the first screen")
    parser.add_argument("--port", type=int, default=0, help="the port in the SITE_URL the site was built with")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with served(args.site, port=args.port) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        for screen, options in SCREENS.items():
            for scheme in SCHEMES.values():
                context = browser.new_context(**options, color_scheme=scheme, reduced_motion="reduce")
                page = context.new_page()
                for path in args.page or PAGES:
                    page.goto(base + path, wait_until="networkidle")
                    name = (urlsplit(path).path.strip("/").replace("/", "_") or "home")
                    page.screenshot(path=args.out / f"{name}-{scheme}-{screen}.png", full_page=args.full)
                    for kind, selector in OUTPUTS.items():
                        found = page.locator(selector).first
                        if found.count():
                            found.scroll_into_view_if_needed()
                            box = found.locator("xpath=ancestor-or-self::div[contains(@class,'jp-Cell ')][1]")
                            target = box if box.count() else found
                            target.first.screenshot(path=args.out / f"{name}-{kind}-{scheme}-{screen}.png")
                context.close()
        browser.close()
    print(f"{len(list(args.out.glob('*.png')))} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
