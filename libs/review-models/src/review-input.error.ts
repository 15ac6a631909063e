/**
 * What the reviewer's request got wrong, or why it cannot be served now, told apart so the edge maps each to its
 * status (400, 404, 409; 429 when too many reports are printing, 503 when the server cannot print one at all).
 */
export type ReviewErrorCode = 'INVALID_INPUT' | 'NOT_FOUND' | 'CONFLICT' | 'BUSY' | 'UNAVAILABLE';

export class ReviewError extends Error {
  constructor(
    readonly code: ReviewErrorCode,
    message: string,
    /** The query parameter or body field at fault, when one is. */
    readonly field?: string,
  ) {
    super(message);
  }
}
