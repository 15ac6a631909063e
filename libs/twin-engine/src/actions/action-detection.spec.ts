import * as path from 'node:path';

import { resourceShapes, ResourceShape } from '@libs/openapi-schemas';
import { ingestStack, ServiceModel } from '@libs/stack-ingestion';

import { planOperations } from '../operation-plan';
import { detectActions, stateChangeOf } from './action-detection';
import { statesOfVerb } from './verb-forms';

const fixture = path.join(__dirname, '../../../../test/fixtures/fidelity/actions/helpdesk/helpdesk.yaml');

describe(detectActions.name, () => {
  let service: ServiceModel;
  let shapes: ResourceShape[];
  let tickets: ResourceShape;

  beforeAll(async () => {
    service = (await ingestStack({ kind: 'path', path: fixture })).model.services[0];
    shapes = resourceShapes(service);
    tickets = shapes.find((s) => s.resource.name === 'tickets') as ResourceShape;
  });

  const detected = () => {
    const plans = planOperations(service, shapes);
    const actions = detectActions(service, shapes, plans);
    return new Map([...actions.values()].map((a) => [a.plan.operation.id, a]));
  };

  it('finds the writes on sub-paths of an item path, and nothing CRUD answers', () => {
    const actions = detected();
    expect([...actions.keys()].sort()).toEqual(['archiveTicket', 'closeTicket', 'escalateTicket', 'triageTicket']);
    const escalate = actions.get('escalateTicket');
    expect(escalate?.plan.shape.key).toBe('helpdesk/tickets');
    expect(escalate?.verb).toBe('escalate');
    // The action names its parameter ticketId where the item path says id.
    expect([...(escalate?.pathNames ?? [])]).toEqual([['id', 'ticketId']]);
  });

  it("reads the response example's states and the one state a description names", () => {
    const triage = detected().get('triageTicket');
    expect(triage?.exampleChanges).toEqual({ status: 'open', priority: 'high', archived: false });
    expect(detected().get('escalateTicket')?.describedChanges).toEqual({});
    expect(detected().get('archiveTicket')?.describedChanges).toEqual({ status: 'closed' });
  });

  it.each([
    ['escalate', { status: 'escalated' }, {}],
    ['close', { status: 'closed' }, { closed_at: 'date-time' }],
    ['reopen', { status: 'open' }, {}],
    ['archive', { archived: true }, {}],
    ['unarchive', { archived: false }, {}],
    ['triage', {}, {}],
    ['priorityHigh', { priority: 'high' }, {}],
  ])('sees what %s does to a ticket', (verb, values, times) => {
    expect(stateChangeOf(service.document, tickets, verb)).toEqual({ values, times });
  });
});

describe(statesOfVerb.name, () => {
  it.each([
    ['confirm', 'confirmed'],
    ['cancel', 'canceled'],
    ['cancel', 'cancelled'],
    ['close', 'closed'],
    ['escalate', 'escalated'],
    ['archive', 'archived'],
    ['submit', 'submitted'],
    ['apply', 'applied'],
    ['pay', 'paid'],
    ['activate', 'active'],
    ['process', 'processing'],
    ['void', 'void'],
  ])('%s leaves a record %s', (verb, state) => {
    expect(statesOfVerb(verb)).toContain(state);
  });

  it('does not take one verb for another', () => {
    expect(statesOfVerb('close')).not.toContain('closing_soon');
    expect(statesOfVerb('open')).not.toContain('opened_by');
  });
});
