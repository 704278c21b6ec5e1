"""Execute every notebook on this machine and save the outputs as a record in records/.

Run it on a machine with a GPU (./scripts/record); commit records/. The site shows a recorded
page's outputs for as long as the notebook's code matches the record's code hash.

Usage: python -m coursebuild.execute.records [--out records]
"""
import argparse
import datetime
import json
import subprocess
import sys
from pathlib import Path

import nbformat

from coursebuild import course
from coursebuild.execute import pages as execute


def gpu_details():
    """Driver and CUDA versions, where there is an NVIDIA GPU."""
    import torch

    if not torch.cuda.is_available():
        return {}
    details = {"cuda": torch.version.cuda, "gpus": torch.cuda.device_count()}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
        details["driver"] = out.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError, IndexError):
        pass
    return details


def record(out, log=print):
    env = execute.environment()
    manifest = dict(env, **gpu_details(), date=datetime.date.today().isoformat(), concepts={})
    recorded = {}
    for concept in course.concepts():
        log(f"recording {concept} on {env['device']}")
        recorded[concept] = execute.run_notebook(concept, course.read(course.REFERENCE, concept), env)
        manifest["concepts"][concept] = {"code_hash": recorded[concept].metadata["course"]["code_hash"]}
    # The questions on a page are graded by the outputs it shows, and no output may be over the limit: a
    # record that breaks either would stop the build, so it is refused here, naming the notebook and cell.
    execute.check_output_sizes(list(recorded.items()))
    execute.check_answers(list(recorded.items()))
    # Written only once every notebook ran, each file whole or not at all: a failure or Ctrl-C leaves
    # the previous record as it was.
    out.mkdir(parents=True, exist_ok=True)
    for concept, nb in recorded.items():
        course.write_atomic(out / f"{concept}.ipynb", nbformat.writes(nb))
    for old in out.glob("*.ipynb"):
        if old.stem not in manifest["concepts"]:
            old.unlink()
    course.write_atomic(out / "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False) + "\n")
    return manifest


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=execute.RECORDS)
    args = parser.parse_args(argv)
    try:
        manifest = record(args.out)
    except execute.BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"recorded {len(manifest['concepts'])} notebooks on {manifest['device']} into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
