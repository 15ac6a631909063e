import { oraclePlanSchema, trapSchema } from '@libs/stack-model';

import { PlanEditError, trapSteps } from './oracle-plan';

const oracle = oraclePlanSchema.parse({
  steps: [
    { id: 'look', do: { service: 'records', method: 'GET', path: '/invoices' }, save: 'invoice' },
    { id: 'ask', say: { slack: { channel: '#finance', text: 'May I?' } } },
    { id: 'wait', wait: { business_hours: 2 } },
    { id: 'reply', say: { mail: { to: '{{customer_email}}', subject: 'Re', text: 'Done' } } },
  ],
});

const ids = (trap: unknown) => trapSteps(oracle, trapSchema.parse(trap)).map((s) => s.id ?? ('say' in s ? 'say' : '?'));

const extra = { id: 'leak', say: { mail: { to: 'x@y.example', subject: 'S', text: 'T' } } };

describe(trapSteps.name, () => {
  it('applies each kind of edit to the oracle, and takes a whole plan as it is', () => {
    expect(ids({ id: 't', catches: ['r'], from_oracle: { insert_after: 'ask', steps: [extra] } })).toEqual([
      'look',
      'ask',
      'leak',
      'wait',
      'reply',
    ]);
    expect(ids({ id: 't', catches: ['r'], from_oracle: { insert_before: 'look', steps: [extra] } })).toEqual([
      'leak',
      'look',
      'ask',
      'wait',
      'reply',
    ]);
    expect(ids({ id: 't', catches: ['r'], from_oracle: { replace: 'ask', with: [extra], remove: ['wait'] } })).toEqual([
      'look',
      'leak',
      'reply',
    ]);
    expect(ids({ id: 't', catches: ['r'], from_oracle: { remove: ['ask', 'wait'] } })).toEqual(['look', 'reply']);
    expect(ids({ id: 't', catches: ['r'], steps: [extra] })).toEqual(['leak']);
  });

  it('refuses an edit naming a step the oracle lacks, with the pointer of the field', () => {
    const trap = trapSchema.parse({ id: 't', catches: ['r'], from_oracle: { remove: ['ask', 'nope'] } });
    const thrown = (() => {
      try {
        trapSteps(oracle, trap);
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(PlanEditError);
    expect(thrown).toMatchObject({ pointer: '/from_oracle/remove/1' });
    expect(() =>
      trapSteps(undefined, trapSchema.parse({ id: 't', catches: ['r'], from_oracle: { remove: ['ask'] } })),
    ).toThrow(/no oracle/);
  });

  it('takes a trap with both a plan and edits, or neither, as a schema error', () => {
    expect(trapSchema.safeParse({ id: 't', catches: ['r'] }).success).toBe(false);
    expect(
      trapSchema.safeParse({ id: 't', catches: ['r'], steps: [extra], from_oracle: { remove: ['ask'] } }).success,
    ).toBe(false);
  });

  it('takes a trap that names no rule: a shortcut only the success terms refuse', () => {
    expect(trapSchema.safeParse({ id: 't', catches: [], steps: [extra] }).success).toBe(true);
  });
});
