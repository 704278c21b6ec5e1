"""Execute every concept once on this machine's best device, cache the result, and write the pages.

For each concept the reference-language notebook is executed with nbclient in its own folder.
Its outputs are copied into every language's notebook (their code is identical but for comments)
and written to docs/<lang>/<concept>.ipynb for MkDocs to render. When a record of outputs made
on a GPU (records/) matches the current code, the page shows those and a second page shows the
CPU outputs from this build.

Usage: python scripts/execute.py [--records DIR] [--only CONCEPT ...]
"""
import argparse
import copy
import datetime
import hashlib
import importlib.metadata
import json
import platform
import re
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import course
import twins

CACHE = course.ROOT / ".cache" / "executed"
RECORDS = course.ROOT / "records"
CPU_VIEW = "cpu"  # folder, under each language, of the CPU view of pages that show recorded outputs
ANSI = re.compile(r"\x1b\[[0-9;]*m")
# Run before the notebook, unseen: tracebacks show the error, not frames deep inside torch
# (which would also print this machine's paths).
SETUP = "%xmode Minimal"


class BuildError(Exception):
    """A problem the author must fix; the message names the file and what to do."""


def environment():
    """What produces the outputs here: device, torch and Python versions."""
    version = importlib.metadata.version("torch")
    # A CPU-only build needs no torch import (a second) to tell its device.
    kind, name = ("cpu", _cpu_name()) if version.endswith("+cpu") else _accelerator()
    return {"kind": kind, "device": name, "torch": version, "python": platform.python_version()}


def _accelerator():
    import torch

    if torch.cuda.is_available():
        return "cuda", torch.cuda.get_device_name(0)
    if hasattr(torch, "accelerator") and torch.accelerator.is_available():
        kind = torch.accelerator.current_accelerator().type
        return kind, kind.upper()
    return "cpu", _cpu_name()


def _cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return "CPU, " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "CPU, " + (platform.processor() or platform.machine())


def cache_key(nb, env):
    fields = [course.code_hash(nb), env["kind"], env["device"], env["torch"], env["python"], SETUP]
    return hashlib.sha256("|".join(fields).encode()).hexdigest()[:24]


def run_notebook(concept, nb, env):
    """Execute a notebook in the folder of its source; raise BuildError naming the failing cell."""
    path = course.source(course.REFERENCE, concept)
    nb = copy.deepcopy(nb)
    km = KernelManager(kernel_name="python3", transport="ipc",
                       connection_file=tempfile.mktemp(suffix=".json"))
    client = NotebookClient(nb, km=km, timeout=600, allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP))
    try:
        client.execute()
    except CellExecutionError as err:
        nb.cells.pop(0)
        index = _failed_cell(nb)
        where = f"cell {index + 1} (line {course.cell_line(path, index)})" if index is not None else "a cell"
        raise BuildError(
            f"{path.relative_to(course.ROOT)}: {where} raised {err.ename}: {ANSI.sub('', err.evalue)}\n"
            "  Fix the code; if the error is what the cell demonstrates, catch it with expect_error (notebooks/README.md)."
        ) from None
    nb.cells.pop(0)
    for count, cell in enumerate(course.code_cells(nb), 1):
        cell.execution_count = count
    for i, cell in enumerate(nb.cells):
        if "raises-exception" in course.tags(cell) and not _error_output(cell):
            raise BuildError(
                f"{path.relative_to(course.ROOT)}: cell {i + 1} (line {course.cell_line(path, i)}) is tagged "
                "raises-exception but did not raise on this machine.\n"
                "  The error it demonstrates no longer happens: fix the cell and the prose around it.")
    nb.metadata["course"] = {"provenance": dict(env, date=datetime.date.today().isoformat()),
                             "code_hash": course.code_hash(nb)}
    return nb


def _error_output(cell):
    return next((o for o in cell.get("outputs", []) if o.get("output_type") == "error"), None)


def _failed_cell(nb):
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and _error_output(cell):
            return i
    return None


