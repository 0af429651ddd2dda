#!/usr/bin/env bash
# The whole ndnlab test suite, from a clean checkout: installs what it needs itself
# (a Python venv with python-ndn for the interop tests), then format check, clippy
# with warnings as errors, and every test of the workspace.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }
# Cargo caches what rustc prints about the target in target/.rustc_info.json,
# failures included: a probe that failed once (seen on this kind of machine,
# rustc having read stray text on its stdin; the cause is not known) would fail
# every later cargo command. Each step starts without that cache.
fresh_probe() { rm -f target/.rustc_info.json target/*/.rustc_info.json; }

step "python venv with python-ndn (interop peer)"
NDNLAB_PYTHON="$(scripts/python-venv.sh)"
export NDNLAB_PYTHON
"$NDNLAB_PYTHON" -c "import importlib.metadata as m; print('python-ndn', m.version('python-ndn'))"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
fresh_probe
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
fresh_probe
cargo test --workspace --locked

echo
echo "ndnlab: all checks passed"
