#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, checks format, lint and types, then runs the
# unit, integration and e2e tiers against a real PostgreSQL and a real Temporal dev server (started by the suite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/prerequisites.sh

require_node
ensure_dependencies
ensure_postgres_binaries
log "checking format, lint and types"
npm run --silent check
build

mkdir -p .mirror
results=.mirror/test-results.json
log "running tests"
status=0
npx jest --ci --maxWorkers=2 --json --outputFile="$results" "$@" || status=$?
if [[ -f $results ]]; then
  # A plain closing line that any CI reader understands, whatever the runner.
  node -e '
    const r = require(process.argv[1]);
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  ' "$PWD/$results"
fi
exit "$status"
