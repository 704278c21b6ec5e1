"""./scripts/serve as an author uses it (scripts/live_preview.py), on a copy of the project: an edit
to prose shows in the open browser without a restart; an edit to code executes that concept only;
a failing cell is reported naming the file and cell, and the browser keeps the last good page.
The times are printed, not asserted tightly (scripts/bench measures them); the bounds only prove
that nobody had to restart anything."""
import os
import re
import signal
import subprocess
import sys
import time

import course
import pytest
from conftest import no_process_left
from static_site import free_port

CONCEPT = "04-choosing-a-device"  # the quickest notebook to execute
ADDED = "\n\n# %%\n# live-preview test\n"  # a code cell the test appends to every language


def _log(preview):
    return preview["log"].read_text(encoding="utf-8")


def _wait_for_log(preview, pattern, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = re.search(pattern, _log(preview), re.M)
        if found:
            return found
        assert preview["process"].poll() is None, f"the preview stopped:\n{_log(preview)[-3000:]}"
        time.sleep(0.1)
    pytest.fail(f"no line matching {pattern!r} within {timeout} s:\n{_log(preview)[-3000:]}")


@pytest.fixture(scope="module")
def preview(tmp_path_factory):
    root = course.copy_project(tmp_path_factory.mktemp("project"))
    port = free_port()
    log = root.parent / "preview.log"
    with open(log, "w", encoding="utf-8") as out:
        process = subprocess.Popen([sys.executable, "scripts/live_preview.py", "-a", f"127.0.0.1:{port}"],
                                   cwd=root, stdout=out, stderr=subprocess.STDOUT, text=True,
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    running = {"root": root, "log": log, "process": process,
               "url": f"http://127.0.0.1:{port}/tutorial/ja/{CONCEPT}/"}
    try:
        _wait_for_log(running, r"Serving on http", timeout=180)
        yield running
    finally:
        process.send_signal(signal.SIGINT)  # Ctrl-C, as an author stops it
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            pytest.fail("Ctrl-C did not stop the preview within 20 s")
    no_process_left(root)


@pytest.fixture(scope="module")
def page(preview, chromium):
    context = chromium.new_context()
    tab = context.new_page()
    tab.goto(preview["url"])
    yield tab
    context.close()


def _edit(preview, lang, change):
    path = preview["root"] / "notebooks" / lang / f"{CONCEPT}.py"
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def _shows(page, text, timeout):
    page.wait_for_function("text => document.body.innerText.includes(text)", arg=text, timeout=timeout * 1000)


def test_a_prose_edit_shows_in_the_open_browser_without_a_restart(preview, page):
    marker = "ライブプレビューで確かめる一文です。"
    start = time.monotonic()
    _edit(preview, "ja", lambda text: re.sub(r"^(# # .*)$", rf"\1\n#\n# {marker}", text, count=1, flags=re.M))
    _shows(page, marker, timeout=30)
    print(f"prose edit shown in the browser after {time.monotonic() - start:.1f} s")
    assert preview["process"].poll() is None
    assert "executing" not in _log(preview), "a prose edit executes nothing"


def test_a_code_edit_executes_that_concept_only_and_a_failing_cell_keeps_the_last_good_page(preview, page):
    def with_cell(code):
        return lambda text: text.split(ADDED)[0].rstrip("\n") + ADDED + code + "\n"

    for lang in course.LANGS:  # the same code in every language, as the parity rule wants
        _edit(preview, lang, with_cell("print(6 * 7 * 1000)"))
    _shows(page, "42000", timeout=90)
    executed = re.findall(r"^executing notebooks/en/(\S+)\.py", _log(preview), re.M)
    assert executed == [CONCEPT], "only the edited concept runs again; the cache keeps the rest"

    page.evaluate("window.keptOpen = true")  # gone if the browser reloads
    for lang in course.LANGS:
        _edit(preview, lang, with_cell("print(1 // 0)"))
    _wait_for_log(preview, rf"^error: notebooks/en/{CONCEPT}\.py: cell \d+ \(line \d+\) raised ZeroDivisionError",
                  timeout=90)
    time.sleep(3)  # what a rebuild and reload would take
    assert page.evaluate("window.keptOpen") is True, "the browser was not reloaded"
    assert "42000" in page.inner_text("body"), "the last good page is still shown"
    assert preview["process"].poll() is None, "the preview keeps running after an author's mistake"
