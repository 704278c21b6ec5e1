"""Build the site: execute the notebooks (cached), then render with MkDocs, in one process.

One process instead of two saves an unchanged build a Python start and a second import of the
notebook libraries. MkDocs itself still only renders: execution stays in coursebuild/execute.

One build runs at a time in a checkout (coursebuild/lock.py), and the site is swapped in whole:
MkDocs writes into a folder beside it, which replaces it only when the build succeeds, so that an
interrupted or strict-aborted build leaves the last good site as it was. Hands on site/, the site.

A build whose inputs are those of the site in site/ (coursebuild/inputs.py: the record written into
the site's folder with it) leaves it as it is and says so. Run as a command, that check comes before
the imports below: nothing changed costs a Python start and a look at the files' sizes and times.

Usage: python -m coursebuild.build [mkdocs build options, e.g. -d DIR]
"""
import sys
from pathlib import Path

from coursebuild import inputs

if __name__ == "__main__":
    _root = Path(__file__).resolve().parents[1]
    _site, _options = inputs.site_dir(sys.argv[1:], _root)
    if inputs.out_of_date(_root, _site, _options) is None:
        print(f"{_site.name}/ is up to date: nothing it was built from changed", file=sys.stderr)
        sys.exit(0)

import shutil  # noqa: E402
import tempfile  # noqa: E402

import click  # noqa: E402
from mkdocs.__main__ import cli  # noqa: E402

from coursebuild import course, lock  # noqa: E402
from coursebuild.execute import pages  # noqa: E402


def main(argv):
    try:
        return _build(argv)
    except OSError as err:  # a folder the build writes that is read-only (site/, .cache/): one line, no traceback
        print(f"error: {course.unwritable(err)}", file=sys.stderr)
        return 1


def _build(argv):
    with lock.held(lambda line: print(line, file=sys.stderr, flush=True)):
        site, argv = site_dir(argv)
        why = inputs.out_of_date(course.ROOT, site, argv)  # again: a build we waited for may have made it
        if why is None:
            print(f"{_name(site)} is up to date: nothing it was built from changed", file=sys.stderr)
            return 0
        print(f"building {_name(site)}: {why}", file=sys.stderr)
        record = inputs.Record(course.ROOT, argv)  # before anything is read: an edit from now on is seen next time
        done = pages.build_or_explain()
        if done:
            return done
        record.executed()
        building = site.with_name(f".{site.name}.building")
        # from a build that was killed (the lock says none is running now), or a file that could not be removed
        for leftover in [building, *site.parent.glob(f".{site.name}.old*")]:
            shutil.rmtree(leftover, ignore_errors=True)
        done = 1
        try:
            done = _mkdocs_build(building, argv)
            if not done:
                record.write(building)  # with the site, so that they replace site/ together
        finally:
            if done:
                shutil.rmtree(building, ignore_errors=True)
        if done:
            print(f"{_name(site)} is left as it was (the last good build)", file=sys.stderr)
            return done
        # A name no leftover has: a .site.old that could not be removed (a file a sudo build left) never
        # blocks the next build.
        old = Path(tempfile.mkdtemp(prefix=f".{site.name}.old-", dir=site.parent))
        old.rmdir()
        try:
            if site.exists():
                site.rename(old)
        except OSError:
            shutil.rmtree(building, ignore_errors=True)
            raise
        try:
            building.rename(site)
        except OSError:
            if old.exists() and not site.exists():
                old.rename(site)  # the last good site back in place
            raise
        shutil.rmtree(old, ignore_errors=True)
        return 0


def _mkdocs_build(site, argv):
    """mkdocs build --strict into site: 0, or the exit status with MkDocs' message printed."""
    try:
        cli.main(["build", "--strict", "-d", str(site), *argv], prog_name="mkdocs", standalone_mode=False)
    except click.exceptions.Abort:  # Ctrl-C, as click reports it
        print("interrupted", file=sys.stderr)
        return 130
    except click.ClickException as err:  # a strict abort, a bad option: MkDocs' own words
        err.show()
        return err.exit_code
    except course.BuildError as err:  # an author's mistake found while rendering (a link, synonyms): named
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0


def site_dir(argv):
    """The folder the site goes to (-d/--site-dir, else site/ beside mkdocs.yml), and the other options."""
    return inputs.site_dir(argv, course.ROOT)


def _name(folder):
    return f"{folder.relative_to(course.ROOT)}/" if folder.is_relative_to(course.ROOT) else str(folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
