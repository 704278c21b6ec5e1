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


def find_chromium():
    """The system's Chromium or Chrome (CHROMIUM or CHROME_PATH may name one), or None."""
    for name in (os.environ.get("CHROMIUM"), os.environ.get("CHROME_PATH"), "chromium", "chromium-browser",
                 "google-chrome", "google-chrome-stable"):
        if name and (found := shutil.which(name)):
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None
