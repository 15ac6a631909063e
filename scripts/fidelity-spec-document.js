// Tells scripts/fidelity.sh what to hand schemathesis for one spec: its operation count, and a document it can read.
// A spec spread over several files is bundled into one JSON document by Mirror's own ingestion (the document the twin
// serves), because schemathesis cannot follow references across files the way the twin does.
// Usage: node scripts/fidelity-spec-document.js <spec> <bundled.json> [tree]  → one JSON line {operations, files, document}
// "tree": the spec's entry file may reach files beyond its folder (a vendor's multi-folder layout), as ingestion allows
// on request.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ingestion = path.join(__dirname, '..', 'dist', 'libs', 'stack-ingestion', 'src', 'index.js');
const [spec, bundledPath, kind] = process.argv.slice(2);
if (!spec || !bundledPath) {
  process.stderr.write('usage: node scripts/fidelity-spec-document.js <spec> <bundled.json>\n');
  process.exit(2);
}

require(ingestion)
  .ingestStack({ kind: 'path', path: spec, allowOutsideRefs: kind === 'tree' })
  .then(({ model, stats }) => {
    const operations = model.services.reduce((sum, service) => sum + service.operations.length, 0);
    let document = spec;
    if (stats.files > 1) {
      if (model.services.length !== 1) {
        throw new Error(`${spec}: expected one service, found ${model.services.length}`);
      }
      fs.writeFileSync(bundledPath, JSON.stringify(model.services[0].document));
      document = bundledPath;
    }
    process.stdout.write(`${JSON.stringify({ operations, files: stats.files, document })}\n`);
  })
  .catch((error) => {
    process.stderr.write(`${spec}: ${error.message}\n`);
    process.exit(1);
  });
