"""The live preview keeps serving the last good site when a rebuild fails, and says what to fix.

MkDocs' server rebuilds into the folder it serves, and after a failed rebuild holds every request until
a build succeeds ("The server will appear stuck until build errors are resolved"): deleting a concept
that another page links to made every URL hang. kept_when_failing wraps the build MkDocs' serve command
calls (coursebuild/patches.py, "preview-last-good"): each rebuild goes into a folder beside the served
one, which replaces it only when the build succeeds. A failed rebuild is logged with its reason and
returns normally, so the server goes on answering, from the last good site. The first build has no
good site to keep: its failure still ends the preview, as before.
"""
import functools
import logging
import shutil
from pathlib import Path

log = logging.getLogger("mkdocs.hooks.course")


def kept_when_failing(build):
    @functools.wraps(build)
    def wrapped(config, *args, **kwargs):
        served = Path(config.site_dir)
        if not (served / "index.html").exists():  # the first build: nothing to keep
            return build(config, *args, **kwargs)
        staging, old = served.with_name(served.name + ".building"), served.with_name(served.name + ".old")
        for leftover in (staging, old):
            shutil.rmtree(leftover, ignore_errors=True)
        config["site_dir"] = str(staging)
        try:
            build(config, *args, **kwargs)
        except Exception as err:  # noqa: BLE001 (MkDocs' strict abort, an author's mistake found by a hook)
            shutil.rmtree(staging, ignore_errors=True)
            reason = str(err).strip() or type(err).__name__
            log.error("the site could not be rebuilt: %s\n  The preview keeps serving the last good site; fix "
                      "that (the lines above say where) and save again.", reason)
            return None
        finally:
            config["site_dir"] = str(served)
        served.rename(old)
        staging.rename(served)
        shutil.rmtree(old, ignore_errors=True)
        return None
    return wrapped


kept_when_failing.wraps_original = True  # coursebuild/patches.py installs it around mkdocs.commands.serve.build
