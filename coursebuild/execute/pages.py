"""Execute every concept once on this machine's best device, cache the result, and write the pages:
the execute stage, in order.

1. Check the notebooks as written (course: parity, tags, questions, nav, twins) and that docs/ holds no
   notebook the build did not write (signed.py), before anything runs.
2. Execute each concept's reference-language notebook, two at a time (kernel.py, in a scratch folder of
   its own: sandbox.py), or take its run from the cache (cache.py).
3. Check the outputs every page will show and copy them into every language's notebook (outputs.py);
   where a record of outputs made on a GPU (records/, records.py) matches the current code, the page
   shows those and a second page shows this build's CPU outputs.
4. Write the signed pages docs/<lang>/<concept>.ipynb for MkDocs to render (signed.py), and remove
   those of deleted concepts.

Every file is written whole (a temporary file, then a rename) or not at all; one build runs at a time
(coursebuild/lock.py).

Usage: python -m coursebuild.execute.pages [--records DIR] [--only CONCEPT ...]
"""
import argparse
import contextlib
import signal
import sys
import time
from pathlib import Path

from coursebuild import course, lock
from coursebuild.course import BuildError, conflicts, gpu_evidence, nav, parity, questions, tag_rules, twins
from coursebuild.execute import cache, kernel, outputs, records, sandbox, signed


def build_pages(records_dir=records.RECORDS, only=None, log=print, authoring=False):
    """Execute the notebooks (only: these concepts; the live preview) and write their pages, one build
    at a time in a checkout. authoring: see kernel.Kernels."""
    with lock.held(log):
        return _build_pages(records_dir, only, log, authoring)


def _build_pages(records_dir, only, log, authoring):
    start = time.monotonic()
    kernel.cell_timeout()  # a bad setting stops the build before anything runs
    sandbox.reap_leftovers(log)  # what a killed build left (this one holds the checkout's lock)
    problems = conflicts.conflict_problems()  # first: the other checks would misread a conflicted notebook
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))
    problems = (parity.parity_problems(only) + tag_rules.tag_problems(only) + questions.question_problems(only)
                + nav.nav_problems(only) + gpu_evidence.evidence_problems(only) + twins.stale(only))
    if problems:
        raise BuildError("\n".join(str(p) for p in problems))
    foreign = signed.foreign_notebooks()
    if foreign:
        raise BuildError(signed.refusal(foreign))
    env = kernel.environment()
    names = [c for c in course.concepts() if not only or c in only]
    cache.prune(log)
    done = cache.execute_all(names, env, log, authoring)
    runs = {concept: nb for concept, (nb, _) in done.items()}
    ran = [f"{c} ({s:.1f} s)" for c, (_, s) in done.items() if s is not None]
    cached = [c for c, (_, s) in done.items() if s is None]
    if ran:
        log(f"executed on {env['device']}: {', '.join(ran)}")
    if cached:
        log(f"cached: {', '.join(cached)}")
    recorded, manifest = records.load_records(records_dir)
    stale = [c for c in recorded if records.fresh_record(c, recorded, manifest) is None]
    if stale:
        log(f"stale records (code changed since they were made; showing this build's outputs): {', '.join(stale)}")
    # Every page's questions are graded by the outputs it shows: this build's, and a fresh record's.
    shown = [(c, run) for c, run in runs.items()] + \
            [(c, rec) for c in runs if (rec := records.fresh_record(c, recorded, manifest)) is not None]
    outputs.check_output_sizes(shown)
    outputs.check_answers(shown)
    wanted = set()
    changed = 0
    for concept, run in runs.items():
        record = records.fresh_record(concept, recorded, manifest)
        for lang in course.LANGS:
            page = course.DOCS / lang / f"{concept}.ipynb"
            if record is None:
                changed += signed.write_page(page, outputs.with_outputs(lang, concept, run, "build"))
                wanted.add(page)
                continue
            cpu_page = course.DOCS / lang / signed.CPU_VIEW / f"{concept}.ipynb"
            shown = outputs.with_outputs(lang, concept, record, "record", f"{signed.CPU_VIEW}/{concept}.ipynb")
            changed += signed.write_page(page, shown)
            changed += signed.write_page(cpu_page, outputs.with_outputs(lang, concept, run, "build",
                                                                        f"../{concept}.ipynb"))
            wanted.update({page, cpu_page})
    # Pages no concept wants any more; the live preview (only) looks at the concepts it was given, which
    # may have been deleted.
    gone = set(only or ()) - set(course.concepts())
    removed = []
    for old in sorted(course.DOCS.rglob("*.ipynb")):  # a list: emptied view folders go
        if old not in wanted and (not only or old.stem in gone) and not old.name.startswith(".") \
                and signed.written_by_build(old):
            old.unlink()
            removed.append(old)
            with contextlib.suppress(OSError):  # a view folder left empty
                if old.parent.name == signed.CPU_VIEW:
                    old.parent.rmdir()
    log(f"pages: {len(wanted)} in docs/, {changed} written, {len(wanted) - changed} unchanged"
        + (f", removed {', '.join(sorted(str(p.relative_to(course.ROOT)) for p in removed))}" if removed else ""))
    for concept in sorted({p.stem for p in removed} - set(course.concepts())):
        log(_deleted(concept))
    log(f"notebooks done in {time.monotonic() - start:.1f} s")
    return runs, stale


def _deleted(concept):
    """What the build says when a concept's notebooks are gone: its pages went with them."""
    line = f"{concept}: its notebooks are deleted, so its pages are removed from the site"
    left = [str(twins.path(lang, concept).relative_to(course.ROOT)) for lang in course.LANGS
            if twins.path(lang, concept).exists()]
    if left:
        line += (f"; {', '.join(left)} remain (delete them too, or restore a notebook from its twin: "
                 f"jupytext --to py:percent {left[0]})")
    listed = nav.nav()
    if listed and f"{concept}.ipynb" in {page for _, page in listed[1]}:
        line += f"; remove `{concept}.ipynb` from nav in mkdocs.yml"
    return line


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=Path, default=records.RECORDS)
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args(argv)
    return build_or_explain(args.records, args.only)


def build_or_explain(records_dir=records.RECORDS, only=None):
    """build_pages for a command line: 0; 1 with the author's error printed; 130 after Ctrl-C."""
    # CI cancels a job with SIGTERM: stop as Ctrl-C does, killing the kernels.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        build_pages(records_dir, only)
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: kernels stopped; every page and cache entry is either whole or not written",
              file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
