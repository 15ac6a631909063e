# Shared by the README's two commands: bring a fresh machine of this kind up to what Mirror needs.
# Everything here is idempotent and quick when the work is already done.

log() { printf '\033[1m[mirror]\033[0m %s\n' "$*" >&2; }

require_node() {
  command -v node >/dev/null || { log "Node.js 20.19+ is required (https://nodejs.org)"; exit 1; }
  local major minor
  IFS=. read -r major minor _ <<<"$(node -p 'process.versions.node')"
  if (( major < 20 || (major == 20 && minor < 19) )); then
    log "Node.js 20.19+ is required; found $(node --version)"
    exit 1
  fi
}

# npm ci when node_modules is missing or older than the lock file; `prepare` builds dist/ as part of it, so
# `built_by_install` says a build now would only repeat that one.
built_by_install=""
ensure_dependencies() {
  if [[ ! -d node_modules || package-lock.json -nt node_modules/.package-lock.json ]]; then
    log "installing dependencies (npm ci)"
    npm ci --no-audit --no-fund
    built_by_install=1
  fi
}

build() {
  log "building"
  npm run --silent build
}

# Integration tests need a real PostgreSQL server binary unless MIRROR_TEST_DATABASE_SERVER names a server.
ensure_postgres_binaries() {
  if [[ -n "${MIRROR_TEST_DATABASE_SERVER:-}" ]] || command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    return
  fi
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    log "PostgreSQL is not installed: install it (Debian: apt-get install postgresql) or set MIRROR_TEST_DATABASE_SERVER"
    exit 1
  fi
  log "installing PostgreSQL (apt-get install postgresql)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

# The review console's browser tests and PDF reports use Debian's Chromium (playwright-core downloads no browser), and
# the tests render the PDF to images with poppler's pdftoppm (and read its text with pdftotext).
ensure_report_tools() {
  if [[ -x /usr/bin/chromium ]] && command -v pdftoppm >/dev/null && command -v pdftotext >/dev/null; then
    return
  fi
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    log "Chromium and poppler-utils are not installed: install them (Debian: apt-get install chromium poppler-utils)"
    exit 1
  fi
  log "installing Chromium and poppler-utils (apt-get install chromium poppler-utils)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium poppler-utils >/dev/null
}
