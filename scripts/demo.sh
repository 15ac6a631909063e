#!/usr/bin/env bash
# Mirror's main job, end to end on a fresh machine: install, build, then ingest the example stack (a procurement
# company's ERP spec, SQL DDL and JSON Schemas) into the embedded database and print its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/prerequisites.sh

require_node
ensure_dependencies
build

log "ingesting examples/acme-procurement"
node bin/mirror.js ingest examples/acme-procurement "$@"
