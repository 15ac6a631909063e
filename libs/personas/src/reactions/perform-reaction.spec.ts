import type { DeclaredParty } from '@libs/party-reactions';
import { TwinClient } from '@libs/twin-client';

import { performReaction } from './perform-reaction';

/** No twin listens here: a call that is sent fails as a network error, one refused before sending never gets there. */
const nowhere = { gatewayUrl: 'http://127.0.0.1:9', email: 'mail', slack: 'chat', erp: 'erp' };

const reviewer: DeclaredParty = {
  persona: 'declared',
  name: 'Fin Ance',
  email: 'fin@company.example',
  employeeId: 'E0003',
  goals: [],
  knows: {},
  channels: ['helpdesk'],
  reactions: [
    {
      id: 'reactions/0',
      when: { event: 'helpdesk.refunds.created' },
      after: {},
      act: { do: { service: 'helpdesk', method: 'PATCH', path: '/refunds/{{event.data.id}}', body: { ok: true } } },
    },
  ],
};

const request = (id: unknown) => ({
  partyName: 'finance',
  party: reviewer,
  reaction: 'reactions/0',
  values: {},
  agent: { employeeId: 'E0000', email: 'agent@company.example', slackUser: 'U0' },
  event: {
    seq: 3,
    at: '2026-03-02T10:00:00Z',
    name: 'helpdesk.refunds.created',
    service: 'helpdesk',
    data: { id },
    actor: 'agent',
  },
});

const performer = () => ({
  twin: new TwinClient(nowhere, 'episode', 'reaction:finance:1'),
  tokenFor: () => Promise.resolve(undefined),
  services: { email: 'mail', slack: 'chat' },
});

describe(performReaction.name, () => {
  it('does not let a value from the event steer the party’s call: the act is refused, the episode goes on', async () => {
    await expect(performReaction(performer(), request('../../admin'))).resolves.toMatchObject({
      performed: false,
      reason: expect.stringMatching(/dot segments or encoded slashes/) as string,
    });
  });

  it('counts an act the event cannot fill (a field it lacks) as refused, not as a crash', async () => {
    const { event, ...rest } = request('1');
    await expect(performReaction(performer(), { ...rest, event: { ...event, data: {} } })).resolves.toMatchObject({
      performed: false,
    });
  });

  it('lets a failure of the twins themselves through, to be retried', async () => {
    await expect(performReaction(performer(), request('r-1'))).rejects.toThrow();
  });
});
