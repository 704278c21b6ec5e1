"""Screenshots of a built site for comparing its look by eye (before and after a style change).

    python -m tools.screenshots SITE_DIR OUT_DIR [--page PATH ...] [--full]

Shoots each page (default: a home page, a cheat sheet and the notebook pages whose outputs include
stdout, stderr and tables) in the light and dark schemes, on a desktop and a phone screen, with
headless Chromium, and saves PNGs named <page>-<scheme>-<screen>.png. Each notebook page also gets
one close-up per kind of output it has (stdout, stderr, error, table) in every combination.
With --predict, instead: the first question of a notebook page in each language, before and after
the reader answers it (a wrong choice, then the page reloaded and the right one), light and dark."""
import argparse
import sys
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from tools.browser_tools import CHROMIUM_ARGS, find_chromium
from tools.static_site import served

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
    parser.add_argument("--predict", action="store_true", help="a question before and after answering, per language")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    if args.predict:
        return predict(args)
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
                        # the first one shown: an output that answers a question is hidden until answered
                        found = page.locator(f"{selector} >> visible=true").first
                        if found.count():
                            found.scroll_into_view_if_needed()
                            box = found.locator("xpath=ancestor-or-self::div[contains(@class,'jp-Cell ')][1]")
                            target = box if box.count() else found
                            target.first.screenshot(path=args.out / f"{name}-{kind}-{scheme}-{screen}.png")
                context.close()
        browser.close()
    print(f"{len(list(args.out.glob('*.png')))} screenshots in {args.out}")
    return 0


PREDICT_PAGES = ["02-moving-tensors/", "ja/02-moving-tensors/", "ko/02-moving-tensors/"]


def predict(args):
    """The first question of each page, unanswered, then answered wrong, then answered right."""
    with served(args.site, port=args.port) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=find_chromium(), args=CHROMIUM_ARGS)
        for scheme in SCHEMES.values():
            context = browser.new_context(**SCREENS["desktop"], color_scheme=scheme, reduced_motion="reduce")
            page = context.new_page()
            for path in args.page or PREDICT_PAGES:
                name = path.strip("/").replace("/", "_")
                page.goto(base + path, wait_until="networkidle")
                question = page.locator("[data-predict]").first
                answer = int(question.get_attribute("data-answer"))
                wrong = next(i for i in range(question.locator("button.predict-choice").count()) if i != answer)
                # the question and the cell whose output answers it
                shot = question.locator("xpath=. | following-sibling::div[contains(@class,'jp-Cell ')][1]")
                question.scroll_into_view_if_needed()
                _clip(page, shot, args.out / f"{name}-predict-before-{scheme}.png")
                for verdict, choice in (("wrong", wrong), ("right", answer)):
                    page.evaluate("localStorage.clear()")
                    page.reload(wait_until="networkidle")
                    question = page.locator("[data-predict]").first
                    question.locator("button.predict-choice").nth(choice).click()
                    _clip(page, shot, args.out / f"{name}-predict-{verdict}-{scheme}.png")
            context.close()
        browser.close()
    print(f"{len(list(args.out.glob('*-predict-*.png')))} screenshots in {args.out}")
    return 0


def _clip(page, elements, path):
    # bounding boxes are in viewport coordinates; a full-page clip wants page coordinates
    scroll = page.evaluate("[window.scrollX, window.scrollY]")
    boxes = [elements.nth(i).bounding_box() for i in range(elements.count())]
    boxes = [dict(b, x=b["x"] + scroll[0], y=b["y"] + scroll[1]) for b in boxes]
    left, top = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    right = max(b["x"] + b["width"] for b in boxes)
    bottom = max(b["y"] + b["height"] for b in boxes)
    page.screenshot(path=path, full_page=True,
                    clip={"x": left, "y": top, "width": right - left, "height": bottom - top})


if __name__ == "__main__":
    sys.exit(main())
