"""Every GPU-only cell carries its evidence (notebooks/gpu-evidence.yml): no GPU has run most of them, so
each says what it expects on a GPU and where in PyTorch's source or documentation that comes from."""
import re
from pathlib import Path

from coursebuild import course
from coursebuild.course import gpu_evidence
import pytest

SOURCE = re.compile(r"^(?P<path>[\w./-]+\.(?:py|cpp|cu|h|cuh|yaml)): (?P<function>[\w.:<>~]+)")
ledger, gpu_cells = gpu_evidence.ledger, gpu_evidence.gpu_cells


@pytest.mark.parametrize("concept", course.concepts())
def test_every_gpu_only_cell_has_exactly_one_entry_and_every_entry_a_cell(concept):
    """The build checks it (coursebuild/course/gpu_evidence.py); here for each notebook."""
    problems = gpu_evidence.evidence_problems(only=[concept])
    assert not problems, "\n".join(map(str, problems))


def _entries():
    return [(concept, e) for concept, entries in ledger().items() for e in entries or []]


@pytest.mark.parametrize("concept, entry", [pytest.param(c, e, id=f"{c}:{e['anchor'][:30]}") for c, e in _entries()])
def test_every_entry_says_what_it_expects_and_where_that_comes_from(concept, entry):
    assert entry.get("expects"), "say what the cell expects on a GPU"
    assert entry.get("source") or entry.get("docs"), "name the source (file: function) or the documentation"
    assert entry.get("checked"), "name the torch versions whose source was read"
    for line in entry.get("source") or []:
        found = SOURCE.match(line)
        assert found, f"{line!r}: write 'path/in/the/repo: function'"
        if found["path"].startswith("torch/") and found["path"].endswith(".py"):
            path = Path(__import__("torch").__file__).parent.parent / found["path"]
            assert path.is_file(), f"{found['path']} is not in the installed torch"
            name = found["function"].split(".")[-1]
            assert re.search(rf"^\s*(def|class) {re.escape(name)}\b|^{re.escape(name)}\s*=", path.read_text(),
                             re.M), f"{found['path']} defines no {name}"
    for url in entry.get("docs") or []:
        assert url.startswith("https://"), url


def test_the_cell_count_on_the_pages_matches_the_ledger():
    """The line above each notebook counts its GPU-only cells; the ledger has one entry for each."""
    assert sum(len(gpu_cells(c)) for c in course.concepts()) == len(_entries())
