/** Where a problem sits: a bundle-relative file, the 1-based line when the source has lines, and a JSON pointer. */
export interface SourceLocation {
  file: string;
  line?: number;
  pointer: string;
}

export interface IngestionProblem extends SourceLocation {
  message: string;
}

export type IngestionErrorCode =
  | 'BUNDLE_NOT_FOUND'
  | 'BUNDLE_TOO_LARGE'
  | 'ARCHIVE_INVALID'
  | 'MANIFEST_INVALID'
  | 'DOCUMENT_UNPARSABLE'
  | 'REFERENCE_INVALID'
  | 'SPECIFICATION_INVALID'
  | 'DATA_SCHEMA_INVALID'
  | 'SCENARIO_INVALID'
  | 'POLICY_INVALID';

/** A rejected bundle. Carries every problem found (up to a cap), each located, so a user fixes them in one pass. */
export class IngestionError extends Error {
  constructor(
    readonly code: IngestionErrorCode,
    readonly problems: IngestionProblem[],
  ) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'IngestionError';
  }

  static single(code: IngestionErrorCode, problem: IngestionProblem): IngestionError {
    return new IngestionError(code, [problem]);
  }
}

export const formatLocation = (location: SourceLocation): string =>
  `${location.file}${location.line === undefined ? '' : `:${location.line}`}${location.pointer ? `#${location.pointer}` : ''}`;

export const formatProblem = (problem: IngestionProblem): string => `${formatLocation(problem)}: ${problem.message}`;
