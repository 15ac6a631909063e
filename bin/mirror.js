#!/usr/bin/env node
'use strict';
const path = require('node:path');
const fs = require('node:fs');

const entry = path.join(__dirname, '..', 'dist', 'apps', 'cli', 'src', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('mirror: not built yet; run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(1);
}
const cli = require(entry);
cli.run(process.argv.slice(2)).then(cli.exitWith);
