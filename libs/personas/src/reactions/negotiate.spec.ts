import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

import type { DeclaredParty, Negotiation } from '@libs/party-reactions';
import { TwinClient } from '@libs/twin-client';

import { performReaction } from './perform-reaction';

/**
 * A Slack workspace as the pack answers the three methods a negotiator on Slack uses (its direct messages with the
 * agent, their history, a post), and a record endpoint: what the negotiator says and records is what it decided.
 */
const workspace = () => {
  const agentSaid: string[] = [];
  const posted: string[] = [];
  const recorded: unknown[] = [];
  const body = async (request: IncomingMessage): Promise<Record<string, unknown>> => {
    let text = '';
    for await (const chunk of request) {
      text += String(chunk);
    }
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
  const server: Server = createServer((request, response) => {
    void body(request).then((args) => {
      const method = request.url?.split('/').pop();
      const answer =
        method === 'conversations.open'
          ? { ok: true, channel: { id: 'D1' } }
          : method === 'conversations.history'
            ? {
                ok: true,
                // Newest first, as Slack answers; the party's own posts among them.
                messages: [
                  ...agentSaid.map((text, i) => ({ ts: `${i + 1}.0`, user: 'U0', text })),
                  ...posted.map((text, i) => ({ ts: `${i + 1}.5`, user: 'U9', text })),
                ].reverse(),
              }
            : method === 'chat.postMessage'
              ? (posted.push(String(args.text)), { ok: true, ts: '9.9' })
              : (recorded.push(args), { id: 'Q-1' });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    });
  });
  return { server, agentSaid, posted, recorded };
};

const negotiation: Negotiation = {
  channel: 'chat',
  issues: { day_rate: { says: ['day rate'], unit: 'EUR', opening: 900, reservation: 700, decimals: 0 } },
  tactic: 'linear',
  patience: 2,
  walkAway: { insulting: 0.6, insults: 2, stalledAfter: 4 },
  record: {
    service: 'crm',
    method: 'POST',
    path: '/offers',
    body: { rate: '{{terms.day_rate}}', basis: '{{terms.basis}}' },
  },
};

const consultant: DeclaredParty = {
  persona: 'declared',
  name: 'Kim Lee',
  email: 'kim@company.example',
  employeeId: 'E0009',
  goals: [],
  knows: {},
  channels: ['chat', 'crm'],
  reactions: [{ id: 'behaviour/0', when: { question: 'chat' }, after: {}, act: { negotiate: negotiation } }],
};

describe('a negotiator on Slack', () => {
  const slack = workspace();
  let gatewayUrl = '';

  beforeAll(async () => {
    await new Promise<void>((resolve) => slack.server.listen(0, '127.0.0.1', resolve));
    gatewayUrl = `http://127.0.0.1:${(slack.server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => slack.server.close(resolve)));

  const answer = async (text: string) => {
    slack.agentSaid.push(text);
    const ts = `${slack.agentSaid.length}.0`;
    return performReaction(
      {
        twin: new TwinClient({ gatewayUrl, slack: 'chat' }, 'episode', `reaction:${ts}`),
        tokenFor: () => Promise.resolve('token'),
        services: { slack: 'chat' },
      },
      {
        partyName: 'consultant',
        party: consultant,
        reaction: 'behaviour/0',
        values: {},
        agent: { employeeId: 'E0000', email: 'agent@company.example', slackUser: 'U0' },
        event: {
          seq: slack.agentSaid.length,
          at: '2026-03-02T10:00:00Z',
          name: 'slack.message.posted',
          service: 'chat',
          data: { channel: 'D1', text, ts },
          actor: 'agent',
        },
      },
    );
  };

  it('answers in its direct messages by its parameters: counters, then accepts its floor at its deadline, and records both', async () => {
    await expect(answer('Kim, could you do a day rate of 700?')).resolves.toEqual({ performed: true });
    expect(slack.posted[0]).toContain('day rate: 800 EUR');
    await expect(answer('A day rate of 700 EUR is what we can do.')).resolves.toEqual({ performed: true });
    expect(slack.posted[1]).toMatch(/We accept these terms:\s+day rate: 700 EUR/);
    expect(slack.recorded).toEqual([
      { rate: 800, basis: 'offer' },
      { rate: 700, basis: 'acceptance' },
    ]);
    // Agreed: a further message gets no move.
    await answer('And 650?');
    expect(slack.posted).toHaveLength(2);
  });
});
