/**
 * What Mirror keeps of a client's sample data: the shape of each field's values, never the values themselves unless
 * they are categories (a `status`, a `currency`) that carry no personal data. Worlds draw from these to look like the
 * client's data.
 */
export type FieldProfile =
  | { kind: 'categorical'; values: { value: string | number | boolean; weight: number }[] }
  | { kind: 'numeric'; min: number; max: number; integer: boolean }
  | { kind: 'date'; from: string; to: string }
  | {
      kind: 'text';
      minLength: number;
      maxLength: number;
      /**
       * For prose (subjects, descriptions): the words the client's values share, with their frequencies, which word
       * follows which, and how many words a value has. Only words seen in several records and never capitalised mid-sentence (so not names), no
       * digits: the field's vocabulary, never a value.
       */
      prose?: {
        words: { value: string; weight: number }[];
        /** Words that open a value, and word pairs that follow each other, each seen in several records. */
        starts: { value: string; weight: number }[];
        pairs: { from: string; to: string; weight: number }[];
        minWords: number;
        maxWords: number;
      };
      /**
       * For codes and references (one token each: `PO-1042`, `inv_8f3k`): their character classes (`A` an upper-case
       * letter, `a` a lower-case one, `9` a digit, anything else as it is) and how often each was seen, and the prefix
       * every value shares (`PO-`), when it is short and ends in a separator: the field's format, never a value.
       */
      shapes?: { masks: { value: string; weight: number }[]; prefix: string };
    }
  | { kind: 'redacted'; reason: string };

export interface SampleProfile {
  /** `service/resource` the sample describes, or an entity name. */
  target: string;
  file: string;
  records: number;
  fields: Record<string, FieldProfile>;
}
