#!/usr/bin/env node
'use strict';
const { spawn } = require('node:child_process');
const path = require('node:path');
const fs = require('node:fs');

const dist = path.join(__dirname, '..', 'dist');
const entry = path.join(dist, 'apps', 'cli', 'src', 'main.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('mirror: not built yet; run `npm ci` (or `npm run build`) in the repository first\n');
  process.exit(1);
}

/**
 * V8's heap limit can only be chosen when the process starts, so the launcher starts the command again with it (from
 * MIRROR_TWIN_MEMORY_MB, `v8HeapLimitMb`) unless one was chosen already. The command runs in its own session so that a
 * terminal's Ctrl-C reaches it once, through the launcher; the launcher passes on SIGINT, SIGTERM and SIGHUP, ends as
 * the command ends (its exit code, or the same signal), and a launcher killed outright takes the command with it.
 */
const heapFlag = '--max-old-space-size';
const heapChosen = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)].some((arg) =>
  arg.startsWith(heapFlag),
);
const heapLimit = heapChosen
  ? undefined
  : require(path.join(dist, 'libs', 'config', 'src', 'mirror-config.js')).v8HeapLimitMb(process.env);

if (heapLimit === undefined) {
  if (process.env.MIRROR_LAUNCHED === '1') {
    delete process.env.MIRROR_LAUNCHED;
    // The launcher's channel closes when it dies, even by SIGKILL: the command dies with it, as it would have. The
    // channel itself keeps nothing running (a command that is done ends as it would without the launcher).
    const orphaned = () => process.kill(process.pid, 'SIGKILL');
    process.on('disconnect', orphaned);
    process.channel?.unref();
    if (!process.connected) {
      orphaned();
    }
  }
  const cli = require(entry);
  cli.run(process.argv.slice(2)).then(cli.exitWith);
} else {
  const child = spawn(
    process.execPath,
    [...process.execArgv, `${heapFlag}=${heapLimit}`, __filename, ...process.argv.slice(2)],
    {
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
      detached: true,
      env: { ...process.env, MIRROR_LAUNCHED: '1' },
    },
  );
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const signal of signals) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    if (signal) {
      for (const s of signals) {
        process.removeAllListeners(s);
      }
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
}
