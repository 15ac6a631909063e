#!/usr/bin/env bash
# The Python client's tests: a venv under .mirror/ (kept between runs; pip's cache allowed), the package installed
# with its test extras, then pytest. Unit tests always; with MIRROR_URL set (a running `mirror up`), the integration
# tests too. Extra arguments go to pytest; `--prepare` alone only makes the venv (scripts/test.sh does it early).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="${MIRROR_PYTHON_VENV:-$root/.mirror/python-client-venv}"
python="${PYTHON:-python3}"

if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
  echo "run-tests.sh: Python 3.10 or newer is needed ($("$python" --version 2>&1))" >&2
  exit 2
fi

started=$(date +%s)
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --upgrade pip
fi
# Reinstalled every run (quick once the dependencies are there) so the tests always see this checkout's code.
"$venv/bin/python" -m pip install --quiet "$here[test]"
echo "run-tests.sh: venv ready in $(($(date +%s) - started)) s ($venv)"
[[ "${1:-}" == "--prepare" ]] && exit 0

cd "$here"
# verifiers' harness finds uv (a test dependency) on PATH.
export PATH="$venv/bin:$PATH"
"$venv/bin/ruff" format --check src tests
"$venv/bin/ruff" check src tests
"$venv/bin/python" -m mypy
if [ -n "${MIRROR_URL:-}" ]; then
  exec "$venv/bin/python" -m pytest "$@"
else
  echo "run-tests.sh: MIRROR_URL unset, integration tests not run"
  exec "$venv/bin/python" -m pytest -m "not integration" "$@"
fi
