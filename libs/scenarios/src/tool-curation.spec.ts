import { validateScenario } from './scenario-validation';

const erpOperations = Array.from({ length: 130 }, (_, i) => ({
  id: `operation_${String(i).padStart(3, '0')}`,
  method: 'post',
  path: `/things${i}/{id}`,
}));

const context = {
  services: ['email', 'erp'],
  files: new Set<string>(),
  operations: {
    email: [
      { id: 'send_mail', method: 'post', path: '/me/sendMail' },
      { id: 'list_messages', method: 'get', path: '/me/messages' },
    ],
    erp: erpOperations,
  },
};

/** A small valid scenario whose tools each case changes. */
const scenarioWith = (tools: unknown[]) => ({
  id: 'bolts',
  title: 'Bolts',
  world: { company: { employees: 40, suppliers: 5, items: 50 } },
  variables: { quantity: { int: [1000, 2000], step: 500 } },
  task: { goal: 'Buy {{quantity}} bolts from {{supplier_name}}', tools },
  parties: {
    supplier: {
      persona: 'supplier-negotiator',
      supplier: 0,
      strategy: 'linear',
      opening_price: '1',
      reservation_price: '0.8',
    },
  },
  success: [
    {
      kind: 'purchase-order',
      supplier: 'supplier',
      min_status: 'pending_approval',
      quantity: 'quantity',
      max_unit_price: '1',
    },
  ],
  horizon: { max_agent_actions: 40, business_days: 10 },
});

describe('the curation of a task’s tools', () => {
  it('accepts a curated service and counts only the operations it keeps', () => {
    const { problems } = validateScenario(
      scenarioWith(['email', { service: 'erp', operations: ['operation_0*', 'operation_129'] }]),
      context,
    );
    expect(problems).toEqual([]);
  });

  it('refuses more than 128 tools at the entry that brings most, with the count', () => {
    expect(validateScenario(scenarioWith(['email', 'erp']), context).problems).toEqual([
      {
        pointer: '/task/tools/1',
        message: expect.stringMatching(
          /^the task's tools come to 134 \(email 2, erp 130, and wait_for_events and finish_episode\), more than the 128/,
        ) as string,
      },
    ]);
  });

  it('refuses an operation or pattern the service does not have, at its place in the entry', () => {
    expect(
      validateScenario(scenarioWith([{ service: 'email', operations: ['send_mail', 'delete_*'] }]), context).problems,
    ).toEqual([
      {
        pointer: '/task/tools/0/operations/1',
        message: '"email" has no operation matching "delete_*"; it has send_mail, list_messages',
      },
    ]);
  });

  it("refuses a curation that leaves out what the oracle's plan does with the service", () => {
    const withOracle = (operations: string[]) => ({
      ...scenarioWith([{ service: 'erp', operations }]),
      oracle: { steps: [{ do: { service: 'erp', method: 'POST', path: '/things7/{{quantity}}?dry=1', body: {} } }] },
    });
    expect(validateScenario(withOracle(['operation_007']), context).problems).toEqual([]);
    expect(validateScenario(withOracle(['operation_008']), context).problems).toEqual([
      {
        pointer: '/oracle/steps/0/do',
        message: `the oracle's POST /things7/{{quantity}}?dry=1 needs operation_007, which /task/tools/0 does not keep for "erp"`,
      },
    ]);
  });

  it('refuses a curated entry naming no service of the stack, and an entry of any other shape', () => {
    expect(validateScenario(scenarioWith([{ service: 'teams', operations: ['x'] }]), context).problems).toEqual([
      { pointer: '/task/tools/0/service', message: 'the stack has no service "teams"; it has email, erp' },
    ]);
    expect(validateScenario(scenarioWith([{ service: 'email', operations: [] }]), context).problems).not.toEqual([]);
    expect(
      validateScenario(scenarioWith(['email', { service: 'email', operations: ['send_mail'] }]), context).problems,
    ).toEqual([
      {
        pointer: '/task/tools/1',
        message: `"email" is already among the task's tools (/task/tools/0): name each service once`,
      },
    ]);
    expect(validateScenario(scenarioWith([{ service: 'email', tools: ['x'] }]), context).problems).not.toEqual([]);
  });
});
