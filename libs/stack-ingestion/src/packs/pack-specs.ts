import * as fs from 'node:fs';
import * as path from 'node:path';

import { PackVocabulary, readPackVocabulary } from './pack-vocabulary';

/** Where a built-in twin pack's spec is: a folder to read it from (its references stay inside) and the entry file. */
export interface PackSpec {
  folder: string;
  entry: string;
  /** What its rules may name (events, tables, channels), when the pack ships it. */
  vocabulary?: PackVocabulary;
}

const specFile = /\.(json|ya?ml)$/i;

/** The first folder from here up (source tree or dist) whose `twins/` holds pack specs: the repository's. */
const findTwinsFolder = (): string | undefined => {
  const configured = process.env.MIRROR_TWINS_DIR;
  if (configured) {
    return path.resolve(configured);
  }
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const twins = path.join(dir, 'twins');
    if (fs.existsSync(twins) && fs.readdirSync(twins).some((name) => packSpecIn(path.join(twins, name)))) {
      return twins;
    }
    if (path.dirname(dir) === dir) {
      return undefined;
    }
  }
};

const packSpecIn = (packFolder: string): PackSpec | undefined => {
  const folder = path.join(packFolder, 'spec');
  if (!fs.existsSync(folder) || !fs.statSync(folder).isDirectory()) {
    return undefined;
  }
  const entry = fs.readdirSync(folder).find((name) => specFile.test(name));
  const vocabulary = readPackVocabulary(packFolder);
  return entry ? { folder, entry, ...(vocabulary ? { vocabulary } : {}) } : undefined;
};

let catalog: Map<string, PackSpec> | undefined;

/** The built-in packs by name (`slack`, `email`, `procurement` …), read once from `twins/<pack>/spec/`. */
export const builtInPackSpecs = (): ReadonlyMap<string, PackSpec> => {
  if (!catalog) {
    const twins = findTwinsFolder();
    catalog = new Map();
    for (const name of twins ? fs.readdirSync(twins).sort() : []) {
      const spec = packSpecIn(path.join(twins as string, name));
      if (spec) {
        catalog.set(name, spec);
      }
    }
  }
  return catalog;
};