def executed(concept, env, log=print):
    """The executed reference notebook, from the cache when its code, device and versions match."""
    nb = course.read(course.REFERENCE, concept)
    path = CACHE / f"{concept}-{cache_key(nb, env)}.ipynb"
    if path.exists():
        return nbformat.read(path, as_version=4)
    log(f"executing {course.source(course.REFERENCE, concept).relative_to(course.ROOT)} on {env['device']}")
    result = run_notebook(concept, nb, env)
    CACHE.mkdir(parents=True, exist_ok=True)
    for old in CACHE.glob(f"{concept}-*.ipynb"):
        old.unlink()
    nbformat.write(result, path)
    return result


def load_records(records_dir):
    """The recorded outputs (made on a GPU, normally): {concept: notebook}, and their manifest."""
    manifest_path = Path(records_dir) / "manifest.json"
    if not manifest_path.exists():
        return {}, None
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    notebooks = {}
    for concept in manifest.get("concepts", {}):
        path = Path(records_dir) / f"{concept}.ipynb"
        if path.exists():
            notebooks[concept] = nbformat.read(path, as_version=4)
    return notebooks, manifest


def fresh_record(concept, records, manifest):
    """The recorded notebook for a concept if it was made from the current code, else None."""
    if manifest is None or concept not in records:
        return None
    current = course.code_hash(course.read(course.REFERENCE, concept))
    recorded = manifest["concepts"][concept]["code_hash"]
    if recorded != current or course.code_hash(records[concept]) != current:
        return None
    nb = records[concept]
    nb.metadata["course"] = {"provenance": _record_provenance(manifest), "code_hash": current}
    return nb


def _record_provenance(manifest):
    keys = ("kind", "device", "torch", "python", "date", "driver", "cuda")
    return {k: manifest[k] for k in keys if k in manifest}


def with_outputs(lang, concept, run, view, alternate=None):
    """The language's notebook with the outputs of an executed run, and provenance for the page."""
    nb = course.read(lang, concept)
    cells = course.code_cells(nb)
    ran = course.code_cells(run)
    if len(cells) != len(ran):
        raise BuildError(f"{course.source(lang, concept).relative_to(course.ROOT)}: "
                         "code cells do not match the executed original; fix the parity problems first")
    for mine, theirs in zip(cells, ran):
        mine.outputs = theirs.get("outputs", [])
        mine.execution_count = theirs.get("execution_count")
    nb.metadata["course"] = {"concept": concept, "lang": lang, "view": view, "alternate": alternate,
                             "provenance": run.metadata["course"]["provenance"]}
    return nb


def write_if_changed(path, nb):
    text = nbformat.writes(nb)
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def build_pages(records_dir=RECORDS, only=None, log=print):
    problems = course.parity_problems(only) + course.tag_problems(only) + twins.stale(only)
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))
    env = environment()
    names = [c for c in course.concepts() if not only or c in only]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(names, pool.map(lambda c: executed(c, env, log), names)))
    records, manifest = load_records(records_dir)
    stale = [c for c in records if fresh_record(c, records, manifest) is None]
    if stale:
        log(f"stale records (code changed since they were made; showing this build's outputs): {', '.join(stale)}")
    wanted = set()
    for concept, run in runs.items():
        record = fresh_record(concept, records, manifest)
        for lang in course.LANGS:
            page = course.DOCS / lang / f"{concept}.ipynb"
            if record is None:
                write_if_changed(page, with_outputs(lang, concept, run, "build"))
                wanted.add(page)
                continue
            cpu_page = course.DOCS / lang / CPU_VIEW / f"{concept}.ipynb"
            write_if_changed(page, with_outputs(lang, concept, record, "record", f"{CPU_VIEW}/{concept}.ipynb"))
            write_if_changed(cpu_page, with_outputs(lang, concept, run, "build", f"../{concept}.ipynb"))
            wanted.update({page, cpu_page})
    if not only:
        for old in course.DOCS.glob("*/**/*.ipynb"):
            if old not in wanted:
                old.unlink()
    return runs, stale


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, default=RECORDS)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    try:
        build_pages(args.records, args.only)
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
