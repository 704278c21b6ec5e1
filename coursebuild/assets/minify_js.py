"""Minify the site's own scripts with esbuild (npm, pinned in package.json): every page loads them.

Our scripts (docs/assets/javascripts, the notebook copy button, and the templates' inline scripts that
csp.py moved into assets/javascripts/inline/) are written to be read: comments that say why, long
names. esbuild's minifier halves them (about 10 KB of a notebook page's first visit) without changing
what they do; a script loaded as a classic <script> keeps its top-level names (esbuild renames names
at the top level only for modules or bundles), so the globals the templates and Material share
(`__md_get`, `__md_set`, `document$`) stay as they are. A file minified to more bytes than it had is
kept as written.

Weighed: terser (the same job, slower, pure JavaScript) and rjsmin (Python, removes comments and
spaces only: about a third instead of a half). esbuild comes through the npm setup PurgeCSS already
uses (npm.py), and its JavaScript API finds its own binary, so no install script has to run.

Material's bundle is minified already; the search worker and lunr are search's (coursebuild/search).
Results are cached under .cache/minified-js/, keyed by the script, esbuild's version and this file:
an unchanged build does not start Node.js.

Run by coursebuild/hooks.py at the end of `mkdocs build`, before the pages are minified (minify.py)."""
import hashlib
import json
import subprocess
import tempfile
from pathlib import Path

from coursebuild import course
from coursebuild.assets.npm import ROOT, npm_package
from coursebuild.assets.trim_css import node

CACHE = ROOT / ".cache" / "minified-js"
KEEP = 200  # entries kept, the most recently used
OURS = ("assets/javascripts/*.js", "assets/javascripts/inline/*.js", "assets/notebook/*.js")
NOT_OURS = ("bundle.",)  # Material's, minified already

# Node.js reads the files named in a JSON list and writes each minified text beside its key.
SCRIPT = """const esbuild = require(process.argv[2]);
const fs = require("fs");
for (const [source, target] of JSON.parse(fs.readFileSync(process.argv[3], "utf8"))) {
  const out = esbuild.transformSync(fs.readFileSync(source, "utf8"),
    {minify: true, loader: "js", charset: "utf8", legalComments: "none", sourcefile: source});
  fs.writeFileSync(target, out.code);
}
"""


def scripts(site):
    """The site's own scripts, which minify() makes small."""
    site = Path(site)
    return sorted({p for pattern in OURS for p in site.glob(pattern)
                   if p.is_file() and not p.name.startswith(NOT_OURS)})


def minify(site):
    """Minify the site's own scripts in place; the bytes saved. RuntimeError naming the file when
    esbuild cannot read one (a syntax error: the browser could not run it either)."""
    package = npm_package("esbuild")
    version = json.loads((package / "package.json").read_text())["version"]
    code = hashlib.sha256(Path(__file__).read_bytes() + version.encode())
    jobs = []
    for path in scripts(site):
        key = code.copy()
        key.update(path.read_bytes())
        jobs.append((path, CACHE / f"{key.hexdigest()[:32]}.js"))
    missing = [(path, entry) for path, entry in jobs if not entry.is_file()]
    if missing:
        _esbuild(package, missing)
    saved = 0
    for path, entry in jobs:
        small, written = entry.read_bytes(), path.read_bytes()
        entry.touch()  # used: kept by _forget_old
        if len(small) < len(written):
            path.write_bytes(small)
            saved += len(written) - len(small)
    _forget_old()
    return saved


def _esbuild(package, jobs):
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        runner, listing = Path(tmp) / "minify.cjs", Path(tmp) / "jobs.json"
        runner.write_text(SCRIPT, encoding="utf-8")
        outputs = [(path, Path(tmp) / f"{i}.js", entry) for i, (path, entry) in enumerate(jobs)]
        listing.write_text(json.dumps([[str(p), str(out)] for p, out, _ in outputs]), encoding="utf-8")
        done = subprocess.run([node(), str(runner), str(package), str(listing)], capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"esbuild could not minify the site's scripts (coursebuild/assets/minify_js.py):\n"
                               f"{done.stderr[-3000:]}")
        for _, out, entry in outputs:
            course.write_atomic(entry, out.read_text(encoding="utf-8"))  # whole or not at all


def _forget_old():
    """Keep the KEEP entries used last."""
    entries = sorted(CACHE.glob("*.js"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[KEEP:]:
        old.unlink(missing_ok=True)
