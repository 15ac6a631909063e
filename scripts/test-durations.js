// Refreshes test/support/test-durations.json (the order a fresh clone's jest starts files in: slowest first) from a
// full run's results: `node scripts/test-durations.js [<clone>/.mirror/test-results.json]` (this checkout's by default).
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const file = path.resolve(process.argv[2] ?? path.join(root, '.mirror', 'test-results.json'));
// Another clone's results name its own paths.
const clone = path.dirname(path.dirname(file));
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
const seconds = results.testResults
  .map((test) => [path.relative(clone, test.name), Math.round((test.endTime - test.startTime) / 1000)])
  // The small files fill in around the slow ones in any order; only these need a place.
  .filter(([, s]) => s >= 3)
  .sort((a, b) => b[1] - a[1]);
fs.writeFileSync(
  path.join(root, 'test', 'support', 'test-durations.json'),
  `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`,
);
console.log(`test/support/test-durations.json: ${seconds.length} files of 3 s or more`);
