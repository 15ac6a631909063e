import { randomUUID } from 'node:crypto';

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';

import { ReviewError, ReviewErrorCode } from '@libs/review-models';

export const reviewStatus = (code: ReviewErrorCode): HttpStatus => {
  switch (code) {
    case 'INVALID_INPUT':
      return HttpStatus.BAD_REQUEST;
    case 'NOT_FOUND':
      return HttpStatus.NOT_FOUND;
    case 'CONFLICT':
      return HttpStatus.CONFLICT;
    case 'BUSY':
      return HttpStatus.TOO_MANY_REQUESTS;
    case 'UNAVAILABLE':
      return HttpStatus.SERVICE_UNAVAILABLE;
  }
};

/**
 * The review routes' errors as the console reads them, `{ statusCode, code, message, field?, errorId }`, in whichever
 * app serves them (the api, or `mirror up`'s episode API, whose own errors have another shape). Unexpected errors are
 * 500s whose cause is logged under the errorId, never sent.
 */
@Catch()
export class ReviewErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger(ReviewErrorFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const errorId = randomUUID();
    if (error instanceof ReviewError) {
      const statusCode = reviewStatus(error.code);
      if (error.code === 'BUSY') {
        response.setHeader('Retry-After', '5');
      }
      response.status(statusCode).json({
        statusCode,
        code: error.code,
        message: error.message,
        ...(error.field ? { field: error.field } : {}),
        errorId,
      });
      return;
    }
    if (error instanceof HttpException) {
      const statusCode = error.getStatus();
      const body = error.getResponse();
      const message = typeof body === 'string' ? body : ((body as { message?: unknown }).message ?? error.message);
      response.status(statusCode).json({ statusCode, code: HttpStatus[statusCode] ?? 'ERROR', message, errorId });
      return;
    }
    this.logger.error(`${errorId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    response.status(500).json({ statusCode: 500, code: 'INTERNAL_SERVER_ERROR', message: 'internal error', errorId });
  }
}
