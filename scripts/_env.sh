# Sourced by the other scripts: a virtual environment in .venv that matches requirements.txt.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
want="$(sha256sum requirements.txt | cut -c1-16)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$want" ]; then
  PY="${PYTHON:-python3}"
  if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "error: Python 3.11 or newer is needed as '$PY' (set PYTHON=/path/to/python3.11)" >&2
    exit 1
  fi
  echo "Setting up .venv from requirements.txt (first run, or requirements.txt changed)..." >&2
  [ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r requirements.txt
  "$VENV/bin/python" scripts/prune_venv.py requirements.txt  # pip keeps what a removed pin installed
  echo "$want" > "$VENV/.requirements"
fi
export PATH="$VENV/bin:$PATH"
export NO_MKDOCS_2_WARNING=1 PYTHONUNBUFFERED=1
