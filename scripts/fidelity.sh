#!/usr/bin/env bash
# How faithful twins are to their specs, measured by an outside fuzzer: each spec's twin is served as a user would
# (`mirror serve <spec> --json`, with the credential it prints) and schemathesis runs every test phase against it
# (stateful too, following the spec's links), with all its checks. Run by `npm run fidelity`:
#
#   bash scripts/fidelity.sh [--examples N] [--seed N] [--server-errors-only] [--out DIR] [spec-or-folder…]
#
# With no spec, every spec listed in the shared specs folder's manifest.json (MIRROR_SHARED_SPECS, else
# ../shared/specs beside the repository, as the tests find it); a folder holding a manifest.json stands for its specs.
# --examples bounds the cases per operation and phase (default 3); --seed fixes schemathesis' draws (default 1);
# --server-errors-only runs the `not_a_server_error` check alone (the quick "never a 5xx" fuzz). Prints per spec the
# operations exercised, responses checked, conforming responses and 5xx, and each failing check with a count and an
# example; writes DIR/fidelity.md (the README's table) and DIR/fidelity.json (default DIR .mirror), the raw reports to
# DIR/fidelity/. Exits 1 if any twin answered a 5xx or a run could not be completed.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
examples=3
seed=1
checks=all
outdir="$root/.mirror"
specs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --examples | --seed | --out)
      [ $# -ge 2 ] || {
        echo "fidelity: $1 needs a value" >&2
        exit 2
      }
      case "$1" in
        --examples) examples="$2" ;;
        --seed) seed="$2" ;;
        --out) outdir="$2" ;;
      esac
      shift 2
      ;;
    --examples=*) examples="${1#--examples=}" && shift ;;
    --seed=*) seed="${1#--seed=}" && shift ;;
    --out=*) outdir="${1#--out=}" && shift ;;
    --server-errors-only)
      checks=not_a_server_error
      shift
      ;;
    -h | --help)
      sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "fidelity: unknown option $1 (see --help)" >&2
      exit 2
      ;;
    *)
      specs+=("$1")
      shift
      ;;
  esac
done
if ! [[ "$examples" =~ ^[1-9][0-9]*$ && "$seed" =~ ^[0-9]+$ ]]; then
  echo "fidelity: --examples must be a positive integer and --seed a whole number, got '$examples' and '$seed'" >&2
  exit 2
