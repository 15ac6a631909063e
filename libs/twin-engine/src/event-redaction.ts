import { AllowedValues, Redactor, ValueAllowance } from '@libs/redaction';

import type { EpisodeEvent } from './episode-events';
import type { EpisodeState } from './episode-state';
import type { StackTwin } from './stack-twin';

/**
 * An event's own keys that say what it is, which record it is about and which retry it answers (an idempotency key and
 * its caller's scope, compared on every retry): never redacted, so replay finds its record and a retry its answer.
 */
const structuralKeys = new Set([
  'type',
  'table',
  'id',
  'parentId',
  'service',
  'operationId',
  'status',
  'name',
  'key',
  'scope',
]);

const worldAllowances = new WeakMap<StackTwin, ValueAllowance>();

/**
 * The world's own values, walked once per world and only as far as findings need (most writes have none): its records
 * (people, addresses, the ids its twins issued), its company and the stack's scenarios (parties, hidden facts, what
 * personas say), the scenarios walked first as they hold what an episode's writes mostly find. They are synthetic by
 * construction and what graders compare against; a built world does not change.
 */
const worldAllowance = (twin: StackTwin): ValueAllowance => {
  let allowance = worldAllowances.get(twin);
  if (!allowance) {
    allowance = AllowedValues.walking(twin.world.tables, twin.world.company, twin.model.company, twin.model.scenarios);
    worldAllowances.set(twin, allowance);
  }
  return allowance;
};

/**
 * What an episode's writes are redacted by: the world's values stay, and so does anything already in the episode's
 * records (what its setup enrolled: an outside party's address), which was itself redacted when it was written.
 */
export const episodeRedactor = (twin: StackTwin, state: EpisodeState): Redactor => {
  // The records' values are collected once per state (its sequence number), not once per finding: a write whose
  // record carries several addresses would otherwise walk the whole episode's state for each of them.
  let collected: { seq: number; allowance: AllowedValues } | undefined;
  const records: ValueAllowance = {
    allows: (kind, text) => {
      if (collected?.seq !== state.seq) {
        collected = { seq: state.seq, allowance: AllowedValues.of(state.fingerprint()) };
      }
      return collected.allowance.allows(kind, text);
    },
  };
  return new Redactor(AllowedValues.union(worldAllowance(twin), records));
};

/**
 * An event as it is stored: its content (records, domain data, recorded answers, refusal reasons) redacted, what was
 * redacted noted on it by kind and place. Its structural keys stay, and so do its own ids wherever they recur (a
 * record's `id` field), so the log replays to the same records.
 */
export const redactEvent = (redactor: Redactor, event: EpisodeEvent): EpisodeEvent => {
  const content: Record<string, unknown> = Object.fromEntries(
    Object.entries(event).filter(([key]) => !structuralKeys.has(key)),
  );
  const found = redactor.json(content);
  if (found.redactions.length === 0) {
    return event;
  }
  // Rare: an id that reads as personal data (a mailbox keyed by its address) stays an id, wherever it recurs.
  const ids = [event as unknown, ...Object.values(content)].flatMap((source): string[] =>
    typeof source === 'object' && source !== null
      ? ['id', 'parentId']
          .map((key) => (source as Record<string, unknown>)[key])
          .filter((v): v is string => typeof v === 'string')
      : [],
  );
  const { value, redactions } = ids.length > 0 ? redactor.allowing(ids).json(content) : found;
  return redactions.length === 0 ? event : { ...event, ...value, redactions };
};

/**
 * What one write is redacted by: the episode's redactor, also keeping what the twin made up for that write (a create's
 * filled-in phone), which is as synthetic as the world's values. Without it the log would store a marker where the
 * create answered the value, and every later read would disagree with the create.
 */
export const writeRedactor = (redactor: Redactor, made: unknown): Redactor =>
  made === undefined ? redactor : redactor.keeping(AllowedValues.lazy(() => AllowedValues.of(made)));
