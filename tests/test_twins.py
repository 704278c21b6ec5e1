"""Colab opens the committed .ipynb twin of each notebook: it must exist, be tracked and be current."""
import json
import subprocess

from coursebuild import course
from coursebuild.course import twins


def test_twins_are_in_sync_with_the_py_notebooks():
    problems = twins.stale()
    assert not problems, "\n".join(map(str, problems))


def test_twins_are_committed():
    for lang, concept in twins.all_notebooks():
        path = twins.path(lang, concept).relative_to(course.ROOT)
        tracked = subprocess.run(["git", "ls-files", "--error-unmatch", str(path)], cwd=course.ROOT,
                                 capture_output=True)
        assert tracked.returncode == 0, f"{path} is not tracked by git: commit it, Colab reads it from GitHub"


def test_twins_ask_colab_for_a_gpu_and_have_no_outputs():
    for lang, concept in twins.all_notebooks():
        nb = json.loads(twins.path(lang, concept).read_text(encoding="utf-8"))
        assert nb["metadata"]["accelerator"] == "GPU", f"{lang}/{concept}: header lacks 'accelerator: GPU'"
        assert nb["metadata"]["colab"]["gpuType"], f"{lang}/{concept}: header lacks colab.gpuType"
        assert all(not c.get("outputs") for c in nb["cells"])
