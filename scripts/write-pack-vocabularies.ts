/**
 * Writes `twins/<pack>/vocabulary.json` for every built-in pack: what its policy rules may name, read by ingestion.
 * Run after changing a pack's events, seed or channels: `npx tsx --tsconfig tsconfig.json scripts/write-pack-vocabularies.ts`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

import { packVocabularyFile } from '@libs/stack-ingestion';
import { builtInPacks } from '@twins/index';
import { packVocabulary } from '@twins/pack-vocabulary';

for (const pack of builtInPacks.values()) {
  const file = path.join(__dirname, '..', 'twins', pack.name, packVocabularyFile);
  fs.writeFileSync(file, `${JSON.stringify(packVocabulary(pack), null, 2)}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
}
