#!/usr/bin/env bash
# Mirror's main job, end to end on a fresh machine: install, build, ingest the example stack (a procurement company's
# ERP spec, SQL DDL and JSON Schemas) into the embedded database, serve its twin and act on it as an agent would; then
# run the example company's supplier negotiation (Slack, mail and ERP twins, personas on Temporal) with each
# reference agent and print the summary table with rewards and violations, grade one episode again from its log, and
# check that every example scenario is a valid task.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/prerequisites.sh

require_node
ensure_dependencies
build

log "ingesting examples/acme-procurement"
node bin/mirror.js ingest examples/acme-procurement "$@"

log "serving its twin (one default episode) and calling it"
mkdir -p .mirror
ready=.mirror/demo-serve.json
rm -f "$ready"
node bin/mirror.js serve examples/acme-procurement --port 0 --json >"$ready" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
  [[ -s $ready ]] && break
  kill -0 "$server" 2>/dev/null || { log "mirror serve stopped before it was ready"; exit 1; }
  sleep 0.5
done
node scripts/demo-agent.js "$ready"
kill "$server" 2>/dev/null || true
wait "$server" 2>/dev/null || true

log "running the supplier negotiation of examples/acme-manufacturing with its oracle, the idle agent and the demo agents"
node bin/mirror.js run examples/acme-manufacturing --scenario single-supplier-negotiation \
  --agent oracle,idle,diligent,sloppy --episodes 1

log "grading the sloppy agent's episode again, from its stored event log"
# Played one after another in the order given: the newest transcript is sloppy's.
episode=$(ls -t "${MIRROR_DATA_DIR:-.mirror}/transcripts" | head -1)
node bin/mirror.js grade "${episode%.json}"

log "checking that every scenario of examples/acme-manufacturing is a valid task on two seeds (the default is 20)"
node bin/mirror.js check examples/acme-manufacturing --seeds 2
