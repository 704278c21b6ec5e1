"""Synonym groups for search: the words readers type for what the pages say otherwise.

One file per language, coursebuild/search/synonyms/<lang>.yml: a list of groups, each a list of spellings that
search treats as one word (a loanword and its English spelling, an API name and what people call it,
an everyday phrase and the term the page uses). index.py puts a language's groups in
that language's index (config.synonyms); docs/assets/javascripts/workers/search-i18n.js then marks
every place a spelling occurs, in the pages and in the query alike, so that any spelling of a group
finds the pages that use another. A spelling matches whole words, after the language's own
segmentation, stop words and stems: `メモリが足り` also matches メモリが足りない, `load on CPU` also
matches "loading it on the CPU". Hands the groups to index.py."""
from pathlib import Path

import yaml

from coursebuild import course
from coursebuild.course import BuildError

FOLDER = Path(__file__).resolve().parent / "synonyms"
LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml reads the three files in 2 ms, not 17


def load(lang, folder=FOLDER):
    """The groups of `lang` ([[spelling, ...], ...]); none where the language has no file."""
    path = Path(folder) / f"{lang}.yml"
    if not path.exists():
        return []
    try:
        groups = yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER) or []
    except yaml.YAMLError:  # named with its line, the error the build prints without a traceback
        course.load_yaml(path, "One group per line: - [spelling, other spelling, ...]; quote a spelling that "
                               "holds , [ ] : or starts with a quote.")
        raise
    if not isinstance(groups, list):
        raise BuildError(f"{course.relative(path)}: write a list of groups, one per line: - [spelling, other spelling, ...]")
    seen = {}
    for n, group in enumerate(groups, 1):
        if (not isinstance(group, list) or len(group) < 2
                or not all(isinstance(s, str | int | float) and str(s).strip() for s in group)):
            raise BuildError(f"{course.relative(path)}: group {n} ({group!r}) must list two spellings or more, "
                             "e.g. - [DataParallel, データパラレル]")
        for spelling in map(str, group):
            key = " ".join(spelling.casefold().split())
            if key in seen and seen[key] != n:
                raise BuildError(f"{course.relative(path)}: {spelling!r} is in groups {seen[key]} and {n}; "
                                 "a spelling can mean one thing only: merge the groups or drop one")
            seen[key] = n
    return [[str(s).strip() for s in group] for group in groups]
