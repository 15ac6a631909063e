#!/usr/bin/env bash
# Runs @modelcontextprotocol/conformance's server checks against an episode's MCP endpoint and fails on any failure
# not listed (with its reason) in scripts/mcp-conformance/expected-failures.yml.
#   scripts/mcp-conformance.sh                                   an in-memory episode (no services needed)
#   scripts/mcp-conformance.sh --target <episode mcp url> --token <episode token>   a running Mirror's episode
# The suite's client cannot send a bearer token, so serve-episode.ts puts a localhost proxy in front that adds it.
set -euo pipefail
cd "$(dirname "$0")/.."

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

node --import tsx scripts/mcp-conformance/serve-episode.ts "$@" >"$work/ready" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 1 600); do
  [[ -s "$work/ready" ]] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.1
done
url="$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).url)' "$work/ready")"

status=0
node --import ./scripts/mcp-conformance/node20-fs-register.mjs \
  node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url" \
  --expected-failures scripts/mcp-conformance/expected-failures.yml \
  --output-dir "$work/results" >"$work/conformance.log" 2>&1 || status=$?
sed -n '/=== SUMMARY ===/,$p' "$work/conformance.log"
if [[ "$status" -ne 0 ]]; then
  echo "mcp-conformance: unexpected results (exit $status); full log:" >&2
  cat "$work/conformance.log" >&2
fi
exit "$status"
