"""Outputs recorded on a GPU (records/): made here (./scripts/record), and read by the build.

record() executes every notebook on this machine and saves the outputs in records/ with a manifest
(run it on a machine with a GPU; commit records/). The build (pages.py) shows a recorded page's
outputs for as long as the notebook's code matches the record's code hash (fresh_record), with a link
to the CPU outputs of the build.

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
from coursebuild.course import BuildError
from coursebuild.execute import kernel, outputs

RECORDS = course.ROOT / "records"


def load_records(records_dir):
    """The recorded outputs (made on a GPU, normally): {concept: notebook}, and their manifest."""
    manifest_path = Path(records_dir) / "manifest.json"
    if not manifest_path.exists():
        return {}, None
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    notebooks = {}
    for concept in manifest.get("concepts", {}):
        path = Path(records_dir) / f"{concept}.ipynb"
        if path.exists():
            notebooks[concept] = nbformat.read(path, as_version=4)
    return notebooks, manifest


def fresh_record(concept, records, manifest):
    """The recorded notebook for a concept if it was made from the current code, else None."""
    if manifest is None or concept not in records:
        return None
    current = course.code_hash(course.read(course.REFERENCE, concept))
    recorded = manifest["concepts"][concept]["code_hash"]
    if recorded != current or course.code_hash(records[concept]) != current:
        return None
    nb = records[concept]
    nb.metadata["course"] = {"provenance": _record_provenance(manifest), "code_hash": current}
    return nb


def _record_provenance(manifest):
    keys = ("kind", "device", "torch", "python", "date", "driver", "cuda")
    return {k: manifest[k] for k in keys if k in manifest}


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
    env = kernel.environment()
    manifest = dict(env, **gpu_details(), date=datetime.date.today().isoformat(), concepts={})
    recorded = {}
    for concept in course.concepts():
        log(f"recording {concept} on {env['device']}")
        recorded[concept] = kernel.run_notebook(concept, course.read(course.REFERENCE, concept), env)
        manifest["concepts"][concept] = {"code_hash": recorded[concept].metadata["course"]["code_hash"]}
    # The questions on a page are graded by the outputs it shows, and no output may be over the limit: a
    # record that breaks either would stop the build, so it is refused here, naming the notebook and cell.
    outputs.check_output_sizes(list(recorded.items()))
    outputs.check_answers(list(recorded.items()))
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
    parser.add_argument("--out", type=Path, default=RECORDS)
    args = parser.parse_args(argv)
    try:
        manifest = record(args.out)
    except BuildError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"recorded {len(manifest['concepts'])} notebooks on {manifest['device']} into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
