"""Cells run in a scratch folder of their own (coursebuild/execute/sandbox.py): what they write by a relative path
goes with it, a write into the author's files stops the build naming the cell, and nothing they
start outlives the build."""
import ast
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import psutil
import pytest
from coursebuild.execute import sandbox
from conftest import scratch_course
from test_build_robust import KERNEL, _build, _course, _fails


def _outputs(root, cell):
    """The text a code cell (1-based, among code cells) printed, as the English page shows it."""
    page = nbformat.read(root / "docs" / "en" / "01-x.ipynb", as_version=4)
    code = [c for c in page.cells if c.cell_type == "code"]
    return "".join(o.get("text", "") for o in code[cell - 1].outputs)


# Processes that leave the kernel's process group, each in its own way; the cell prints their ids.
DAEMON = ("import os, sys, time\npid = os.fork()\nif pid:\n    print(pid)\n    sys.exit()\nos.setsid()\n"
          "null = os.open(os.devnull, os.O_RDWR)\nfor fd in (0, 1, 2):\n    os.dup2(null, fd)\ntime.sleep(300)\n")
ESCAPES = f"""import subprocess, sys
sleeper = [sys.executable, "-c", "import time; time.sleep(300)"]
grouped = subprocess.Popen(sleeper)
session = subprocess.Popen(sleeper, start_new_session=True)
setsid = subprocess.Popen(["setsid", *sleeper])
daemon = subprocess.run([sys.executable, "-c", {DAEMON!r}], capture_output=True, text=True)
# detached at once (setsid -f), with an environment of its own: neither the group nor the mark finds it
subprocess.run(["setsid", "-f", "sh", "-c", 'echo $$ > detached.pid; exec "$0" -c "import time; time.sleep(300)"',
                sys.executable], env={{"CUDA_VISIBLE_DEVICES": ""}})
import os, time
while not (os.path.exists("detached.pid") and open("detached.pid").read().strip()):
    time.sleep(0.02)
print([grouped.pid, session.pid, setsid.pid, int(daemon.stdout), int(open("detached.pid").read())])"""
RELATIVE_WRITES = ("import os, tempfile\n"
                   "with open('../../README.md', 'w') as f:\n    f.write('overwritten')\n"
                   "with open('stray.txt', 'w') as f:\n    f.write('stray')\n"
                   "print(os.getcwd())\nprint(tempfile.gettempdir())")
MACHINE_PATHS = ("import os, sys, warnings\nimport torch\n"
                 "print(torch.__file__)\nprint(sys.executable)\nprint(os.path.expanduser('~/x'))\n"
                 "warnings.warn('from the cell')\n"
                 "torch.tensor(torch.ones(1))  # torch warns, naming the cell's file")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One green build (one kernel) of a notebook whose cells write by relative paths, start processes
    that leave the kernel's process group, and print this machine's paths."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        root = scratch_course(tmp_path_factory.mktemp("course"), monkeypatch)
        (root / "README.md").write_text("the author's\n", encoding="utf-8")
        _course(root, ("", RELATIVE_WRITES), ("", ESCAPES), ("", MACHINE_PATHS))
        _build(root)
        yield root


def test_relative_writes_land_in_the_scratch_folder_and_go_with_it(built):
    """Before, cells ran in notebooks/<lang>/: open('../../README.md', 'w') overwrote the README and
    stray files landed beside the notebooks, with a green build."""
    assert (built / "README.md").read_text(encoding="utf-8") == "the author's\n"
    assert not list(built.rglob("stray.txt"))
    assert list((built / ".cache" / "scratch").iterdir()) == [], "the scratch folder is removed"
    cwd, tmp = _outputs(built, 1).splitlines()
    assert (cwd, tmp) == ("…/notebooks/en", "…/tmp"), "a scratch folder, with no path of this machine on the page"


def test_a_cell_that_writes_into_the_project_stops_the_build_naming_the_cell(course_root):
    readme = course_root / "README.md"
    readme.write_text("the author's\n", encoding="utf-8")
    _course(course_root, ("", "x = 1"),
            ("", f"with open({str(readme)!r}, 'w') as f:\n    f.write('overwritten')\n"
                 f"open({str(course_root / 'notebooks' / 'en' / 'notes.txt')!r}, 'w').close()"),
            ("", "y = 2"))
    message, _ = _fails(course_root, r"^notebooks/en/01-x.py: cell 3 \(line 17\) changed the project's files: "
                                     r"README.md \(changed\), notebooks/en/notes.txt \(new\)\.\n  Cells run in a "
                                     r"scratch folder of their own: .* never to a path in the project\. The build "
                                     r"did not undo the change", KERNEL)
    print(message)
    assert not list((course_root / ".cache").glob("01-x-*.ipynb")), "such a run is not cached"


def test_the_tree_watch_skips_the_builds_own_folders_and_editors_files(tmp_path):
    (tmp_path / "notebooks" / "en").mkdir(parents=True)
    (tmp_path / "notebooks" / "en" / "01-x.py").write_text("x", encoding="utf-8")
    tree = sandbox.Tree(tmp_path)
    for path in (".cache/executed/a.ipynb", "site/index.html", ".site.building/index.html",
                 "notebooks/en/__pycache__/a.pyc", "notebooks/en/.01-x.py.swp", "notebooks/en/01-x.py~"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x", encoding="utf-8")
    assert tree.changes() == []
    (tmp_path / "notebooks" / "en" / "01-x.py").unlink()
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "index.md").write_text("x", encoding="utf-8")
    assert tree.changes() == ["docs/en/index.md (new)", "notebooks/en/01-x.py (deleted)"]
    assert tree.changes() == [], "each change is told once"
    authoring = sandbox.Tree(tmp_path, sandbox.AUTHORED)  # the live preview: the author saves these any time
    (tmp_path / "docs" / "en" / "index.md").write_text("edited", encoding="utf-8")
    (tmp_path / "README.md").write_text("x", encoding="utf-8")
    assert authoring.changes() == ["README.md (new)"]


