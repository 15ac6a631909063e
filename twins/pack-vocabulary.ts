import type { PackVocabulary } from '@libs/stack-ingestion';
import { synthesizeCompany } from '@libs/synthetic-data';
import type { TwinPack } from '@libs/twin-engine';

/** Seeds the vocabulary is drawn from: enough for every table to have records whose fields vary. */
const seeds = [1, 2, 3];

const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

/**
 * What a pack really has for policy rules to name: the events it records, the tables it seeds with every field
 * their records carry, and whether it is a chat (whose channels are the company's). `vocabulary.json` beside each pack is this,
 * written by `scripts/write-pack-vocabularies.ts` and held to it by `pack-vocabulary.spec.ts`.
 */
export const packVocabulary = (pack: TwinPack): PackVocabulary => {
  const worlds = seeds.map((seed) => pack.seed(synthesizeCompany(seed), seed));
  const tables = sorted(worlds.flatMap((world) => Object.keys(world)));
  const conversations = worlds.flatMap((world) => world.conversations ?? []).map((row) => row.record);
  const chat = conversations.some((c) => !c.is_im && !c.is_mpim && typeof c.name === 'string');
  return {
    events: [...(pack.domainEventNames ?? [])].sort(),
    tables: Object.fromEntries(
      tables.map((table) => [
        table,
        sorted(worlds.flatMap((world) => (world[table] ?? []).flatMap((row) => ['id', ...Object.keys(row.record)]))),
      ]),
    ),
    ...(chat ? { chat: true as const } : {}),
  };
};
