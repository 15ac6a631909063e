#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, checks format, lint and types, then runs the
# unit, integration and e2e tiers against a real PostgreSQL and a real Temporal dev server (started by the suite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/prerequisites.sh

require_node
ensure_dependencies
ensure_postgres_binaries
ensure_report_tools
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

# The Python client (clients/python) against a running `mirror up`, as a trainer's Python stack meets Mirror.
log "running the Python client's tests against mirror up"
python_status=0
node bin/mirror.js up examples/clinic-network --port 0 --json >.mirror/mirror-up.out 2>.mirror/mirror-up.err &
up_pid=$!
api=""
for _ in $(seq 1 600); do
  api=$(node -e 'try { process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).api ?? "") } catch {}' .mirror/mirror-up.out)
  [[ -n $api ]] && break
  kill -0 "$up_pid" 2>/dev/null || break
  sleep 0.5
done
if [[ -n $api ]]; then
  MIRROR_URL="$api" bash clients/python/run-tests.sh || python_status=$?
else
  echo "mirror up did not print its ready line:" >&2
  cat .mirror/mirror-up.err >&2
  python_status=1
fi
kill -TERM "$up_pid" 2>/dev/null || true
wait "$up_pid" 2>/dev/null || true
echo "python client tests: $([[ $python_status -eq 0 ]] && echo passed || echo "failed ($python_status)")"
[[ $status -ne 0 ]] && exit "$status"
exit "$python_status"
