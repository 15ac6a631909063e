import type { INestApplication } from '@nestjs/common';
import * as express from 'express';

import { serveConsole } from './console-files';

const parseJson = express.json({ limit: '64kb' });

/**
 * Reviewers' annotations and sign-offs are small JSON objects. A body that is too large or not JSON is answered here
 * in the review routes' error shape (413, 400), whichever app serves them, before any route reads it.
 */
const reviewBodies = (request: express.Request, response: express.Response, next: express.NextFunction): void =>
  parseJson(request, response, (error?: unknown) => {
    if (error === undefined) {
      next();
      return;
    }
    const status = (error as { status?: unknown }).status;
    const statusCode = typeof status === 'number' && status >= 400 && status < 500 ? status : 400;
    response.status(statusCode).json({
      statusCode,
      code: statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST',
      message:
        statusCode === 413
          ? 'the body is too large: annotations and sign-offs are at most 64 kB'
          : `the body is not valid JSON: ${(error as Error).message}`,
    });
  });

/** What an app needs beside the review module: its body reader on /v1/review and the console at /console. */
export const mountReviewHttp = (app: INestApplication): void => {
  app.use('/v1/review', reviewBodies);
  serveConsole(app);
};
