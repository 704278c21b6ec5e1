"""The suite's parallel run (tests/conftest.py): what TOGETHER names runs whole on one worker, the rest
is spread over the workers. pytest-xdist's own grouping stopped working without a word
(pytest-dev/pytest-xdist#1386); this fails if the scheduler given to it does too."""
import json
import subprocess
import sys
from pathlib import Path

from conftest import TOGETHER

SUITE_CONFTEST = Path(__file__).with_name("conftest.py")
TEST = """import json, os, pathlib, time
import pytest

@pytest.mark.parametrize("i", range(6))
def test_where(i):
    time.sleep(0.2)
    with open({log!r}, "a") as log:
        log.write(json.dumps([__name__, os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")
"""


def test_what_runs_together_runs_on_one_worker(tmp_path):
    together = next(unit for unit in TOGETHER if "::" not in unit)  # a whole module
    log = tmp_path / "where.jsonl"
    (tmp_path / "conftest.py").write_text(
        "import importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('suite_conftest', {str(SUITE_CONFTEST)!r})\n"
        "suite = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(suite)\n"
        "pytest_xdist_make_scheduler = suite.pytest_xdist_make_scheduler\n", encoding="utf-8")
    (tmp_path / together).parent.mkdir(parents=True)
    for module in (together, "tests/test_spread.py"):
        (tmp_path / module).write_text(TEST.format(log=str(log)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "3", "-p", "no:cacheprovider", "-q", "tests"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = [json.loads(line) for line in log.read_text().splitlines()]
    workers = {name: {worker for module, worker in ran if module == name} for name, _ in ran}
    assert len(ran) == 12
    assert len(workers[Path(together).stem]) == 1, f"{together} ran on {workers[Path(together).stem]}"
    assert len(workers["test_spread"]) > 1, "the other tests ran on one worker"
