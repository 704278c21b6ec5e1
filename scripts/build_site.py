"""Build the site: execute the notebooks (cached), then render with MkDocs, in one process.

One process instead of two saves an unchanged build a Python start and a second import of the
notebook libraries. MkDocs itself still only renders: execution stays in scripts/execute.py.

Usage: python scripts/build_site.py [mkdocs build options, e.g. -d DIR]
"""
import sys

from mkdocs.__main__ import cli

import execute


def main(argv):
    done = execute.build_or_explain()
    if done:
        return done
    return cli.main(["build", "--strict", *argv], prog_name="mkdocs")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
