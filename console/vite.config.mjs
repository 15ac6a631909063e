// @ts-check
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The reviewer console, built into dist/console (which the api serves at /console). Vite compiles the TSX itself
 * (React's automatic runtime); the components are the ones the reports render on the server, reached through
 * `@review-views/<file>` so the browser bundle never pulls in the library's server-only index (PDF printing).
 */
export default defineConfig({
  root: here,
  base: '/console/',
  resolve: { alias: { '@review-views': path.resolve(here, '../libs/review-views/src') } },
  oxc: { jsx: { runtime: 'automatic' } },
  build: { outDir: path.resolve(here, '../dist/console'), emptyOutDir: true, sourcemap: true },
  logLevel: 'warn',
});
