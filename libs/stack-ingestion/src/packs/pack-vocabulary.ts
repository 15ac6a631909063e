import * as fs from 'node:fs';
import * as path from 'node:path';

import { z } from 'zod';

/**
 * What a built-in pack lets policy rules name, shipped as data beside its spec (`twins/<pack>/vocabulary.json`) so
 * that ingestion can refuse a rule that names something the pack never has without loading the pack's code. Each
 * pack's test keeps the file equal to what the pack really seeds and records.
 */
export const packVocabularySchema = z
  .object({
    /** Every domain event the pack records. */
    events: z.array(z.string().min(1)),
    /** The pack's tables (state keys under the service) and the fields their records carry. */
    tables: z.record(z.array(z.string().min(1))),
    /**
     * A chat pack: its channels are the company's (declared in the bundle or generated with its departments), so
     * rules may name those.
     */
    chat: z.literal(true).optional(),
  })
  .strict();

export type PackVocabulary = z.infer<typeof packVocabularySchema>;

export const packVocabularyFile = 'vocabulary.json';

/** The vocabulary in a pack's folder; undefined when the pack ships none (its names are then not checked). */
export const readPackVocabulary = (packFolder: string): PackVocabulary | undefined => {
  const file = path.join(packFolder, packVocabularyFile);
  if (!fs.existsSync(file)) {
    return undefined;
  }
  const parsed = packVocabularySchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) {
    throw new Error(`${file} is not a pack vocabulary: ${parsed.error.message}`);
  }
  return parsed.data;
};
