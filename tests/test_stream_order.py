"""A cell's outputs appear in the order the cell wrote them, across stdout and stderr (the kernel
buffers each stream on its own; coursebuild/execute/streams_in_order.py)."""
from coursebuild import course
from coursebuild.course import twins
from coursebuild.execute import pages
import nbformat
from conftest import write_notebook

CELL = """import sys
for i in range(1, 8):  # out 1, err 2, out 3, ... with no flush in between
    print(f"{'err' if i % 2 == 0 else 'out'} {i}", file=sys.stderr if i % 2 == 0 else sys.stdout)
"""


def test_stdout_and_stderr_keep_the_order_they_were_written_in(course_root):
    for lang in course.LANGS:
        write_notebook(course_root, lang, "01-x", ("md", "# Title\n\n## Part"), ("", CELL))
    twins.main()
    pages.build_pages(records_dir=course_root / "records", log=lambda *_: None)
    nb = nbformat.read(course_root / "docs" / "en" / "01-x.ipynb", as_version=4)
    outputs = next(c for c in nb.cells if c.cell_type == "code").outputs
    seen = [(out.name, line) for out in outputs for line in out.text.splitlines()]
    assert [line for _, line in seen] == [f"{'err' if i % 2 == 0 else 'out'} {i}" for i in range(1, 8)], seen
    assert all(name == ("stderr" if line.startswith("err") else "stdout") for name, line in seen), seen
