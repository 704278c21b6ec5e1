"""The record of what a built site was made from, so that a build with nothing changed does nothing.

The record lists every input of the build: the notebooks, the pages under docs/ (those the execute
stage writes too), the theme overrides, mkdocs.yml, the build package, the pins (requirements.txt,
package-lock.json), the GPU records, the execution cache entries the pages come from, the build's
own options (mkdocs build options, the environment variables mkdocs.yml reads with !ENV, the cell time
limit) and what the cache keys name of the machine (Python, torch, processor, GPUs). Each file with
its size, times and SHA-256; the site's own files with their size and time.

build.py takes the record before the build reads anything (so that an edit made while it runs is seen
by the next build) and completes it once the pages and cache entries are written; it writes it into
the site's folder before that folder replaces site/, so the record comes and goes with the site it
describes: an older site has none, an interrupted build leaves none. A build whose record matches
what is there now (files by size and times, and by content where those differ) leaves the site as it
is. The check runs before the build imports anything heavy (MkDocs, nbclient, jupytext, torch), so
only the standard library is used here.
"""
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

RECORD = ".build-inputs.json"  # in the site's folder (hidden: MkDocs and browsers never ask for it)
VERSION = 1
TREES = ("notebooks", "docs", "overrides", "coursebuild", "records")
FILES = ("mkdocs.yml", "requirements.txt", "package.json", "package-lock.json", "scripts/_env.sh",
         "scripts/build")
EXECUTED = ".cache/executed"  # cache.CACHE, whose entries the pages come from
# written by the execute stage, so recorded once it has run (docs/<lang>/[cpu/]NN-name.ipynb)
WRITTEN = re.compile(r"docs/.*\.ipynb|\.cache/executed/.*")
# environment variables that change the site besides those mkdocs.yml reads (!ENV)
ENV = ("NOTEBOOK_CELL_TIMEOUT", "SOURCE_DATE_EPOCH")
QUIET = {"-q", "--quiet", "-v", "--verbose"}  # options that change what the build says, not the site
RACY = 2_000_000_000  # ns: a file changed this recently may change again within the same mtime tick


def site_dir(argv, root):
    """The folder the site goes to (-d/--site-dir, else site/ beside mkdocs.yml), and the other options."""
    for i, arg in enumerate(argv):
        if arg in ("-d", "--site-dir") and i + 1 < len(argv):
            return root / argv[i + 1], argv[:i] + argv[i + 2:]  # relative: to mkdocs.yml's folder, as MkDocs
        if arg.startswith("--site-dir="):
            return root / arg.split("=", 1)[1], argv[:i] + argv[i + 1:]
    return root / "site", argv


def _walk(folder, prefix, found):
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if entry.name != "__pycache__":
                _walk(entry.path, f"{prefix}{entry.name}/", found)
        elif entry.is_file():
            found[prefix + entry.name] = entry.path


def input_files(root, written):
    """{path relative to root: absolute path} of the build's input files: those the execute stage
    writes (written=True), or the others."""
    found, entries = {}, {}
    for tree in TREES:
        _walk(os.path.join(root, tree), f"{tree}/", found)
    _walk(os.path.join(root, EXECUTED), f"{EXECUTED}/", entries)
    found.update((name, path) for name, path in entries.items() if name.endswith(".ipynb"))  # its notes aside
    for name in FILES:
        if os.path.isfile(os.path.join(root, name)):
            found[name] = os.path.join(root, name)
    return {name: path for name, path in found.items() if bool(WRITTEN.fullmatch(name)) == written}


def _stat(path):
    s = os.stat(path)
    return [s.st_size, s.st_mtime_ns, s.st_ctime_ns, s.st_ino]


def _digest(path):
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def describe(files):
    """{name: [stat, sha256]} of files; stat is None for a file changed too recently to trust its times."""
    now = time.time_ns()
    described = {}
    for name, path in files.items():
        stat = _stat(path)
        described[name] = [stat if now - stat[1] > RACY else None, _digest(path)]
    return described


