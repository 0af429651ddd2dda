#!/usr/bin/env bash
# Create (or reuse) the Python venv the interop tests use: python-ndn from PyPI.
# Prints the venv's python path on stdout. Idempotent and quick when up to date.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${NDNLAB_VENV:-$root/.venv}"
want="python-ndn==0.5.2"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('python-ndn') != '0.5.2')" 2>/dev/null; then
    "$venv/bin/pip" install --quiet "$want" >&2
fi
echo "$venv/bin/python"
