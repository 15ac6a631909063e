import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import OpenAI from 'openai';

import type { ToolCall, ToolObservation } from '@libs/agent-tools';

import { EpisodeTools, playWithModel } from './model-loop';

interface ChatRequest {
  model: string;
  tools: { type: string; function: { name: string } }[];
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
}

type ScriptedTurn = { calls: { name: string; arguments: string }[] } | { says: string };

/**
 * Real: the OpenAI SDK, fetch, and the loop. Faked: the model, an OpenAI-compatible endpoint answered by MSW with a
 * script of turns; and the episode, a recorder of the calls it is given.
 */
describe(playWithModel.name, () => {
  const server = setupServer();
  // The SDK keeps the fetch it was built with; this one reads the global on each call, after MSW has patched it.
  const client = new OpenAI({
    baseURL: 'http://model.test/v1',
    apiKey: 'not-used',
    maxRetries: 0,
    fetch: (input, init) => globalThis.fetch(input, init),
  });
  let requests: ChatRequest[];
  let performed: ToolCall[];

  const scriptModel = (turns: ScriptedTurn[]) =>
    server.use(
      http.post('http://model.test/v1/chat/completions', async ({ request }) => {
        const body = (await request.json()) as ChatRequest;
        requests.push(body);
        const turn = turns[requests.length - 1] ?? { says: 'nothing more' };
        const message =
          'says' in turn
            ? { role: 'assistant', content: turn.says }
            : {
                role: 'assistant',
                content: null,
                tool_calls: turn.calls.map((c, i) => ({
                  id: `call_${requests.length}_${i}`,
                  type: 'function',
                  function: c,
                })),
              };
        return HttpResponse.json({
          id: `chat-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [{ index: 0, message, finish_reason: 'says' in turn ? 'stop' : 'tool_calls' }],
        });
      }),
    );

  const episode: EpisodeTools = {
    tools: [],
    chatTools: [
      { type: 'function', function: { name: 'desk_list_tickets', parameters: { type: 'object', properties: {} } } },
      { type: 'function', function: { name: 'finish_episode', parameters: { type: 'object', properties: {} } } },
    ],
    call: (call) => {
      performed.push(call);
      const observation: ToolObservation = {
        callId: call.id,
        name: call.name,
        isError: 'unparsable' in call.arguments,
        structured: { seen: call.arguments },
        text: `did ${call.name}`,
      };
      return Promise.resolve({ observation, ended: call.name === 'finish_episode' });
    },
  };

  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  beforeEach(() => {
    requests = [];
    performed = [];
  });
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());

  it('performs each call in order, answers every call with a tool message, and stops when the episode ends', async () => {
    scriptModel([
      { calls: [{ name: 'desk_list_tickets', arguments: '{"status":"open"}' }] },
      {
        calls: [
          { name: 'desk_list_tickets', arguments: '{not json' },
          { name: 'finish_episode', arguments: '' },
        ],
      },
    ]);
    const summary = await playWithModel(
      client,
      { model: 'scripted', maxTurns: 10 },
      { system: 'You act as the desk.', user: 'Answer the ticket.' },
      episode,
    );
    expect(summary).toEqual({ turns: 2, toolCalls: 3, stoppedBecause: 'episode_ended' });
    expect(performed.map((c) => [c.name, c.arguments])).toEqual([
      ['desk_list_tickets', { status: 'open' }],
      ['desk_list_tickets', { unparsable: '{not json' }],
      ['finish_episode', {}],
    ]);
    expect(requests[0].tools.map((t) => t.function.name)).toEqual(['desk_list_tickets', 'finish_episode']);
    expect(requests[0].messages.map((m) => m.role)).toEqual(['system', 'user']);
    // The second request carries the first turn's call and its observation, tied by the call's id.
    expect(requests[1].messages.slice(2).map((m) => [m.role, m.tool_call_id ?? null, m.content ?? null])).toEqual([
      ['assistant', null, null],
      ['tool', 'call_1_0', 'did desk_list_tickets'],
    ]);
  });

  it('stops when the model answers in prose, and after the turn limit', async () => {
    scriptModel([{ says: 'All done.' }]);
    await expect(
      playWithModel(client, { model: 'scripted', maxTurns: 5 }, { system: 's', user: 'u' }, episode),
    ).resolves.toEqual({ turns: 1, toolCalls: 0, stoppedBecause: 'model_stopped' });
    requests = [];
    scriptModel([
      { calls: [{ name: 'desk_list_tickets', arguments: '{}' }] },
      { calls: [{ name: 'desk_list_tickets', arguments: '{}' }] },
    ]);
    await expect(
      playWithModel(client, { model: 'scripted', maxTurns: 2 }, { system: 's', user: 'u' }, episode),
    ).resolves.toEqual({ turns: 2, toolCalls: 2, stoppedBecause: 'turn_limit' });
  });
});
