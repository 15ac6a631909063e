#!/usr/bin/env bash
# An unchanged OpenEnv client (PyPI `openenv` 0.10.0: GenericEnvClient over the WebSocket session, MCPToolClient over
# HTTP MCP sessions) resets and steps a Mirror environment.
#   scripts/openenv-client/check.sh                          against an in-memory environment (no services needed)
#   scripts/openenv-client/check.sh <openenv base url>       e.g. http://127.0.0.1:3000/openenv/<environment>
#   scripts/openenv-client/check.sh --prepare                only make the venv (scripts/test.sh does it early)
# The client lives in a venv under the checkout (.venv-openenv), made on first use.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.venv-openenv
# Written last: a venv whose installs were cut short is made again, not used half-installed.
ready="$venv/.installed"
if [[ ! -f "$ready" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --no-deps openenv==0.10.0
  "$venv/bin/pip" install --quiet -r scripts/openenv-client/requirements.txt
  touch "$ready"
fi
[[ "${1:-}" == "--prepare" ]] && exit 0

work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [[ -n "$server_pid" ]]; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

base_url="${1:-}"
if [[ -z "$base_url" ]]; then
  node --import tsx scripts/mcp-conformance/serve-episode.ts >"$work/ready" 2>"$work/serve.log" &
  server_pid=$!
  for _ in $(seq 1 600); do
    [[ -s "$work/ready" ]] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.1
  done
  base_url="$(node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).base_url)' "$work/ready")/openenv/shop"
fi

"$venv/bin/python" scripts/openenv-client/check.py "$base_url"
