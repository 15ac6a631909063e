import { redactForLog } from '@libs/redaction';

/** The one thing embedded services need from a logger; Nest's Logger and the CLI's stderr writer both fit. */
export interface ServiceLog {
  log(message: string): void;
}

/**
 * Lines to stderr, redacted as every log is: the CLI's servers write a gateway's internal errors and the embedded
 * services' output here, which can quote a request's body or a spec's text.
 */
export const stderrLog: ServiceLog = { log: (message) => process.stderr.write(`${String(redactForLog(message))}\n`) };
export const silentLog: ServiceLog = { log: () => undefined };
