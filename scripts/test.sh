#!/usr/bin/env bash
# The whole ndnlab test suite, from a clean checkout: installs what it needs itself
# (a Python venv with python-ndn for the interop tests), then format check, clippy
# with warnings as errors, and every test of the workspace.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }
# Cargo learns about the target by running `rustc -` with its stdin on /dev/null.
# Writing a file over /dev/null (a renamed temp file, say) turns it into a regular
# file that keeps what was written, and every cargo command then fails. Restore
# the device if we may, or say what is wrong.
if [ ! -c /dev/null ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "test.sh: /dev/null is not a character device; recreating it" >&2
        rm -f /dev/null && mknod -m 666 /dev/null c 1 3
    else
        echo "test.sh: /dev/null is not a character device; cargo cannot run (ask root to recreate it: mknod -m 666 /dev/null c 1 3)" >&2
        exit 1
    fi
fi

# The suite builds from scratch on CI: no incremental caches, and line tables
# only (backtraces keep file and line), which cuts compile and link time.
export CARGO_INCREMENTAL=0
export CARGO_PROFILE_DEV_DEBUG=line-tables-only
export CARGO_PROFILE_TEST_DEBUG=line-tables-only

step "slurm-wlm and munge (the local Slurm cluster of crates/ndnlab/tests/submit_slurm.rs)"
if command -v slurmctld >/dev/null && command -v munged >/dev/null; then
    echo "present: $(slurmctld -V)"
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge; } ||
        echo "apt-get could not install slurm-wlm and munge: the Slurm tests will skip"
else
    echo "not installed, and not root with apt-get: the Slurm tests will skip"
fi

step "python venv with python-ndn (interop peer), numpy and scipy (reference statistics)"
NDNLAB_PYTHON="$(scripts/python-venv.sh)"
export NDNLAB_PYTHON
"$NDNLAB_PYTHON" -c "import importlib.metadata as m; print(*(f'{p} {m.version(p)}' for p in ('python-ndn', 'numpy', 'scipy')), sep=', ')"

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test"
cargo test --workspace --locked

echo
echo "ndnlab: all checks passed"
