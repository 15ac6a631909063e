#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, checks format, lint and types, then runs the
# unit, integration and e2e tiers against a real PostgreSQL and a real Temporal dev server (started by the suite), and
# the Python client's tests against a running `mirror up`.
# Its budget is 20 minutes on two cores, so what only waits (pip's downloads, the Python stage) runs beside what
# computes, and nothing is built twice.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/prerequisites.sh

require_node
ensure_dependencies
ensure_postgres_binaries
ensure_report_tools
mkdir -p .mirror

# The Python venvs (the client's, and the PyPI OpenEnv client's that an e2e test drives) are mostly pip downloading:
# made in the background while format, lint, types and the build keep the cores busy.
log "preparing the Python venvs in the background (.mirror/python-venvs.log)"
(
  bash clients/python/run-tests.sh --prepare &
  client=$!
  bash scripts/openenv-client/check.sh --prepare &
  openenv=$!
  status=0
  wait "$client" || status=1
  wait "$openenv" || status=1
  exit "$status"
) >.mirror/python-venvs.log 2>&1 &
venvs_pid=$!

# Each step into its own log, all at once (each is one process on one core); a failed step's log is printed.
run_steps() {
  local names=("$@") pids=() failed=0 i
  for i in "${!names[@]}"; do
    npm run --silent "${names[$i]}" >".mirror/step-${names[$i]//:/-}.log" 2>&1 &
    pids[i]=$!
  done
  for i in "${!names[@]}"; do
    if ! wait "${pids[$i]}"; then
      failed=1
      log "${names[$i]} failed:"
      cat ".mirror/step-${names[$i]//:/-}.log" >&2
    fi
  done
  return "$failed"
}

# The same steps as `npm run check`, side by side; the build too unless npm ci's `prepare` just made it.
steps=(format:check lint typecheck)
[[ -n $built_by_install ]] || steps+=(build)
log "checking format, lint and types$([[ -n $built_by_install ]] || echo ', and building')"
run_steps "${steps[@]}"

if ! wait "$venvs_pid"; then
  log "preparing the Python venvs failed (the tests that use them will say so):"
  cat .mirror/python-venvs.log >&2
fi

# The Python client (clients/python) against a running `mirror up`, as a trainer's Python stack meets Mirror. It
# mostly waits on HTTP, so it runs beside jest (its own embedded database and Temporal; output kept until the end).
python_stage() {
  local status=0 api="" up_pid
  node bin/mirror.js up examples/clinic-network --port 0 --json >.mirror/mirror-up.out 2>.mirror/mirror-up.err &
  up_pid=$!
  for _ in $(seq 1 600); do
    api=$(node -e 'try { process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0]).api ?? "") } catch {}' .mirror/mirror-up.out)
    [[ -n $api ]] && break
    kill -0 "$up_pid" 2>/dev/null || break
    sleep 0.5
  done
  if [[ -n $api ]]; then
    # Bounded: a hang here would otherwise hold CI until its own limit, with nothing said about where.
    MIRROR_URL="$api" timeout --kill-after=30 "${MIRROR_PYTHON_STAGE_SECONDS:-1500}" \
      bash clients/python/run-tests.sh -o faulthandler_timeout=600 || status=$?
    [[ $status -eq 124 ]] && echo "the Python client's tests did not end within ${MIRROR_PYTHON_STAGE_SECONDS:-1500} s"
  else
    echo "mirror up did not print its ready line:"
    cat .mirror/mirror-up.err
    status=1
  fi
  kill -TERM "$up_pid" 2>/dev/null || true
  wait "$up_pid" 2>/dev/null || true
  if [[ $status -ne 0 && -n $api ]]; then
    echo "mirror up's last words:"
    tail -n 60 .mirror/mirror-up.err
  fi
  return "$status"
}
python_stage >.mirror/python-client.log 2>&1 &
python_pid=$!

results=.mirror/test-results.json
log "running tests (the Python client's beside them)"
status=0
# Two jest workers for two cores; MIRROR_TEST_WORKERS tries another count (the files that play episodes partly wait on
# Temporal's timers and on child processes, so a third can fill a core they leave idle, or only slow every file down).
npx jest --ci --maxWorkers="${MIRROR_TEST_WORKERS:-2}" --json --outputFile="$results" "$@" || status=$?
if [[ -f $results ]]; then
  # A plain closing line that any CI reader understands, whatever the runner.
  node -e '
    const r = require(process.argv[1]);
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`);
  ' "$PWD/$results"
fi

log "the Python client's tests against mirror up"
python_status=0
wait "$python_pid" || python_status=$?
cat .mirror/python-client.log
echo "python client tests: $([[ $python_status -eq 0 ]] && echo passed || echo "failed ($python_status)")"
[[ $status -ne 0 ]] && exit "$status"
exit "$python_status"
