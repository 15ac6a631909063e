#!/usr/bin/env bash
# MCP Inspector's CLI lists an episode's tools and calls one, over HTTP with the episode's bearer token.
#   scripts/mcp-inspector-check.sh                                          an in-memory episode (no services needed)
#   scripts/mcp-inspector-check.sh --target <episode mcp url> --token <token>      a running Mirror's episode
# The Inspector is not a dependency (about 160 MB with its web UI); npx fetches the pinned version into its cache
# once. 0.21.2 declares Node >= 22.7.5 but its CLI runs on Node 20 (npm only warns).
set -euo pipefail
cd "$(dirname "$0")/.."
inspector=(npx --yes @modelcontextprotocol/inspector@0.21.2 --cli)

target=""
token=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --token) token="$2"; shift 2 ;;
    *) echo "mcp-inspector-check: unknown argument $1" >&2; exit 2 ;;
  esac
done

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "$target" ]]; then
  node --import tsx scripts/mcp-conformance/serve-episode.ts --print-episode >"$work/ready" 2>"$work/serve.log" &
  server_pid=$!
  for _ in $(seq 1 600); do
    [[ -s "$work/ready" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
  done
  read_field() { node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))[process.argv[2]])' "$work/ready" "$1"; }
  target="$(read_field episode_url)"
  token="$(read_field token)"
fi

auth=(--transport http --header "Authorization: Bearer $token")
"${inspector[@]}" "$target" "${auth[@]}" --method tools/list 2>/dev/null >"$work/list.json"
"${inspector[@]}" "$target" "${auth[@]}" --method tools/call --tool-name wait_for_events 2>/dev/null >"$work/call.json"

node - "$work/list.json" "$work/call.json" <<'CHECK'
const fs = require('fs');
const [listFile, callFile] = process.argv.slice(2);
const listed = JSON.parse(fs.readFileSync(listFile, 'utf8'));
const called = JSON.parse(fs.readFileSync(callFile, 'utf8'));
const names = listed.tools.map((tool) => tool.name);
const fail = (what) => { console.error(`mcp-inspector-check: FAILED: ${what}`); process.exit(1); };
if (!names.includes('finish_episode') || !names.includes('wait_for_events')) fail(`tools/list lists the episode verbs (${names})`);
if (called.isError !== false || typeof called.structuredContent !== 'object') fail(`tools/call answers a result (${JSON.stringify(called)})`);
console.log(`mcp-inspector-check: passed (${names.length} tools listed; wait_for_events called)`);
CHECK
