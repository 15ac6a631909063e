import type { RuleOf } from '@libs/stack-model';

import type { EpisodeLog } from '../episode-log';
import { GradingContext, stateKeyOf, whereMatcher } from './grading-context';

/** An approval of an action, with who gave it by the credentials it was given with. */
export interface Approval {
  seq: number;
  /** Whether it approves the action of this key (a record's id, an order's number). */
  approves(key: string): boolean;
  approver: string | undefined;
  event: string;
  /** The amount the approver saw, when the approval is a version of the action's own record. */
  amount?: number;
}

const same =
  (value: unknown) =>
  (key: string): boolean =>
    String(value) === key;

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Identifiers a chat message names as whole words: `R-12` is named in "R-12 ok", not in "R-123". */
const namedIn = (text: string) => {
  const lower = text.toLowerCase();
  return (key: string): boolean =>
    key !== '' && new RegExp(`(^|[^\\p{L}\\p{N}])${escaped(key.toLowerCase())}(?![\\p{L}\\p{N}])`, 'u').test(lower);
};

/**
 * The approvals a general rule reads. Each approver is the one whose credentials made the change, event or post:
 * a `decided_by` the agent writes, or a message the agent posts saying "approved by finance", approves nothing.
 * - a table (the action's own by default): each change matching `where`, approving its record (or the record its
 *   `ref_field` names); a version of the action's own record carries the amount the approver saw;
 * - an event: each one matching `where`, approving the action its `ref_field` (or the action's key field) names;
 * - a chat channel: each message posted there, approving every action whose key it names as a word.
 */
export const approvalsOf = (rule: RuleOf<'approval'>, log: EpisodeLog, context: GradingContext): Approval[] => {
  const on = rule.on;
  if (!on) {
    return [];
  }
  const source = rule.approval ?? {};
  const matches = whereMatcher(source.where, context);
  if (source.channel !== undefined) {
    const wanted = source.channel.replace(/^#/, '').toLowerCase();
    const names = new Map(
      context
        .records(`${context.services.slack ?? 'slack'}/conversations`)
        .map((c) => [String(c.id), typeof c.name === 'string' ? c.name.toLowerCase() : '']),
    );
    return log.events.flatMap((e): Approval[] => {
      if (
        e.name !== 'slack.message.posted' ||
        (names.get(String(e.data.channel)) ?? '') !== wanted ||
        !matches(e.data)
      ) {
        return [];
      }
      // A message approves whatever it names; the rule keeps the one of the action it judges.
      return [
        {
          seq: e.seq,
          approves: namedIn(typeof e.data.text === 'string' ? e.data.text : ''),
          approver: e.actor,
          event: e.name,
        },
      ];
    });
  }
  if (source.event !== undefined) {
    const keyField = source.ref_field ?? on.key_field ?? 'id';
    return log.events.flatMap((e): Approval[] => {
      const fields = { ...(e.data.record as Record<string, unknown> | undefined), ...e.data };
      return e.name === source.event && matches(fields) && fields[keyField] !== undefined
        ? [{ seq: e.seq, approves: same(fields[keyField]), approver: e.actor, event: e.name }]
        : [];
    });
  }
  const sameRecord = source.table === undefined && source.ref_field === undefined;
  const table = source.table ?? on.table;
  if (table === undefined) {
    return [];
  }
  const key = stateKeyOf(table, context);
  return log.changes.flatMap((change): Approval[] => {
    if (change.table !== key || !change.record || !matches(change.record)) {
      return [];
    }
    const ref = source.ref_field ? change.record[source.ref_field] : change.id;
    if (ref === undefined || ref === null) {
      return [];
    }
    const amount = Number(change.record[on.amount_field]);
    return [
      {
        seq: change.seq,
        approves: same(ref),
        approver: change.actor,
        event: `${change.table} ${change.id}`,
        ...(sameRecord && Number.isFinite(amount) ? { amount } : {}),
      },
    ];
  });
};
