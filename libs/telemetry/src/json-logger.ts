import { AsyncLocalStorage } from 'node:async_hooks';

import { ConsoleLogger, Logger, LoggerService, LogLevel } from '@nestjs/common';
import { context, trace } from '@opentelemetry/api';

import type { MirrorConfig } from '@libs/config';
import { redactForLog } from '@libs/redaction';

/** What a log line says about the work it came from, when that work is known. */
export interface LogFields {
  episodeId?: string;
  tenantId?: string;
}

const logFields = new AsyncLocalStorage<LogFields>();

/** Runs `work` with these fields on every log line it writes (added to any the caller already had). */
export const withLogFields = <T>(fields: LogFields, work: () => T): T =>
  logFields.run({ ...logFields.getStore(), ...fields }, work);

/** Nest's console logger with every message and stack redacted before it is written (secrets, personal data). */
export class RedactingLogger extends ConsoleLogger {
  protected override printMessages(
    messages: unknown[],
    context?: string,
    logLevel?: LogLevel,
    writeStreamType?: 'stdout' | 'stderr',
    errorStack?: unknown,
  ): void {
    super.printMessages(messages.map(redactForLog), context, logLevel, writeStreamType, redactForLog(errorStack));
  }

  /** The text form prints an error's stack on its own line, apart from the messages: redacted as they are. */
  protected override printStackTrace(stack: string): void {
    super.printStackTrace(stack ? String(redactForLog(stack)) : stack);
  }
}

/**
 * Nest's console logger in its JSON form (one object per line: level, pid, timestamp, message, context), with the
 * episode and tenant of the work that wrote it and the trace and span it ran in, so a line leads to its trace.
 */
export class JsonLogger extends RedactingLogger {
  constructor() {
    super({ json: true });
  }

  protected override getJsonLogObject(
    message: unknown,
    options: { context: string; logLevel: LogLevel; writeStreamType?: 'stdout' | 'stderr'; errorStack?: unknown },
  ): { level: LogLevel; pid: number; timestamp: number; message: unknown; context?: string; stack?: unknown } {
    const span = trace.getSpanContext(context.active());
    return {
      ...super.getJsonLogObject(message, options),
      ...logFields.getStore(),
      ...(span ? { traceId: span.traceId, spanId: span.spanId } : {}),
    };
  }
}

/**
 * The logger the settings ask for (`MIRROR_LOG_FORMAT`), redacting either way, made the one every `new Logger(…)` in the process writes
 * through; Nest apps take it as their `logger` too.
 */
export const useConfiguredLogger = (config: Pick<MirrorConfig, 'MIRROR_LOG_FORMAT'>): LoggerService => {
  const logger = config.MIRROR_LOG_FORMAT === 'json' ? new JsonLogger() : new RedactingLogger();
  Logger.overrideLogger(logger);
  return logger;
};
