"""Every claim in the registry is demonstrated, in every language, by a tagged code cell that checks it."""
import re

from coursebuild import course
import yaml

# A claim cell checks what it shows: an assert, or an expected error caught and asserted by
# expect_error (notebooks/README.md). A raises-exception tag is no check: "Run all" ignores it.
CHECKS = re.compile(r"\bassert\b|raise AssertionError|\bexpect_error\(")

CLAIMS = yaml.safe_load((course.NOTEBOOKS / "claims.yml").read_text(encoding="utf-8"))


def _claim_tags():
    found = {lang: {} for lang in course.LANGS}
    for lang in course.LANGS:
        for concept in course.concepts():
            for cell in course.code_cells(course.read(lang, concept)):
                for tag in course.tags(cell):
                    if tag.startswith("claim-"):
                        found[lang].setdefault(tag[len("claim-"):], []).append(concept)
    return found


def test_registry_has_the_ledger_ids():
    expected = {f"M{i}" for i in range(1, 7)} | {f"O{i}" for i in range(1, 6)} | {f"F{i}" for i in range(1, 12)}
    assert expected <= set(CLAIMS)


def test_every_claim_is_demonstrated_in_every_language():
    found = _claim_tags()
    missing = [f"{lang}: claim-{claim}" for lang in course.LANGS for claim in CLAIMS if claim not in found[lang]]
    assert not missing, "no cell demonstrates: " + ", ".join(missing)


def test_claim_tags_name_known_claims():
    found = _claim_tags()
    unknown = {claim for lang in found for claim in found[lang]} - set(CLAIMS)
    assert not unknown, f"tags name claims missing from notebooks/claims.yml: {sorted(unknown)}"


def test_claim_cells_assert_or_expect_an_error():
    unchecked = []
    for concept in course.concepts():
        for i, cell in enumerate(course.code_cells(course.read(course.REFERENCE, concept)), 1):
            tags = course.tags(cell)
            if any(t.startswith("claim-") for t in tags) and not CHECKS.search(course.strip_comments(cell.source)):
                unchecked.append(f"{concept}: code cell {i} is tagged {tags} but neither asserts nor uses "
                                 "`with expect_error(Kind, \"fragment\"):`")
    assert not unchecked, "\n".join(unchecked)
