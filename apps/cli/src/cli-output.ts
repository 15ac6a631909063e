import { formatProblem, IngestionError } from '@libs/bundle-documents';
import { ConfigError } from '@libs/config';
import { redactForLog } from '@libs/redaction';
import { summarizeErrors } from '@libs/stack-ingestion';

/** Exit codes of every command: scripts and CI branch on them. */
export const exitCodes = { ok: 0, failure: 1, invalidInput: 2 } as const;

/** A command that ran and printed its result, which is a failure (a broken scenario): exit 1, nothing more to say. */
export class ReportedFailure extends Error {}

/** A refusal of the user's input that is not an ingestion problem (bad argument, unknown version). */
export class UsageError extends Error {}

export const printJson = (value: unknown): void => {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
};

/**
 * Reports a failed command and returns its exit code. Bad input is exit 2 with located problems (as JSON on stdout
 * with --json); anything else is exit 1 with one line, never a stack trace unless MIRROR_DEBUG is set.
 */
export const reportFailure = (error: unknown, json: boolean): number => {
  if (error instanceof ReportedFailure) {
    return exitCodes.failure;
  }
  if (error instanceof IngestionError) {
    if (json) {
      printJson(summarizeErrors(error));
    } else {
      process.stderr.write(
        `mirror: the bundle was refused (${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}):\n`,
      );
      for (const problem of error.problems) {
        process.stderr.write(`  ${formatProblem(problem)}\n`);
      }
    }
    return exitCodes.invalidInput;
  }
  if (error instanceof ConfigError) {
    // A setting in the environment is input too: exit 2 naming each variable.
    if (json) {
      printJson({ errors: error.problems.map((p) => ({ file: 'environment', pointer: p.field, message: p.message })) });
    } else {
      process.stderr.write(`mirror: ${error.message}\n`);
    }
    return exitCodes.invalidInput;
  }
  if (error instanceof UsageError) {
    if (json) {
      printJson({ errors: [{ file: '', pointer: '', message: error.message }] });
    } else {
      process.stderr.write(`mirror: ${error.message}\n`);
    }
    return exitCodes.invalidInput;
  }
  // Redacted as logs are: an unexpected error can quote a request's body, a tool call's arguments or a spec's text.
  const message = portInUse(error) ?? (error instanceof Error ? error.message : String(error));
  process.stderr.write(`mirror: ${String(redactForLog(message))}\n`);
  if (process.env.MIRROR_DEBUG && error instanceof Error) {
    process.stderr.write(`${String(redactForLog(error.stack))}\n`);
  }
  return exitCodes.failure;
};

/** A port another process holds is the user's to fix: say which and how, not Node's `listen EADDRINUSE`. */
const portInUse = (error: unknown): string | undefined => {
  const { code, address, port } = (error ?? {}) as { code?: unknown; address?: unknown; port?: unknown };
  return code === 'EADDRINUSE'
    ? `port ${String(port)} on ${String(address)} is already in use; choose another with --port (0 takes free ports)`
    : undefined;
};
