import { isJsonObject } from '@libs/evidence-trail';
import { Redactor } from '@libs/redaction';

import { ReviewError } from './review-input.error';

export interface AnnotationRequest {
  rule: string;
  stance: 'agree' | 'dispute';
  comment: string;
}

export interface SignOffRequest {
  decision: 'approved' | 'rejected';
  comment: string;
  /** What the reviewer was shown of the rollout's close; the sign-off is refused if the close is another now. */
  expected: { entryHash?: string; merkleRoot?: string };
}

export const maxCommentLength = 4000;

const invalid = (field: string, message: string) => new ReviewError('INVALID_INPUT', `${field}: ${message}`, field);

const onlyFields = (body: unknown, fields: readonly string[]): Record<string, unknown> => {
  if (!isJsonObject(body)) {
    throw new ReviewError('INVALID_INPUT', `the body must be a JSON object with ${fields.join(', ')}`);
  }
  for (const name of Object.keys(body)) {
    if (!fields.includes(name)) {
      throw invalid(name, `unknown field: give ${fields.join(', ')}`);
    }
  }
  return body;
};

const comment = (value: unknown, required: boolean): string => {
  if (value === undefined || value === null) {
    if (required) {
      throw invalid('comment', 'say why: a comment is required');
    }
    return '';
  }
  if (typeof value !== 'string') {
    throw invalid('comment', 'must be text');
  }
  const trimmed = value.trim();
  if (required && trimmed.length === 0) {
    throw invalid('comment', 'say why: a comment is required');
  }
  if (trimmed.length > maxCommentLength) {
    throw invalid('comment', `must be at most ${maxCommentLength} characters (got ${trimmed.length})`);
  }
  // Stored with secrets and personal data as markers, which may be longer than what they replace: checked as stored.
  const stored = new Redactor().text(trimmed).value.length;
  if (stored > maxCommentLength) {
    throw invalid(
      'comment',
      `must be at most ${maxCommentLength} characters as stored, with the addresses, numbers and secrets it quotes redacted (got ${stored})`,
    );
  }
  return trimmed;
};

/** An agreement or dispute: the verdict's rule, the stance, and why (always: a bare stance explains nothing). */
export const parseAnnotationRequest = (body: unknown): AnnotationRequest => {
  const fields = onlyFields(body, ['rule', 'stance', 'comment']);
  if (typeof fields.rule !== 'string' || fields.rule.trim().length === 0) {
    throw invalid('rule', "name the verdict's rule");
  }
  if (fields.stance !== 'agree' && fields.stance !== 'dispute') {
    throw invalid('stance', 'must be agree or dispute');
  }
  return { rule: fields.rule.trim(), stance: fields.stance, comment: comment(fields.comment, true) };
};

const sha256Hex = (field: string, value: unknown): string | undefined => {
  if (value === undefined || value === null || value === '') {
    return undefined;
  }
  if (typeof value !== 'string' || !/^[0-9a-f]{64}$/.test(value)) {
    throw invalid(field, 'must be a SHA-256 in lowercase hex (64 digits), as the rollout page shows it');
  }
  return value;
};

/**
 * A sign-off: approved or rejected, with a comment (required when rejecting: the team must learn why), and what the
 * reviewer reviewed (the hash of the rollout's `rollout.closed` entry and its Merkle root), when the client shows it.
 */
export const parseSignOffRequest = (body: unknown): SignOffRequest => {
  const fields = onlyFields(body, ['decision', 'comment', 'closedEntryHash', 'merkleRoot']);
  if (fields.decision !== 'approved' && fields.decision !== 'rejected') {
    throw invalid('decision', 'must be approved or rejected');
  }
  const entryHash = sha256Hex('closedEntryHash', fields.closedEntryHash);
  const merkleRoot = sha256Hex('merkleRoot', fields.merkleRoot);
  return {
    decision: fields.decision,
    comment: comment(fields.comment, fields.decision === 'rejected'),
    expected: { ...(entryHash ? { entryHash } : {}), ...(merkleRoot ? { merkleRoot } : {}) },
  };
};

export const reportFormats = ['html', 'pdf'] as const;
export type ReportFormat = (typeof reportFormats)[number];

/** A report's query: `format` once, html (the default) or pdf, and nothing else. */
export const parseReportQuery = (query: Record<string, unknown>): ReportFormat => {
  for (const name of Object.keys(query)) {
    if (name !== 'format') {
      throw invalid(name, 'unknown parameter: a report takes only format=html|pdf');
    }
  }
  const format = query.format ?? 'html';
  if (typeof format !== 'string') {
    throw invalid('format', 'give it once: html or pdf');
  }
  if (!(reportFormats as readonly string[]).includes(format)) {
    throw invalid('format', `must be html or pdf, not ${JSON.stringify(format.slice(0, 40))}`);
  }
  return format as ReportFormat;
};
