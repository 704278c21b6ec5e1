"""Uninstall from this environment every package that requirements.txt does not pin.

pip installs what a requirements file lists and never removes what it no longer lists, so a pin
deleted from requirements.txt stayed installed in .venv and the tests kept passing with it. Run by
scripts/_env.sh, with the environment's own Python, after `pip install -r requirements.txt`.

Usage: .venv/bin/python scripts/prune_venv.py requirements.txt
"""
import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

TOOLS = {"pip", "setuptools", "wheel"}  # the environment's own installers: never pinned, never removed


def normalized(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(requirements):
    """The names a requirements file lists (comments, options and blank lines skipped)."""
    names = set()
    for line in requirements.splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(normalized(re.split(r"[\s\[<>=!~;@]", line, maxsplit=1)[0]))
    return names


def installed():
    """The packages installed in this environment itself (not those a system site-packages lends it)."""
    prefix = Path(sys.prefix).resolve()
    names = set()
    for dist in importlib.metadata.distributions():
        where = Path(dist.locate_file("")).resolve()
        if where.is_relative_to(prefix) and dist.metadata["Name"]:
            names.add(normalized(dist.metadata["Name"]))
    return names


def extras(installed_names, requirements):
    return sorted(installed_names - pinned(requirements) - TOOLS)


def main(argv):
    extra = extras(installed(), Path(argv[0]).read_text(encoding="utf-8"))
    if extra:
        print(f"Removing packages that {argv[0]} no longer pins: {', '.join(extra)}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "-y", "-q", *extra], check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