def _running(pids):
    alive = []
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                alive.append(pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def test_nothing_a_cell_starts_outlives_the_build(built):
    """Before, the kernel's process group was killed, and processes started in a new session
    (start_new_session=True, setsid, a daemon's double fork) kept running after the build."""
    pids = ast.literal_eval(_outputs(built, 2))
    assert len(pids) == 5
    deadline = time.monotonic() + 5
    while _running(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _running(pids)
    for pid in left:  # the test cleans up after a failure
        psutil.Process(pid).kill()
    assert left == [], f"still running after the build: {left} of {pids} (grouped, session, setsid, daemon, setsid -f with env={{...}})"


def test_nothing_a_cell_starts_outlives_a_failing_build(course_root, tmp_path_factory):
    told = tmp_path_factory.mktemp("signals") / "pids"  # outside the course: the build watches the course
    _course(course_root, ("", ESCAPES.replace("print([", f"open({str(told)!r}, 'w').write(str([") + ")"),
            ("", "1 / 0"))
    _fails(course_root, r"cell 3 \(line \d+\) raised ZeroDivisionError", KERNEL)
    pids = ast.literal_eval(told.read_text())
    assert _running(pids) == [], f"still running after the build: {_running(pids)} of {pids}"
    assert list((course_root / ".cache" / "scratch").iterdir()) == [], "the scratch folder is removed"


def test_what_a_killed_build_left_is_reaped_by_the_next(course_root):
    """Before, after kill -9 of a build, a cell's child, the scratch folder and the kernel's connection file
    and sockets stayed for ever: the next build neither reaped nor removed them. Only a dead build's."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    parent = course_root / ".cache" / "scratch"
    left, alive = sandbox.Scratch("01-x", "en"), sandbox.Scratch("02-y", "en")
    (left.path / sandbox.OWNER).write_text(f"{dead.pid} 1.0", encoding="utf-8")  # the killed build
    orphan = subprocess.Popen(["sleep", "300"], env={**os.environ, sandbox.MARK: str(left.path)}, cwd=left.cwd)
    sockets = [parent / f"course-kernel-p{dead.pid}-abc.json", parent / f"course-kernel-p{dead.pid}-abc-ipc-1"]
    for file in sockets:
        file.write_text("", encoding="utf-8")
    try:
        sandbox.reap_leftovers(log=lambda *_: None)
        orphan.wait(timeout=5)
        assert not left.path.exists() and not any(f.exists() for f in sockets)
        assert alive.path.exists(), "a running build's scratch folder is left alone"
    finally:
        orphan.kill()
        alive.remove()


@pytest.mark.slow
def test_torch_distributed_run_leaves_no_torchelastic_folder(course_root, monkeypatch, tmp_path_factory):
    """Before, each run of the DDP demo (05-several-gpus) left a torchelastic_* folder in the system's
    temporary folder: torch.distributed.run makes one for its logs and never removes it."""
    system_tmp = tmp_path_factory.mktemp("system-tmp")
    monkeypatch.setenv("TMPDIR", str(system_tmp))  # what the kernel would inherit without the scratch folder
    _course(course_root, ("", "import pathlib, subprocess, sys, tempfile\n"
                              "with tempfile.TemporaryDirectory() as tmp:\n"
                              "    script = pathlib.Path(tmp) / 'job.py'\n"
                              "    script.write_text('print(1)')\n"
                              "    run = subprocess.run([sys.executable, '-m', 'torch.distributed.run',\n"
                              "                          '--standalone', '--nproc-per-node', '1', str(script)],\n"
                              "                         capture_output=True, text=True, timeout=120)\n"
                              "assert run.returncode == 0, run.stderr\n"
                              "print(sorted(p.name[:13] for p in pathlib.Path(tempfile.gettempdir()).iterdir()))"))
    _build(course_root)
    assert "torchelastic_" in _outputs(course_root, 1), "the run made its folder (in the scratch folder)"
    assert not list(system_tmp.iterdir())
    assert list((course_root / ".cache" / "scratch").iterdir()) == []


def test_a_page_shows_no_path_of_this_machine(built):
    """Before, warnings printed the checkout's, the virtual environment's and the kernel's temporary
    paths on the page."""
    page = (built / "docs" / "en" / "01-x.ipynb").read_text(encoding="utf-8")
    shown = _outputs(built, 3)
    assert shown.startswith("…/site-packages/torch/__init__.py\n…/"), shown
    assert "~/x\n" in shown
    assert re.search(r"<cell>:\d+: UserWarning: from the cell", shown), shown
    assert re.search(r"<cell>:\d+: UserWarning: To copy construct from a tensor", shown), shown
    for machine in (built, Path(sys.prefix), Path(sys.prefix).resolve(), Path.home()):
        assert str(machine) not in page, f"{machine} is on the page:\n{shown}"
    assert "ipykernel_" not in page
