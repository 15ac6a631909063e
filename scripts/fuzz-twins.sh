#!/usr/bin/env bash
# Fuzzes twins with schemathesis: each spec's twin is served as a user would (`mirror serve <spec> --json`) and
# schemathesis runs every test phase against it with the `not_a_server_error` check only. A twin must answer bad
# input with a 4xx, never a 5xx (issue 17). Too long for scripts/test.sh; run it by hand:
#
#   bash scripts/fuzz-twins.sh [--examples N] [spec-or-folder…]
#
# With no spec, every spec listed in the shared specs folder's manifest.json (MIRROR_SHARED_SPECS, else
# ../shared/specs beside the repository, as the tests find it); a folder holding a manifest.json stands for its specs.
# Writes a summary table to stdout and .mirror/fuzz-summary.md, the raw reports to .mirror/fuzz/; exits 1 if any twin
# answered a 5xx or a run could not be completed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
examples=5
specs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --examples)
      examples="${2:?--examples needs a number}"
      shift 2
      ;;
    --examples=*)
      examples="${1#--examples=}"
      shift
      ;;
    -h | --help)
      sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      specs+=("$1")
      shift
      ;;
  esac
done
if ! [[ "$examples" =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz-twins: --examples must be a positive integer, got '$examples'" >&2
  exit 2
fi

# A folder with a manifest.json (the shared specs' layout) stands for the spec files it lists, as
# "name<TAB>path<TAB>kind"; a "tree" spec's entry file may reach its sibling folders, as the ingestion tests allow.
expand() {
  local item="$1"
  if [ -d "$item" ] && [ -f "$item/manifest.json" ]; then
    node -e '
      const path = require("node:path");
      const dir = process.argv[1];
      for (const spec of require(path.resolve(dir, "manifest.json")).specs) {
        console.log(`${spec.name}\t${path.resolve(dir, spec.file)}\t${spec.kind ?? "file"}`);
      }' "$item"
  elif [ -e "$item" ]; then
    printf '%s\t%s\tfile\n' "$(basename "${item%.*}")" "$(cd "$(dirname "$item")" && pwd)/$(basename "$item")"
  else
    echo "fuzz-twins: no such spec or folder: $item" >&2
    exit 2
  fi
}
if [ ${#specs[@]} -eq 0 ]; then
  shared="${MIRROR_SHARED_SPECS:-$root/../shared/specs}"
  if [ ! -f "$shared/manifest.json" ]; then
    echo "fuzz-twins: no shared specs at $shared (no manifest.json); nothing fuzzed." >&2
    echo "  Set MIRROR_SHARED_SPECS to the folder holding manifest.json, or name specs: $0 [--examples N] spec…" >&2
    exit 0
  fi
  specs=("$shared")
fi
list="$(for item in "${specs[@]}"; do expand "$item"; done)"

# schemathesis from PyPI, pinned, in a venv of our own.
venv="$root/.mirror/fuzz-venv"
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version 4.32.5" ]; then
  echo "fuzz-twins: installing schemathesis 4.32.5 in $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet schemathesis==4.32.5
fi
if [ ! -f dist/apps/cli/src/main.js ]; then
  echo "fuzz-twins: building (dist/ missing)" >&2
  npm run build >&2
fi

out="$root/.mirror/fuzz"
mkdir -p "$out"
summary="$root/.mirror/fuzz-summary.md"
serve_pid=""
stop_twin() {
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
    serve_pid=""
  fi
}
trap stop_twin EXIT

rows=()
failed=0
total_cases=0
total_errors=0
started_all=$SECONDS
started_at="$(date -u '+%Y-%m-%d %H:%M UTC')"
while IFS=$'\t' read -r name spec kind; do
  [ -n "$name" ] || continue
  started=$SECONDS
  row() { rows+=("| $name | $1 | $2 | $3 | $4 | $((SECONDS - started)) |"); }

  if ! described="$(node scripts/fuzz-spec-document.js "$spec" "$out/$name.bundled.json" "$kind")"; then
    row "—" "—" "—" "ingest failed"
    failed=1
    continue
  fi
  operations="$(node -pe 'JSON.parse(process.argv[1]).operations' "$described")"
  document="$(node -pe 'JSON.parse(process.argv[1]).document' "$described")"
  if [ "$operations" = 0 ]; then
    row 0 0 0 "no operations to fuzz"
    continue
  fi

  # A spec of several files is served from the same bundled document schemathesis reads (`mirror serve` keeps a lone
  # spec's references inside its folder, and a "tree" spec reaches beyond it).
  echo "fuzz-twins: $name: serving its twin ($operations operations)" >&2
  node bin/mirror.js serve "$document" --port 0 --json >"$out/$name.serve.out" 2>"$out/$name.serve.err" &
  serve_pid=$!
  # The first stdout line is the ready line: base URLs and, for services that issue them, the agent's tokens.
  until grep -q '$' "$out/$name.serve.out" 2>/dev/null && [ "$(wc -l <"$out/$name.serve.out")" -ge 1 ]; do
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 1
  done
  ready="$(head -n 1 "$out/$name.serve.out")"
  if [ -z "$ready" ]; then
    echo "fuzz-twins: $name: mirror serve exited before it was ready:" >&2
    cat "$out/$name.serve.err" >&2
    serve_pid=""
    row "$operations" "—" "—" "serve failed"
    failed=1
    continue
  fi
  base="$(node -pe 'JSON.parse(process.argv[1]).services[0].baseUrl' "$ready")"
  # The agent's token where the spec takes it (`credential`: bearer, basic, an API key header or cookie).
  header="$(node -pe '
    const s = JSON.parse(process.argv[1]).services[0];
    const p = (s.credential ?? [{ in: "bearer" }])[0];
    const t = s.agentToken;
    !t ? "" : p.in === "basic" ? `Authorization: Basic ${Buffer.from(t + ":").toString("base64")}`
      : p.in === "header" ? `${p.name}: ${t}` : p.in === "cookie" ? `Cookie: ${p.name}=${t}`
      : p.in === "authorization" ? `Authorization: ${p.scheme} ${t}` : `Authorization: Bearer ${t}`' "$ready")"
  auth=()
  if [ -n "$header" ]; then
    auth=(-H "$header")
  fi

  echo "fuzz-twins: $name: schemathesis on $base, $examples examples per operation" >&2
  report="$out/$name.report.json"
  rm -f "$report"
  # Run from .mirror/fuzz so schemathesis' example database (.schemathesis/) stays out of the worktree.
  (cd "$out" && "$venv/bin/schemathesis" run "$document" --url "$base" "${auth[@]}" \
    --checks not_a_server_error --max-examples "$examples" --suppress-health-check all --no-color \
    --report json --report-json-path "$report" >"$out/$name.schemathesis.log" 2>&1) || true
  stop_twin
  if [ ! -f "$report" ]; then
    echo "fuzz-twins: $name: schemathesis wrote no report; see $out/$name.schemathesis.log" >&2
    tail -n 20 "$out/$name.schemathesis.log" >&2
    row "$operations" "—" "—" "schemathesis failed"
    failed=1
    continue
  fi
  # Only not_a_server_error runs, so every failing case is a 5xx. Schemathesis' own errors (a connection refused, a
  # schema it cannot read) fail the run too, except links in the spec that name operations it lacks: a vendor's
  # mistake that only stops the stateful phase, so it is noted, not failed.
  read -r cases server_errors st_errors broken_links < <(node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const links = r.errors.filter((e) => e.title === "Invalid OpenAPI Links Definition").length;
    console.log(r.test_cases.generated, r.test_cases.with_failures, r.errors.length - links, links);' "$report")
  note=""
  if [ "$broken_links" != 0 ]; then
    note="stateful phase not run: the spec's links name operations it lacks"
  fi
  if [ "$st_errors" != 0 ]; then
    note="${note:+$note; }$st_errors schemathesis errors (.mirror/fuzz/$name.schemathesis.log)"
    failed=1
  fi
  if [ "$server_errors" != 0 ]; then
    failed=1
  fi
  total_cases=$((total_cases + cases))
  total_errors=$((total_errors + server_errors))
  row "$operations" "$cases" "$server_errors" "$note"
done <<<"$list"

{
  echo "Fuzzed from $started_at with schemathesis 4.32.5, \`not_a_server_error\`, $examples examples per operation:"
  echo
  echo "| spec | operations | cases | server errors | note | seconds |"
  echo "|---|---:|---:|---:|---|---:|"
  printf '%s\n' "${rows[@]}"
  echo "| **total** | | $total_cases | $total_errors | | $((SECONDS - started_all)) |"
} | tee "$summary"
echo "fuzz-twins: summary in $summary, reports in $out" >&2
exit "$failed"
