/** What the reviewer's request got wrong, told apart so the edge maps each to its status (400, 404, 409). */
export type ReviewErrorCode = 'INVALID_INPUT' | 'NOT_FOUND' | 'CONFLICT';

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
