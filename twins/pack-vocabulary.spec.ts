import * as fs from 'node:fs';
import * as path from 'node:path';

import { packVocabularyFile } from '@libs/stack-ingestion';

import { builtInPacks } from './index';
import { packVocabulary } from './pack-vocabulary';

/** Ingestion refuses rules by these files: one out of date would refuse a good rule or pass a dead one. */
describe(packVocabulary.name, () => {
  it.each([...builtInPacks.keys()])(
    '%s ships the vocabulary it really has (else run scripts/write-pack-vocabularies.ts)',
    (name) => {
      const shipped: unknown = JSON.parse(fs.readFileSync(path.join(__dirname, name, packVocabularyFile), 'utf8'));
      expect(shipped).toEqual(packVocabulary(builtInPacks.get(name)!));
    },
  );
});
