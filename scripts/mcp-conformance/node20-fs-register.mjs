import { register } from 'node:module';

if (typeof (await import('node:fs')).globSync !== 'function') register('./node20-fs-hooks.mjs', import.meta.url);
