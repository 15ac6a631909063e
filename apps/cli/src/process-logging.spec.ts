import { Logger } from '@nestjs/common';

import { stderrLog } from '@libs/embedded-services';

import { reportFailure } from './cli-output';
import { useRedactingLogs } from './process-logging';

// Planted: real in shape, made up here.
const apiKey = 'k3y-9f8e7d6c5b4a';
const card = '4539 1488 0343 6467';
const address = 'ceo.private@gmail.com';
const planted = [apiKey, card, address];

/** Everything the process writes to stdout and stderr while `work` runs. */
const written = (work: () => void): string => {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array): boolean => {
    lines.push(String(chunk));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    work();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines.join('');
};

/**
 * What a CLI process that serves (`mirror up`, `serve`, `run`) writes to its terminal: the Nest loggers of its episode
 * API and error filters, the gateway's internal errors and embedded services' lines, an unexpected failure.
 */
describe('CLI logs', () => {
  const toolCall = `tool call send_mail failed: {"api_key":"${apiKey}","body":"card ${card}, reply to ${address}"}`;

  it('write no secret or personal datum of a tool call through Nest loggers, text or JSON', () => {
    for (const format of ['text', 'json']) {
      process.env.MIRROR_LOG_FORMAT = format;
      useRedactingLogs();
      const text = written(() => {
        new Logger('episodes').log(toolCall);
        new Logger('EpisodeErrorFilter').error(toolCall, new Error(toolCall).stack);
      });
      expect(text).toContain('[redacted:card]');
      for (const value of planted) {
        expect(text).not.toContain(value);
      }
    }
    delete process.env.MIRROR_LOG_FORMAT;
  });

  it('write none through the stderr log the gateway and embedded services use, nor in a failure', () => {
    process.env.MIRROR_DEBUG = '1';
    const text = written(() => {
      stderrLog.log(`gateway: ${toolCall}`);
      reportFailure(new Error(toolCall), false);
    });
    delete process.env.MIRROR_DEBUG;
    expect(text).toContain('redacted-email@gmail.com');
    for (const value of planted) {
      expect(text).not.toContain(value);
    }
  });
});
