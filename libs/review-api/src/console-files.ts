import * as fs from 'node:fs';
import * as path from 'node:path';

import type { INestApplication } from '@nestjs/common';
import * as express from 'express';

/**
 * Where `npm run build` puts the console (Vite's output): `dist/console`, found from the built library
 * (dist/libs/review-api/src) and from the sources (libs/review-api/src, as the tests run it) alike.
 */
export const consoleDirectory = (): string => {
  const root = path.resolve(__dirname, '../../..');
  return path.basename(root) === 'dist' ? path.join(root, 'console') : path.join(root, 'dist', 'console');
};

/**
 * Serves the reviewer console's static files at /console. Its routes are in the URL's fragment, so one index.html
 * answers them all; without a build, /console says how to make one instead of a bare 404.
 */
export const serveConsole = (app: INestApplication, directory = consoleDirectory()): void => {
  const index = path.join(directory, 'index.html');
  app.use('/console', express.static(directory, { index: 'index.html', fallthrough: true, maxAge: '1h' }));
  app.use('/console', (_request: express.Request, response: express.Response) => {
    if (fs.existsSync(index)) {
      response.status(404).type('text/plain').send('not found: the console has no such file');
    } else {
      response.status(404).type('text/plain').send('the console is not built: run `npm run build`');
    }
  });
};
