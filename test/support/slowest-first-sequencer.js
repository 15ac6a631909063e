// @ts-check
const path = require('node:path');

const { default: Sequencer } = require('@jest/test-sequencer');

/**
 * Seconds per test file from a full run (`.mirror/test-results.json`), for the files that take 3 s or more. A fresh
 * clone has no timing cache, so jest would order by file size and could start a five-minute file last, leaving one
 * worker alone with it at the end; with these, the slowest start first and the small ones fill in around them.
 * Stale figures cost only some balance, never a test.
 */
const recorded = require('./test-durations.json');

/** Longest first (jest's own timings when it has them, else the recorded ones), failures of the last run before all. */
class SlowestFirstSequencer extends Sequencer {
  /** @param {import('@jest/test-result').Test} test */
  time(test) {
    return super.time(test) ?? (recorded[path.relative(test.context.config.rootDir, test.path)] ?? 0) * 1000;
  }

  /** @param {import('@jest/test-result').Test[]} tests */
  sort(tests) {
    const seconds = new Map(tests.map((test) => [test, this.time(test)]));
    const size = (/** @type {import('@jest/test-result').Test} */ test) => test.context.hasteFS.getSize(test.path) ?? 0;
    return [...tests].sort(
      (a, b) =>
        Number(this.hasFailed(b)) - Number(this.hasFailed(a)) ||
        (seconds.get(b) ?? 0) - (seconds.get(a) ?? 0) ||
        size(b) - size(a),
    );
  }
}

module.exports = SlowestFirstSequencer;
