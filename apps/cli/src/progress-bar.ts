import type { RolloutProgress } from '@libs/workflow-contracts';

const clock = (ms: number): string => {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/** One line of progress: a bar, trials done of all, what is running, passes and infrastructure errors, time taken. */
export const progressLine = (progress: RolloutProgress, elapsedMs: number, width = 30): string => {
  const filled = progress.total === 0 ? width : Math.round((progress.done / progress.total) * width);
  const infra = progress.infrastructureErrors;
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${progress.done}/${progress.total} trials · ${progress.running} running · ${progress.passed} passed${infra > 0 ? ` · ${infra} infrastructure error${infra === 1 ? '' : 's'}` : ''} · ${clock(elapsedMs)}`;
};

/** Redraws the progress line in place on a terminal; `end` leaves the last line standing. */
export const progressBar = (stream: NodeJS.WriteStream, now: () => number = Date.now) => {
  const started = now();
  let last = '';
  return {
    update(progress: RolloutProgress): void {
      const line = progressLine(progress, now() - started, Math.max(10, Math.min(30, (stream.columns ?? 80) - 70)));
      if (line !== last) {
        // \r and erase-line: the bar is redrawn where it stands, never scrolled.
        stream.write(`\r\x1b[2K${line}`);
        last = line;
      }
    },
    end(): void {
      if (last) {
        stream.write('\n');
      }
    },
  };
};
