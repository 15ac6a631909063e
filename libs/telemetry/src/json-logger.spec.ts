import { ConsoleLogger, Logger } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';

import { JsonLogger, useConfiguredLogger, withLogFields } from './json-logger';
import { startTracing } from './tracing';

describe(JsonLogger.name, () => {
  const written: string[] = [];
  let restore: () => void;

  beforeEach(() => {
    written.length = 0;
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    restore = () => spy.mockRestore();
  });
  afterEach(() => restore());

  it('writes one JSON object per line with the episode, tenant, trace and span of the work', async () => {
    const tracing = startTracing({ serviceName: 'test', exporter: new InMemorySpanExporter(), immediate: true });
    try {
      useConfiguredLogger({ MIRROR_LOG_FORMAT: 'json' });
      const span = trace.getTracer('test').startSpan('work');
      context.with(trace.setSpan(context.active(), span), () =>
        withLogFields({ tenantId: 'tenant-a' }, () =>
          withLogFields({ episodeId: 'ep-1' }, () => new Logger('episodes').log('episode started')),
        ),
      );
      span.end();
      new Logger('gateway').warn('outside any episode');
      const lines = written
        .join('')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines).toEqual([
        {
          level: 'log',
          pid: process.pid,
          timestamp: expect.any(Number) as number,
          message: 'episode started',
          context: 'episodes',
          episodeId: 'ep-1',
          tenantId: 'tenant-a',
          traceId: span.spanContext().traceId,
          spanId: span.spanContext().spanId,
        },
        expect.not.objectContaining({ episodeId: expect.anything() as unknown }),
      ]);
      expect(lines[1]).toMatchObject({ level: 'warn', message: 'outside any episode', context: 'gateway' });
    } finally {
      await tracing.stop();
    }
  });

  it('writes secrets and personal data as markers only, in JSON and in text', () => {
    const token = ['xoxb', '123456789012', '1234567890123', 'AbCdEfGhIjKlMnOpQrStUvWx'].join('-');
    const card = '4539 1488 0343 6467';
    const errors = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    for (const format of ['json', 'text'] as const) {
      written.length = 0;
      useConfiguredLogger({ MIRROR_LOG_FORMAT: format });
      new Logger('twins').log(`agent posted ${token} and ${card}`);
      new Logger('twins').warn({ body: { note: `card ${card}`, password: 'hunter2hunter2' } });
      new Logger('twins').error(new Error(`refused anna.berg@gmail.com with ${token}`));

      const output = written.join('');
      expect(output).not.toMatch(/xoxb|4539|hunter2|anna\.berg/);
      expect(output).toContain('agent posted [redacted:secret] and [redacted:card]');
      expect(output).toContain('[redacted:credential]');
      expect(output).toContain('refused redacted-email@gmail.com with [redacted:secret]');
    }
    errors.mockRestore();
  });

  it('keeps text logs when the format is text', () => {
    expect(useConfiguredLogger({ MIRROR_LOG_FORMAT: 'text' })).not.toBeInstanceOf(JsonLogger);
    expect(useConfiguredLogger({ MIRROR_LOG_FORMAT: 'text' })).toBeInstanceOf(ConsoleLogger);
  });
});
