/**
 * Resolves on the first SIGINT or SIGTERM. From then on the process has `graceMs` to close what it opened: a close
 * that waits on something that never comes back (a request stuck on a lost connection) must not keep a stopped
 * process alive for good, holding its ports and data directory. Past the grace, or on a second signal, it exits
 * non-zero and says why.
 */
export const stopSignal = (what: string, graceMs = 60_000): Promise<void> =>
  new Promise<void>((resolve) => {
    const first = (signal: NodeJS.Signals): void => {
      process.off('SIGINT', first);
      process.off('SIGTERM', first);
      const timer = setTimeout(() => {
        process.stderr.write(`${what}: still closing ${graceMs / 1000} s after ${signal}; exiting without waiting\n`);
        process.exit(1);
      }, graceMs);
      timer.unref();
      const again = (): void => {
        process.stderr.write(`${what}: a second signal while closing; exiting now\n`);
        process.exit(130);
      };
      process.once('SIGINT', again);
      process.once('SIGTERM', again);
      resolve();
    };
    process.on('SIGINT', first);
    process.on('SIGTERM', first);
  });
