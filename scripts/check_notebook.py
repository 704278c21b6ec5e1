"""Execute one or more percent-format notebooks and report the first failing cell.

Usage: python scripts/check_notebook.py notebooks/en/02-moving-tensors.py [...]
A quick authoring aid; the build does the same (with caching) for every notebook.
"""
import sys
from pathlib import Path

import jupytext
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError


def main(paths):
    failed = False
    for path in map(Path, paths):
        nb = jupytext.read(path)
        client = NotebookClient(nb, timeout=300, kernel_name="python3",
                                resources={"metadata": {"path": str(path.parent)}})
        try:
            client.execute()
        except CellExecutionError as err:
            print(f"FAIL {path}: {err}")
            failed = True
            continue
        for i, cell in enumerate(nb.cells):
            tags = cell.get("metadata", {}).get("tags", [])
            raised = any(o.get("output_type") == "error" for o in cell.get("outputs", []))
            if "raises-exception" in tags and not raised:
                print(f"FAIL {path}: cell {i} is tagged raises-exception but did not raise")
                failed = True
        print(f"ok   {path}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
