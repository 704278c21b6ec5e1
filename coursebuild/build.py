"""Build the site: execute the notebooks (cached), then render with MkDocs, in one process.

One process instead of two saves an unchanged build a Python start and a second import of the
notebook libraries. MkDocs itself still only renders: execution stays in coursebuild/execute.

One build runs at a time in a checkout (coursebuild/lock.py), and the site is swapped in whole:
MkDocs writes into a folder beside it, which replaces it only when the build succeeds, so that an
interrupted or strict-aborted build leaves the last good site as it was. Hands on site/, the site.

Usage: python -m coursebuild.build [mkdocs build options, e.g. -d DIR]
"""
import shutil
import sys
import tempfile
from pathlib import Path

import click
from mkdocs.__main__ import cli

from coursebuild import course, lock
from coursebuild.execute import pages


def main(argv):
    try:
        return _build(argv)
    except OSError as err:  # a folder the build writes that is read-only (site/, .cache/): one line, no traceback
        print(f"error: {course.unwritable(err)}", file=sys.stderr)
        return 1


def _build(argv):
    with lock.held(lambda line: print(line, file=sys.stderr, flush=True)):
        done = pages.build_or_explain()
        if done:
            return done
        site, argv = site_dir(argv)
        building = site.with_name(f".{site.name}.building")
        # from a build that was killed (the lock says none is running now), or a file that could not be removed
        for leftover in [building, *site.parent.glob(f".{site.name}.old*")]:
            shutil.rmtree(leftover, ignore_errors=True)
        done = 1
        try:
            done = _mkdocs_build(building, argv)
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
    for i, arg in enumerate(argv):
        if arg in ("-d", "--site-dir") and i + 1 < len(argv):
            return course.ROOT / argv[i + 1], argv[:i] + argv[i + 2:]  # relative: to mkdocs.yml's folder, as MkDocs
        if arg.startswith("--site-dir="):
            return course.ROOT / arg.split("=", 1)[1], argv[:i] + argv[i + 1:]
    return course.ROOT / "site", argv


def _name(folder):
    return f"{folder.relative_to(course.ROOT)}/" if folder.is_relative_to(course.ROOT) else str(folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
