"""The evidence for the GPU-only cells (notebooks/gpu-evidence.yml): no GPU has run most of them, so each
says what it expects on a GPU and where in PyTorch that comes from. The build reads the ledger too (before,
only tests/test_gpu_evidence.py did, and a gpu-only cell without evidence was published): a cell tagged
gpu-only needs exactly one entry, and every entry a cell. Hands the problems found, each naming the file
and the fix, to the execute stage; the tests check the entries' contents (sources, versions).
"""
from coursebuild import course

LEDGER_NAME = "gpu-evidence.yml"
GPU_ONLY = "gpu-only"
FIX = ("Each notebook is a key, then a list of entries `- anchor: '...'` with expects, source or docs, and "
       "checked (the file's header says what each holds); indent entries under their notebook and quote code.")


def ledger():
    """{concept: [entry, ...]} from the ledger ({} where there is none)."""
    path = course.NOTEBOOKS / LEDGER_NAME
    if not path.exists():
        return {}
    data = course.load_yaml(path, FIX) or {}
    if not isinstance(data, dict) or not all(isinstance(v, list | None) and all(isinstance(e, dict) and "anchor" in e
                                                                             for e in v or []) for v in data.values()):
        raise course.BuildError(f"notebooks/{LEDGER_NAME}: not a list of entries with an anchor under each notebook. {FIX}")
    return data


def gpu_cells(concept, lang=course.REFERENCE):
    return [c for c in course.code_cells(course.read(lang, concept)) if GPU_ONLY in course.tags(c)]


def evidence_problems(only=None):
    """A gpu-only cell with no entry (or several), an entry whose anchor is in no cell or several."""
    found = ledger()
    problems = []
    for concept in course.concepts():
        if only and concept not in only:
            continue
        entries = found.get(concept) or []
        cells = gpu_cells(concept)
        path = course.source(course.REFERENCE, concept)
        every = course.code_cells(course.read(course.REFERENCE, concept))
        for i, cell in enumerate(cells, 1):
            mine = [e["anchor"] for e in entries if e["anchor"] in cell.source]
            if len(mine) != 1:
                problems.append(course.Problem(path, (
                    f"gpu-only cell {i} ({cell.source.strip().splitlines()[0][:50]}) has {len(mine)} entries in "
                    f"notebooks/{LEDGER_NAME} {mine or ''}: give it one, under {concept}:, with an anchor from its "
                    "code, what it expects on a GPU and where in PyTorch that comes from")))
        for entry in entries:
            hits = sum(entry["anchor"] in c.source for c in every)
            if hits != 1:
                problems.append(course.Problem(course.NOTEBOOKS / LEDGER_NAME, (
                    f"{concept}: anchor {entry['anchor']!r} matches {'no' if not hits else 'several'} cells of "
                    f"{path.name}: pick a piece of code that is in exactly one cell")))
            elif not any(entry["anchor"] in c.source for c in cells):
                problems.append(course.Problem(course.NOTEBOOKS / LEDGER_NAME, (
                    f"{concept}: anchor {entry['anchor']!r} is in a cell that is not tagged gpu-only any more: "
                    "remove the entry, or tag the cell again")))
    return problems