fi
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"

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
    echo "fidelity: no such spec or folder: $item" >&2
    exit 2
  fi
}
if [ ${#specs[@]} -eq 0 ]; then
  shared="${MIRROR_SHARED_SPECS:-$root/../shared/specs}"
  if [ ! -f "$shared/manifest.json" ]; then
    echo "fidelity: no shared specs at $shared (no manifest.json); nothing measured." >&2
    echo "  Set MIRROR_SHARED_SPECS to the folder holding manifest.json, or name specs: $0 [--examples N] spec…" >&2
    exit 0
  fi
  specs=("$shared")
fi
list="$(for item in "${specs[@]}"; do expand "$item"; done)"

# schemathesis from PyPI, pinned, in a venv of our own (MIRROR_FIDELITY_VENV to keep one elsewhere).
schemathesis_version=4.32.5
venv="${MIRROR_FIDELITY_VENV:-$root/.mirror/fidelity-venv}"
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null)" != "schemathesis, version $schemathesis_version" ]; then
  echo "fidelity: installing schemathesis $schemathesis_version in $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$schemathesis_version"
fi
if [ ! -f dist/apps/cli/src/main.js ]; then
  echo "fidelity: building (dist/ missing)" >&2
  npm run build >&2
fi

out="$outdir/fidelity"
mkdir -p "$out"
runs="$out/runs.jsonl"
: >"$runs"
serve_pid=""
stop_twin() {
  if [ -n "$serve_pid" ]; then
    kill "$serve_pid" 2>/dev/null || true
    wait "$serve_pid" 2>/dev/null || true
    serve_pid=""
  fi
}
trap stop_twin EXIT

# One JSON line per spec for fidelity-report.js: name, operations, seconds, a note, whether the run failed, and
# (once schemathesis ran) its JSON report and VCR cassette.
record() {
  node -e '
    const [name, operations, seconds, note, failed, report, cassette] = process.argv.slice(1);
    const line = { name, operations: operations === "" ? null : Number(operations), seconds: Number(seconds), note,
      failed: failed === "1" };
    if (report) {
      const r = JSON.parse(require("node:fs").readFileSync(report, "utf8"));
      Object.assign(line, { exercised: r.operations.tested, cases: r.test_cases.generated, report, cassette });
    }
    console.log(JSON.stringify(line));' "$@" >>"$runs"
}

started_at="$(date -u '+%Y-%m-%d %H:%M UTC')"
while IFS=$'\t' read -r name spec kind; do
  [ -n "$name" ] || continue
  started=$SECONDS

  if ! described="$(node scripts/fidelity-spec-document.js "$spec" "$out/$name.bundled.json" "$kind")"; then
    record "$name" "" $((SECONDS - started)) "ingest failed" 1
    continue
  fi
  operations="$(node -pe 'JSON.parse(process.argv[1]).operations' "$described")"
  document="$(node -pe 'JSON.parse(process.argv[1]).document' "$described")"
  if [ "$operations" = 0 ]; then
    record "$name" 0 $((SECONDS - started)) "no operations (webhooks only)" 0
    continue
  fi

  # A spec of several files is served from the same bundled document schemathesis reads (`mirror serve` keeps a lone
  # spec's references inside its folder, and a "tree" spec reaches beyond it).
  echo "fidelity: $name: serving its twin ($operations operations)" >&2
  # Made before the twin starts, so the wait below never reads a file its redirection has not created yet.
  : >"$out/$name.serve.out"
  node bin/mirror.js serve "$document" --port 0 --json >>"$out/$name.serve.out" 2>"$out/$name.serve.err" &
  serve_pid=$!
  # The first stdout line is the ready line: base URLs and, for twins that issue them, the agent's credential.
  until [ "$(wc -l <"$out/$name.serve.out")" -ge 1 ]; do
    kill -0 "$serve_pid" 2>/dev/null || break
    sleep 1
  done
  ready="$(head -n 1 "$out/$name.serve.out")"
  if [ -z "$ready" ]; then
    echo "fidelity: $name: mirror serve exited before it was ready:" >&2
    cat "$out/$name.serve.err" >&2
    serve_pid=""
    record "$name" "$operations" $((SECONDS - started)) "serve failed" 1
    continue
  fi
  base="$(node -pe 'JSON.parse(process.argv[1]).services[0].baseUrl' "$ready")"
  # The credential `mirror serve` prints where the twin asks for one: agentToken, and (for a spec's declared security)
  # the places it goes; the first place schemathesis can fill on every request is used, the bearer header without one.
  # A key that goes only in the query cannot be added to every request from the command line: such a run goes
  # without, and its ignored_auth/401 results say so.
  auth=()
  while IFS= read -r -d '' argument; do
    auth+=("$argument")
  done < <(node -e '
    const service = JSON.parse(process.argv[1]).services[0];
    const token = service.agentToken;
    if (!token) process.exit(0);
    const places = service.credential ?? [{ in: "bearer" }];
    const argv = (() => {
      for (const place of places) {
        switch (place.in) {
          case "bearer": return ["-H", `Authorization: Bearer ${token}`];
          case "authorization": return ["-H", `Authorization: ${place.scheme} ${token}`];
          case "basic": return ["-a", `${token}:`];
          case "header": return ["-H", `${place.name}: ${token}`];
          case "cookie": return ["-H", `Cookie: ${place.name}=${encodeURIComponent(token)}`];
        }
      }
      return [];
    })();
    process.stdout.write(argv.map((a) => `${a}\0`).join(""));' "$ready")

  echo "fidelity: $name: schemathesis on $base, checks $checks, $examples examples per operation, seed $seed" >&2
  report="$out/$name.report.json"
  cassette="$out/$name.cassette.yaml"
  rm -f "$report" "$cassette"
  # Run from the output folder so schemathesis' example database (.schemathesis/, .hypothesis/) stays out of the
  # worktree; a fixed seed and no shared example database make a run repeatable.
  (cd "$out" && rm -rf .schemathesis .hypothesis && "$venv/bin/schemathesis" run "$document" --url "$base" "${auth[@]}" \
    --checks "$checks" --max-examples "$examples" --seed "$seed" --suppress-health-check all --no-color \
    --report json,vcr --report-json-path "$report" --report-vcr-path "$cassette" >"$out/$name.schemathesis.log" 2>&1) ||
    true
  stop_twin
  if [ ! -f "$report" ]; then
    echo "fidelity: $name: schemathesis wrote no report; see $out/$name.schemathesis.log" >&2
    tail -n 20 "$out/$name.schemathesis.log" >&2
    record "$name" "$operations" $((SECONDS - started)) "schemathesis failed" 1
    continue
  fi
  # Schemathesis' own errors (a connection refused, a schema it cannot read) fail the run, except links in the spec
  # that name operations it lacks: a vendor's mistake that only stops the stateful phase, so it is noted.
  read -r st_errors broken_links < <(node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const links = r.errors.filter((e) => e.title === "Invalid OpenAPI Links Definition").length;
    console.log(r.errors.length - links, links);' "$report")
  note=""
  failed=0
  if [ "$broken_links" != 0 ]; then
    note="stateful phase not run: the spec's links name operations it lacks"
  fi
  if [ "$st_errors" != 0 ]; then
    note="${note:+$note; }$st_errors schemathesis errors (see $name.schemathesis.log)"
    failed=1
  fi
  record "$name" "$operations" $((SECONDS - started)) "$note" "$failed" "$report" "$cassette"
done <<<"$list"

header="Measured from $started_at with schemathesis $schemathesis_version (every phase, checks: $checks), \
$examples examples per operation and phase, seed $seed:"
node scripts/fidelity-report.js "$outdir" "$runs" "$header"
