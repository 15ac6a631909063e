import { Redactor } from './redactor';

const logRedactor = new Redactor();

/**
 * A value about to be logged, with secrets and personal data replaced by markers: text and plain data as the
 * redactor does them, an error as an error of the same name with its message and stack redacted. Logs keep no
 * world's values (graders never read them), so nothing is allowed.
 */
export const redactForLog = (value: unknown): unknown => {
  if (typeof value === 'string') {
    return logRedactor.text(value).value;
  }
  if (value instanceof Error) {
    const message = logRedactor.text(value.message).value;
    const stack = value.stack === undefined ? undefined : logRedactor.text(value.stack).value;
    if (message === value.message && stack === value.stack) {
      return value;
    }
    const redacted = new Error(message);
    redacted.name = value.name;
    redacted.stack = stack;
    return redacted;
  }
  return typeof value === 'object' && value !== null ? logRedactor.json(value).value : value;
};
