import { synthesizeCompany } from '@libs/synthetic-data';

import { validateScenario } from './scenario-validation';
import { instantiate } from './task-instance';

const context = { services: ['email', 'slack', 'erp'], files: new Set(['policies/policy.md']) };

/** A small valid scenario; each case below breaks one thing of it. */
const valid = () => ({
  id: 'bolts',
  title: 'Bolts',
  world: { company: { employees: 40, suppliers: 5, items: 50 } },
  variables: {
    quantity: { int: [1000, 2000], step: 500 },
    list_price: { number: [0.2, 0.3], decimals: 3 },
    strategy: { choice: ['boulware', 'linear'] },
  },
  derived: { target_price: 'round(list_price * 0.9, 3)' },
  hidden: { reservation_price: 'round(list_price * 0.8, 3)' },
  task: {
    goal: 'Buy {{quantity}} bolts from {{supplier_name}} at {{target_price}}',
    policy: 'policies/policy.md',
    tools: ['email', 'erp'],
  },
  parties: {
    supplier: {
      persona: 'supplier-negotiator',
      supplier: 0,
      strategy: '{{strategy}}',
      opening_price: 'list_price',
      reservation_price: 'reservation_price',
    },
    approver: { persona: 'approver', employee: { role: 'approver', department: 'Procurement' } },
  },
  success: [
    {
      kind: 'purchase-order',
      supplier: 'supplier',
      min_status: 'sent',
      quantity: 'quantity',
      max_unit_price: 'target_price',
    },
  ],
  horizon: { max_agent_actions: 40, business_days: 10 },
});

type Scenario = ReturnType<typeof valid>;
const broken = (change: (s: Scenario & Record<string, unknown>) => void) => {
  const scenario = valid() as Scenario & Record<string, unknown>;
  change(scenario);
  return validateScenario(scenario, context).problems;
};