def options(root, argv):
    """What the build is asked for besides its files: its options and the environment it reads."""
    names = set(ENV)
    try:
        config = Path(root, "mkdocs.yml").read_text(encoding="utf-8")
    except OSError:
        config = ""
    for found in re.finditer(r"!ENV\s*(\[[^\]\n]*\]|\S+)", config):
        unquoted = re.sub(r"\"[^\"]*\"|'[^']*'", "", found[1])
        names.update(re.findall(r"[A-Za-z_]\w*", unquoted))
    env = {name: hashlib.sha256(os.environ[name].encode()).hexdigest()[:16]
           for name in sorted(names) if name in os.environ}  # values hashed: the record is published with the site
    return {"argv": [a for a in argv if a not in QUIET], "env": env}


def machine():
    """What the execution cache's key names (kernel.environment), told without importing torch: the Python
    and torch builds, the processor and the GPUs the system shows."""
    torch = sorted(name for folder in sys.path if os.path.isdir(folder) for name in os.listdir(folder)
                   if name.startswith("torch-") and name.endswith(".dist-info"))
    cpu = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    try:
        devices = sorted(n for n in os.listdir("/dev") if re.fullmatch(r"nvidia\d+|kfd|dri|accel\d*", n))
    except OSError:
        devices = []
    visible = {k: v for k, v in os.environ.items() if k.endswith("_VISIBLE_DEVICES")}
    return {"python": sys.version, "platform": f"{sys.platform} {os.uname().machine}", "torch": torch,
            "cpu": cpu, "devices": devices, "visible": visible}


def site_files(site):
    """{path in the site: [size, mtime_ns]} of the built site's files, the record aside."""
    found = {}
    _walk(str(site), "", found)
    found.pop(RECORD, None)
    return {name: [(s := os.stat(path)).st_size, s.st_mtime_ns] for name, path in found.items()}


class Record:
    """The inputs of one build, taken before it reads them (start) and completed after the execute stage."""

    def __init__(self, root, argv):
        self.root = Path(root)
        self.data = {"version": VERSION, "options": options(root, argv), "machine": machine(),
                     "files": describe(input_files(root, written=False))}

    def executed(self):
        """Add what the execute stage wrote (the pages under docs/, the cache entries), once it has run."""
        self.data["files"].update(describe(input_files(self.root, written=True)))

    def write(self, site):
        """Write the record into the site's folder (whole: a temporary file, then a rename)."""
        _write(Path(site), {**self.data, "site": site_files(site)})


def _write(site, data):
    tmp = site / f".{RECORD}.tmp"
    tmp.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
    os.replace(tmp, site / RECORD)


def out_of_date(root, site, argv):
    """Why the site in `site` is not what a build with these options would make of the files in root now
    (a short reason), or None when it is. A file whose times changed but whose content did not is
    recorded again with its new times, so the next check need not read it."""
    site, root = Path(site), Path(root)
    try:
        record = json.loads((site / RECORD).read_text(encoding="utf-8"))
        files, built = record["files"], record["site"]
        same = record["version"] == VERSION
    except (OSError, ValueError, KeyError, TypeError):
        return "no record of what it was built from"
    if not same:
        return "it was built by another version of the build"
    if record["options"] != options(root, argv):
        return "the build's options or environment changed"
    if record["machine"] != machine():
        return "Python, torch or the devices changed"
    now = {**input_files(root, written=False), **input_files(root, written=True)}
    for name in sorted(files.keys() - now.keys()):
        return f"{name} is gone"
    for name in sorted(now.keys() - files.keys()):
        return f"{name} is new"
    rechecked = False
    clock = time.time_ns()
    for name, path in now.items():
        stat, digest = files[name]
        try:
            current = _stat(path)
            if current == stat:
                continue
            if _digest(path) != digest:
                return f"{name} changed"
        except OSError:
            return f"{name} is gone"
        files[name] = [current if clock - current[1] > RACY else None, digest]
        rechecked = True
    if site_files(site) != built:
        return "its files changed since it was built"
    if rechecked:
        try:
            _write(site, record)
        except OSError:  # a site folder that cannot be written: the content is checked again next time
            pass
    return None
