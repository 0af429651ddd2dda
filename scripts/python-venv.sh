#!/usr/bin/env bash
# Create (or reuse) the Python venv the interop and reference tests use:
# python-ndn (interop peer) and numpy/scipy (reference statistics of the
# distribution fits), pinned, from PyPI.
# Prints the venv's python path on stdout. Idempotent and quick when up to date.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${NDNLAB_VENV:-$root/.venv}"
want=("python-ndn==0.5.2" "numpy==2.2.6" "scipy==1.15.3")
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
fi
if ! "$venv/bin/python" - "${want[@]}" 2>/dev/null <<'PY'
import importlib.metadata as m, sys
sys.exit(any(m.version(n) != v for n, v in (w.split("==") for w in sys.argv[1:])))
PY
then
    "$venv/bin/pip" install --quiet "${want[@]}" >&2
fi
echo "$venv/bin/python"
