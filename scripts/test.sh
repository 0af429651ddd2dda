#!/usr/bin/env bash
# The whole ndnlab test suite, from a clean checkout: installs what it needs itself
# (a Python venv with python-ndn for the interop tests), then format check, clippy
# with warnings as errors, and every test of the workspace.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }

step "python venv with python-ndn (interop peer)"
NDNLAB_PYTHON="$(scripts/python-venv.sh)"
export NDNLAB_PYTHON
"$NDNLAB_PYTHON" -c "import importlib.metadata as m; print('python-ndn', m.version('python-ndn'))"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

echo
echo "ndnlab: all checks passed"
