"""Code fits the page: at 1280 px the notebook's code column holds 81 characters, so a longer line makes
the cell scroll sideways (tests/test_reader_*.py measures it in the browser). Comments are code here:
Japanese and Korean characters take two columns, as in a terminal."""
import unicodedata

from coursebuild import course
import pytest

MAX_COLUMNS = 80


def columns(line):
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in line)


@pytest.mark.parametrize("lang", course.LANGS)
def test_no_code_line_is_wider_than_the_page(lang):
    wide = []
    for concept in course.concepts():
        path = course.source(lang, concept)
        for i, cell in enumerate(course.read(lang, concept).cells):
            if cell.cell_type != "code":
                continue
            for n, line in enumerate(cell.source.splitlines(), 1):
                if columns(line) > MAX_COLUMNS:
                    wide.append(f"{path.relative_to(course.ROOT)}: cell {i + 1} (line "
                                f"{course.cell_line(path, i) + n}) is {columns(line)} columns: {line.strip()[:60]}")
    assert not wide, f"{len(wide)} code lines wider than {MAX_COLUMNS} columns:\n" + "\n".join(wide)
