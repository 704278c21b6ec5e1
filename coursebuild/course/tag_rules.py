"""The cell tags the build knows (predict, answer, setup, gpu-only, summary, claim-<ID>), and the tags it refuses:
a tag that "Run all" would not honour (raises-exception), one close to a known tag (a typo), a claim
ID missing from notebooks/claims.yml, a cell header whose metadata does not parse. Hands the problems
found, each naming the file, line and fix, to the execute stage (which stops before running anything).
"""
import difflib
import json
import re

from coursebuild import course
from coursebuild.course import LANGS

REFUSED_TAGS = {
    "raises-exception": "Colab's and Positron's \"Run all\" ignore tags and would stop at this cell. Catch the "
                        "expected error in the cell with `with expect_error(Kind, \"stable fragment\"):` (defined "
                        "in the notebook's first code cell, see notebooks/README.md) and remove the tag",
}

# The tags a cell may carry, besides claim-<ID> for each ID in notebooks/claims.yml: predict (a question,
# "predict, then run"), answer (cells shown once the question is answered), setup (the first code cell,
# shown collapsed), gpu-only (checks that need a CUDA GPU), summary (the page's answer in a few lines, shown
# in a box under the title), calculator (its output holds the coefficients of the page's memory calculator:
# coursebuild/render/calculator.py). A tag close to one of these is a typo.
KNOWN_TAGS = frozenset({"predict", "answer", "setup", "gpu-only", "summary", "calculator"})

CLAIM_TAG = "claim-"


def claim_ids():
    """The IDs in notebooks/claims.yml, or None where there is no such file."""
    path = course.NOTEBOOKS / "claims.yml"
    if not path.exists():
        return None
    claims = course.load_yaml(path, "Each claim is one line, `ID: \"text\"`: quote the text (a text that starts "
                                    "with ` or holds `: ` must be quoted) and close every quote.") or {}
    if not isinstance(claims, dict):
        raise course.BuildError(f"notebooks/claims.yml: write one claim per line, `ID: \"text\"`")
    return set(claims)


def tag_problems(only=None):
    """Cells tagged in a way a reader's "Run all" does not honour, with a tag that is probably a typo of
    a known one, or with a header whose metadata jupytext could not read (it keeps the text aside)."""
    problems = []
    claims = claim_ids()
    for lang in LANGS:
        for path in sorted((course.NOTEBOOKS / lang).glob("*.py")):
            if only and path.stem not in only:
                continue
            for i, cell in enumerate(course.read(lang, path.stem).cells):
                found = []
                raw = cell.get("metadata", {}).get("incorrectly_encoded_metadata")
                if raw is not None:
                    found.append(f": the metadata in its header, `{raw}`, does not parse{_meant(raw)}.\n  Write "
                                 "tags as a list of strings in square brackets: `# %% tags=[\"predict\"]`.")
                kind = str(cell.get("metadata", {}).get("title", ""))
                if kind.startswith("["):
                    found.append(f": `{kind}` in its header is not a cell kind (the cell was read as code): a "
                                 "Markdown cell starts with `# %% [markdown]`.")
                for tag in course.tags(cell):
                    if tag in REFUSED_TAGS:
                        found.append(f" is tagged {tag}: {REFUSED_TAGS[tag]}.")
                    elif (problem := _tag_problem(tag, claims)) is not None:
                        found.append(f" {problem}")
                problems += [course.Problem(path, f"cell {i + 1} (line {course.cell_line(path, i)}){p}") for p in found]
    return problems


def _tag_problem(tag, claims):
    if tag in KNOWN_TAGS or (tag.startswith(CLAIM_TAG) and (claims is None or tag[len(CLAIM_TAG):] in claims)):
        return None
    known = {t.lower(): t for t in KNOWN_TAGS | {CLAIM_TAG + c for c in claims or ()}}
    typed = re.sub(r"[\s_]+", "-", tag.strip().lower())
    close = [known[typed]] if typed in known else [known[m] for m in difflib.get_close_matches(typed, known, 1, 0.8)]
    if tag.startswith(CLAIM_TAG):
        return (f"is tagged {tag}, but notebooks/claims.yml has no claim {tag[len(CLAIM_TAG):]}: "
                + (f"did you mean {close[0]}?" if close else "add the claim there, or fix the tag."))
    if close:
        return (f"is tagged {tag!r}, which the build does not know: did you mean {close[0]!r}? (known tags: "
                f"{', '.join(sorted(KNOWN_TAGS))}, {CLAIM_TAG}<ID>)")
    return None  # a tag for another tool (hide-input, parameters): left alone


def _meant(raw):
    """The tags a header that does not parse probably meant, as they should be written."""
    words = re.findall(r"[\"']([^\"']+)[\"']", raw) or re.findall(r"[\w-]+", raw.partition("=")[2])
    if not raw.lstrip().startswith("tags") or not words:
        return ""
    return f"; it probably meant `tags={json.dumps(words)}`"
