import { randomUUID } from 'node:crypto';

import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import type { Response } from 'express';

import { IngestionError, summarizeErrors } from '@libs/stack-ingestion';

import { ingestionStatus } from './to-http-status';

/** Body-parser errors carry an HTTP status of their own (413 for a body over the limit, 400 for bad encoding). */
const statusOfParserError = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown; type?: unknown }).status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
};

/**
 * Where errors become HTTP (the review routes have their own filter, in libs/review-api, shared with `mirror up`): `{ statusCode, code, message, errorId }`, plus the located `errors` list for a
 * refused bundle. Unexpected errors are 500s whose cause is logged under the errorId, never sent to the client.
 */
@Catch()
export class ApiExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(ApiExceptionFilter.name);

  catch(error: unknown, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    const errorId = randomUUID();
    if (error instanceof IngestionError) {
      const statusCode = ingestionStatus(error.code);
      response
        .status(statusCode)
        .json({ statusCode, ...summarizeErrors(error), message: error.problems[0]?.message, errorId });
      return;
    }
    if (error instanceof HttpException) {
      const statusCode = error.getStatus();
      const body = error.getResponse();
      const message = typeof body === 'string' ? body : ((body as { message?: unknown }).message ?? error.message);
      response.status(statusCode).json({ statusCode, code: HttpStatus[statusCode] ?? 'ERROR', message, errorId });
      return;
    }
    const parserStatus = statusOfParserError(error);
    if (parserStatus !== undefined) {
      response.status(parserStatus).json({
        statusCode: parserStatus,
        code: HttpStatus[parserStatus] ?? 'BAD_REQUEST',
        message: (error as Error).message,
        errorId,
      });
      return;
    }
    this.logger.error(`${errorId}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    response.status(500).json({ statusCode: 500, code: 'INTERNAL_SERVER_ERROR', message: 'internal error', errorId });
  }
}
