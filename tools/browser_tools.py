"""What the browser checks (tests/test_browser.py) and the Lighthouse benchmark share: finding
Chromium, its flags for this sandboxed, offline machine, and the npm packages pinned in package.json
(coursebuild/assets/npm.py)."""
import os
import shutil
from pathlib import Path

from coursebuild.assets.npm import ROOT, npm_package  # noqa: F401 (the checks use it from here)

# Without the background-networking flags Chromium keeps calling Google's hosts, which are refused here.
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]


BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Chromium's headless shell (Debian's chromium-headless-shell): the same Blink, without the browser's
# window machinery; what Playwright runs headless by default. The browser checks take about 40% less
# CPU in it than in Chromium's full headless mode.
SHELL = "chromium-headless-shell"


def find_chromium(shell_first=False):
    """The system's Chromium or Chrome (CHROMIUM or CHROME_PATH may name one), or None. With
    shell_first, its headless shell where there is one."""
    names = (SHELL, *BROWSERS) if shell_first else (*BROWSERS, SHELL)
    for name in (os.environ.get("CHROMIUM"), os.environ.get("CHROME_PATH"), *names):
        if name and (found := shutil.which(name)):
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None