describe(validateScenario.name, () => {
  it('accepts a valid scenario, and its instances are the same for the same seed', () => {
    const { scenario, problems } = validateScenario(valid(), context);
    expect(problems).toEqual([]);
    const company = synthesizeCompany(3, { employees: 40, suppliers: 5, items: 50 });
    const first = instantiate(scenario!, 3, company);
    expect(instantiate(scenario!, 3, company)).toEqual(first);
    expect(first.brief.goal).toMatch(/^Buy (1000|1500|2000) bolts from .+ at 0\.\d+$/);
    expect(first.hidden.reservation_price).toBeLessThan(first.values.target_price as number);
    expect(first.parties.approver).toMatchObject({ persona: 'approver', approvalLimit: 50_000 });
  });

  it('refuses a text fact too short to search for, and a subject that is no party with an address', () => {
    const withHidden = (hidden: Record<string, unknown>) =>
      broken((s) => {
        s.hidden = { ...s.hidden, ...hidden };
      });
    expect(withHidden({ diagnosis: { health_condition: 'flu' } })).toEqual([
      {
        pointer: '/hidden/diagnosis',
        message: '"flu" is too short to tell from ordinary text (at least 4 letters or digits) (seed 0)',
      },
    ]);
    expect(withHidden({ account: { identifier: 'AC-{{quantity}}', subject: 'approver' } })).toEqual([]);
    expect(withHidden({ account: { identifier: 'AC-{{quantity}}', subject: 'auditor' } })).toEqual([
      {
        pointer: '/hidden/account/subject',
        message: '"auditor" is not a party of this scenario with an address (it has: approver, supplier)',
      },
    ]);
  });

  it('picks an approver whose limit covers the task, and refuses a limit no one has, naming the field', () => {
    const withLimit = (limit: string) => {
      const scenario = valid();
      (scenario.parties.approver as { employee: unknown }).employee = { role: 'approver', min_approval_limit: limit };
      return validateScenario(scenario, context);
    };
    const company = synthesizeCompany(3, { employees: 40, suppliers: 5, items: 50 });
    const covering = withLimit('quantity * 20');
    expect(covering.problems).toEqual([]);
    for (const seed of [1, 2, 3, 4, 5]) {
      const instance = instantiate(covering.scenario!, seed, company);
      const approver = instance.parties.approver as { approvalLimit: number };
      expect(approver.approvalLimit).toBeGreaterThanOrEqual((instance.values.quantity as number) * 20);
    }
    const impossible = withLimit('quantity * 1000').problems;
    expect(impossible.length).toBeGreaterThan(0);
    for (const problem of impossible) {
      expect(problem).toMatchObject({
        pointer: '/parties/approver/employee',
        message: expect.stringMatching(/approval limit of at least \d+/) as string,
      });
    }
    expect(withLimit('ceiling').problems).toEqual([
      expect.objectContaining({ pointer: '/parties/approver/employee/min_approval_limit' }),
    ]);
  });

  it.each([
    [
      'an unknown persona',
      (s: Scenario & Record<string, unknown>) => {
        (s.parties as Record<string, unknown>).broker = { persona: 'broker' };
      },
      [{ pointer: '/parties/broker/persona', message: expect.stringMatching(/Invalid discriminator value/) as string }],
    ],
    [
      'a tool that is not a service of the stack',
      (s: Scenario) => {
        s.task.tools.push('teams');
      },
      [{ pointer: '/task/tools/2', message: 'the stack has no service "teams"; it has email, slack, erp' }],
    ],
    [
      'a policy file that is not in the bundle',
      (s: Scenario) => {
        s.task.policy = 'policies/missing.md';
      },
      [{ pointer: '/task/policy', message: '"policies/missing.md" is not in the bundle' }],
    ],
    [
      'a template naming a value that does not exist',
      (s: Scenario) => {
        s.task.goal = 'Buy {{quantty}} bolts';
      },
      [{ pointer: '/task/goal', message: expect.stringMatching(/^"quantty" is not defined here/) as string }],
    ],
    [
      'an empty range',
      (s: Scenario) => {
        s.variables.quantity.int = [2000, 1000];
      },
      [{ pointer: '/variables/quantity/int', message: 'the range 2000..1000 is empty' }],
    ],
    [
      'a strategy no supplier persona knows',
      (s: Scenario) => {
        s.variables.strategy.choice = ['boulware', 'haggle'];
      },
      [
        {
          pointer: '/parties/supplier/strategy',
          message: expect.stringMatching(
            /^unknown negotiation strategy "haggle"; use one of boulware, linear/,
          ) as string,
        },
      ],
    ],
    [
      'a supplier the company does not have',
      (s: Scenario) => {
        s.parties.supplier.supplier = 9;
      },
      [{ pointer: '/parties/supplier/supplier', message: 'no supplier 9 among 5 (seed 0)' }],
    ],
    [
      'a supplier id the world does not have',
      (s: Scenario) => {
        (s.parties.supplier as { supplier: unknown }).supplier = 'vendor-404';
      },
      [{ pointer: '/parties/supplier/supplier', message: 'no supplier vendor-404 among 5 (seed 0)' }],
    ],
    [
      'an impossible target: below the supplier’s floor in every instance',
      (s: Scenario) => {
        s.derived.target_price = 'round(list_price * 0.5, 3)';
      },
      [
        {
          pointer: '/success/0/max_unit_price',
          message: expect.stringMatching(
            /^no task instance can succeed: max_unit_price \(.+\) is below the reservation/,
          ) as string,
        },
      ],
    ],
    [
      'success terms for a party that is not a supplier',
      (s: Scenario) => {
        s.success[0].supplier = 'approver';
      },
      [
        {
          pointer: '/success/0/supplier',
          message:
            '"approver" is not a party of a supplier in this scenario (a supplier-negotiator, or who: supplier_contact)',
        },
      ],
    ],
  ])('refuses %s, naming the field', (_name, change, expected) => {
    expect(broken(change)).toEqual(expected);
  });

  it('refuses an approver whose limit cannot cover an order the success terms allow, naming the party', () => {
    // The head of a department other than Procurement approves up to 25,000: 100,000 bolts at 0.27 need more.
    const problems = broken((s) => {
      s.variables.quantity = { int: [100_000, 100_000], step: 1 };
      s.parties.approver.employee.department = 'Engineering';
    });
    expect(problems).toHaveLength(1);
    expect(problems[0].pointer).toBe('/parties/approver/employee');
    expect(problems[0].message).toMatch(
      /^.+'s approval limit \(25000\) is below an order the success terms allow \(100000 at 0\.\d+ = \d+(\.\d+)?\) \(seed \d+\)$/,
    );
  });

  it('refuses the removed difficulty knobs with what to do instead', () => {
    expect(broken((s) => (s.difficulty = { urgency: 'high' }))).toEqual([
      { pointer: '/difficulty', message: expect.stringMatching(/^difficulty is no longer read .*then remove it$/) },
    ]);
  });

  it('freezes only a cost centre the bundle declares, whatever its codes look like', () => {
    const declared = {
      ...context,
      company: {
        departments: [
          { name: 'Procurement', cost_centre: 'P-1', staff_role: 'buyer' as const },
          { name: 'Wards', cost_centre: 'W/7', staff_role: 'requester' as const },
        ],
      },
    };
    const freezing = (code: string) => ({ ...valid(), setup: [{ freeze_budget: code }] });
    expect(validateScenario(freezing('W/7'), declared).problems).toEqual([]);
    expect(validateScenario(freezing('W/8'), declared).problems).toEqual([
      { pointer: '/setup/0/freeze_budget', message: 'the company has no cost centre "W/8"; it has P-1, W/7' },
    ]);
    expect(validateScenario(freezing('W/7'), context).problems).toEqual([
      { pointer: '/setup/0/freeze_budget', message: expect.stringMatching(/mirror\.yaml declares none/) },
    ]);
  });

  it('puts records in a client’s own table only, with fields its records have, and fills their templates', () => {
    const stack = {
      ...context,
      services: [...context.services, 'files'],
      packs: ['email', 'slack', 'erp'],
      tables: { files: { folders: ['id', 'name', 'owned_by'] } },
    };
    const seeding = (record: Record<string, unknown>) => ({
      ...valid(),
      setup: [{ record: { service: 'files', table: 'folders', id: 'F{{quantity}}', ...record } }],
    });
    const { scenario, problems } = validateScenario(seeding({ fields: { name: 'Bolts {{quantity}}' } }), stack);
    expect(problems).toEqual([]);
    const instance = instantiate(scenario!, 3, synthesizeCompany(1, { employees: 40, suppliers: 5, items: 50 }));
    expect(instance.setup).toEqual([
      {
        record: {
          service: 'files',
          table: 'folders',
          id: `F${instance.values.quantity}`,
          fields: { name: `Bolts ${instance.values.quantity}` },
        },
      },
    ]);
    expect(validateScenario(seeding({ table: 'drives' }), stack).problems).toEqual([
      { pointer: '/setup/0/record/table', message: '"files" has no table "drives"; it has folders' },
    ]);
    expect(validateScenario(seeding({ fields: { titel: 'x' } }), stack).problems).toEqual([
      {
        pointer: '/setup/0/record/fields/titel',
        message: '"files.folders" has no field "titel"; it has id, name, owned_by',
      },
    ]);
    expect(validateScenario(seeding({ service: 'erp' }), stack).problems).toEqual([
      { pointer: '/setup/0/record/service', message: expect.stringMatching(/is a twin pack/) },
    ]);
  });

  it('sends background traffic only to channels the company has', () => {
    const chatter = (channels: string[]) => ({
      ...valid(),
      parties: { ...valid().parties, noise: { persona: 'background-traffic', channels, messages: 2 } },
    });
    expect(validateScenario(chatter(['general', 'procurement']), context).problems).toEqual([]);
    expect(validateScenario(chatter(['general', 'no-such-room']), context).problems).toEqual([
      {
        pointer: '/parties/noise/channels/1',
        message: expect.stringMatching(/^the company has no Slack channel "no-such-room"; it has general, random, /),
      },
    ]);
  });
});
