// Reads what scripts/fidelity.sh left for each spec (its run line, schemathesis' JSON report and VCR cassette) and
// tells how faithful each twin is: operations exercised, responses checked, conforming responses, 5xx, and each
// failing check with its count and one example. Prints that per spec, writes <out>/fidelity.json and <out>/fidelity.md
// (the table for the README) and exits 1 if any twin answered a 5xx or a run could not be completed.
// Usage: node scripts/fidelity-report.js <out-dir> <runs.jsonl> <header line for the markdown>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [outDir, runsFile, header] = process.argv.slice(2);
if (!outDir || !runsFile) {
  process.stderr.write('usage: node scripts/fidelity-report.js <out-dir> <runs.jsonl> [header]\n');
  process.exit(2);
}

// A VCR cassette is YAML written by schemathesis in one fixed layout; read line by line, it stays cheap for the
// hundreds of megabytes a large spec's run leaves, where a YAML parser would hold it all.
const unquote = (text) => {
  const value = text.trim();
  if (value.startsWith("'")) {
    return value.slice(1, -1).replace(/''/g, "'");
  }
  if (value.startsWith('"')) {
    try {
      return JSON.parse(value);
    } catch {
      return value.slice(1, -1);
    }
  }
  return value === '~' ? '' : value;
};

const interactionsOf = function* (cassette) {
  const lines = fs.readFileSync(cassette, 'utf8').split('\n');
  let current;
  let section = '';
  let inStatus = false;
  let check;
  for (const line of lines) {
    if (line.startsWith('- id: ')) {
      if (current) yield current;
      current = { checks: [], method: '', uri: '', status: undefined, body: '' };
      section = '';
      continue;
    }
    if (!current) continue;
    const top = /^ {2}(\w+):/.exec(line);
    if (top) {
      section = top[1];
      inStatus = false;
      continue;
    }
    if (section === 'checks') {
      const name = /^ {4}- name: (.*)$/.exec(line);
      if (name) {
        check = { name: unquote(name[1]), status: '', message: '' };
        current.checks.push(check);
      } else if (check && /^ {6}status: /.test(line)) {
        check.status = unquote(line.slice(line.indexOf(':') + 1));
      } else if (check && /^ {6}message: /.test(line)) {
        check.message = unquote(line.slice(line.indexOf(':') + 1));
      }
    } else if (section === 'request') {
      if (/^ {4}uri: /.test(line)) current.uri = unquote(line.slice(line.indexOf(':') + 1));
      else if (/^ {4}method: /.test(line)) current.method = unquote(line.slice(line.indexOf(':') + 1));
    } else if (section === 'response') {
      if (/^ {4}status:/.test(line)) inStatus = true;
      else if (/^ {4}\w/.test(line)) inStatus = false;
      if (inStatus && /^ {6}code: /.test(line)) current.status = Number(unquote(line.slice(line.indexOf(':') + 1)));
      if (/^ {6}string: /.test(line)) current.body = unquote(line.slice(line.indexOf(':') + 1));
    }
  }
  if (current) yield current;
};

const shorten = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

const summarise = (run) => {
  const summary = { ...run, responses: 0, conforming: 0, serverErrors: 0, unanswered: 0, failures: {} };
  if (!run.cassette || !fs.existsSync(run.cassette)) return summary;
  for (const interaction of interactionsOf(run.cassette)) {
    if (interaction.status === undefined) {
      summary.unanswered += 1;
      continue;
    }
    summary.responses += 1;
    if (interaction.status >= 500) summary.serverErrors += 1;
    const failed = interaction.checks.filter((check) => check.status === 'FAILURE');
    if (failed.length === 0) summary.conforming += 1;
    for (const check of failed) {
      const entry = (summary.failures[check.name] ??= { count: 0, example: undefined });
      entry.count += 1;
      if (!entry.example) {
        const url = new URL(interaction.uri);
        entry.example = {
          request: `${interaction.method} ${shorten(decodeURIComponentSafe(url.pathname + url.search), 160)}`,
          status: interaction.status,
          message: check.message,
          body: shorten(interaction.body, 240),
        };
      }
    }
  }
  return summary;
};

const decodeURIComponentSafe = (text) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const percent = (part, whole) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)} %`);
const number = (value) => (value === undefined || value === null ? '—' : value.toLocaleString('en-US'));

const runs = fs
  .readFileSync(runsFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line));
const specs = runs.map(summarise);
let failed = false;
for (const spec of specs) {
  if (spec.failed || spec.serverErrors > 0) failed = true;
  const head = spec.failed
    ? `${spec.name}: ${spec.note}`
    : `${spec.name}: ${number(spec.exercised)} of ${number(spec.operations)} operations exercised, ` +
      `${number(spec.responses)} responses checked, ${number(spec.conforming)} conforming ` +
      `(${percent(spec.conforming, spec.responses)}), ${number(spec.serverErrors)} × 5xx` +
      (spec.note ? ` (${spec.note})` : '');
  process.stdout.write(`${head}\n`);
  const byCount = Object.entries(spec.failures).sort((a, b) => b[1].count - a[1].count);
  for (const [check, { count, example }] of byCount) {
    process.stdout.write(
      `  ${check.padEnd(30)} ${String(count).padStart(6)}  e.g. ${example.request} → ${example.status}: ${example.message}` +
        (example.body ? `\n${' '.repeat(40)}${example.body}\n` : '\n'),
    );
  }
}

const totals = specs.reduce(
  (sum, spec) => ({
    operations: sum.operations + (spec.operations ?? 0),
    exercised: sum.exercised + (spec.exercised ?? 0),
    responses: sum.responses + spec.responses,
    conforming: sum.conforming + spec.conforming,
    serverErrors: sum.serverErrors + spec.serverErrors,
    seconds: sum.seconds + (spec.seconds ?? 0),
  }),
  { operations: 0, exercised: 0, responses: 0, conforming: 0, serverErrors: 0, seconds: 0 },
);
const failingChecks = (spec) =>
  Object.entries(spec.failures)
    .sort((a, b) => b[1].count - a[1].count)
    .map(([check, { count }]) => `${check} ${number(count)}`)
    .join(', ');
const table = [
  header ?? '',
  '',
  '| spec | operations exercised | responses checked | conforming | 5xx | failing checks (responses) | note | seconds |',
  '|---|---:|---:|---:|---:|---|---|---:|',
  ...specs.map(
    (spec) =>
      `| ${spec.name} | ${number(spec.exercised)} / ${number(spec.operations)} | ${number(spec.responses)} | ` +
      `${percent(spec.conforming, spec.responses)} | ${number(spec.serverErrors)} | ${failingChecks(spec) || '—'} | ` +
      `${spec.note ?? ''} | ${number(spec.seconds)} |`,
  ),
  `| **total** | ${number(totals.exercised)} / ${number(totals.operations)} | ${number(totals.responses)} | ` +
    `**${percent(totals.conforming, totals.responses)}** | **${number(totals.serverErrors)}** | | | ${number(totals.seconds)} |`,
  '',
].join('\n');
fs.writeFileSync(path.join(outDir, 'fidelity.md'), table);
fs.writeFileSync(
  path.join(outDir, 'fidelity.json'),
  `${JSON.stringify({ header, totals, specs: specs.map(({ cassette: _cassette, ...spec }) => spec) }, null, 2)}\n`,
);
process.stdout.write(
  `total: ${number(totals.exercised)} operations exercised, ${number(totals.responses)} responses checked, ` +
    `${percent(totals.conforming, totals.responses)} conforming, ${number(totals.serverErrors)} × 5xx\n`,
);
process.exit(failed ? 1 : 0);
