"""The GitHub workflows are valid and pass zizmor's security audit."""
import shutil
import sys
from pathlib import Path

from coursebuild import course
from conftest import run

WORKFLOWS = sorted(str(p) for p in (course.ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def _tool(name):
    return str(BIN / name) if (BIN / name).exists() else shutil.which(name)


def test_workflows_exist():
    assert WORKFLOWS


def test_workflows_match_the_github_schema():
    done = run(_tool("check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_workflows_pass_zizmor():
    done = run(_tool("zizmor"), "--offline", "--no-progress", *WORKFLOWS)
    assert done.returncode == 0, done.stdout + done.stderr
