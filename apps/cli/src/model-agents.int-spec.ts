import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';

import { EpisodeHost, HostedEnvironment, startEpisodeHost } from '@libs/episode-host';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { ingestedOnce } from '@test/support/run-cache';

import { modelAgent } from './model-agents';

interface ChatRequest {
  tools: { function: { name: string } }[];
  messages: { role: string; content?: string | null; tool_call_id?: string }[];
}

/**
 * Real: PostgreSQL, the Temporal dev server, the episode host (twins, gateway, worker), the clinic example, the tool
 * catalogue and executor, the OpenAI SDK and the loop. Faked: the model, an OpenAI-compatible endpoint answered by MSW
 * with scripted tool calls; every other request (the twins' gateway) goes through unchanged.
 */
describe('openai:<model> agents', () => {
  const model = setupServer();
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let host: EpisodeHost;
  let environment: HostedEnvironment;
  let requests: ChatRequest[];

  /** The model calls the named tools, one turn each, whatever the episode said. */
  const scriptModel = (turns: { name: string; arguments: Record<string, unknown> | string }[]) =>
    model.use(
      http.post('http://model.test/v1/chat/completions', async ({ request }) => {
        requests.push((await request.json()) as ChatRequest);
        const turn = turns[requests.length - 1];
        const message = turn
          ? {
              role: 'assistant',
              content: null,
              tool_calls: [
                {
                  id: `call_${requests.length}`,
                  type: 'function',
                  function: {
                    name: turn.name,
                    arguments: typeof turn.arguments === 'string' ? turn.arguments : JSON.stringify(turn.arguments),
                  },
                },
              ],
            }
          : { role: 'assistant', content: 'Done.' };
        return HttpResponse.json({
          id: `chat-${requests.length}`,
          object: 'chat.completion',
          created: 0,
          model: 'scripted',
          choices: [{ index: 0, message, finish_reason: turn ? 'tool_calls' : 'stop' }],
        });
      }),
    );

  beforeAll(async () => {
    model.listen({ onUnhandledRequest: 'bypass' });
    database = await createTestDatabase();
    Object.assign(process.env, {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-model-agent-')),
    });
    const folder = path.join(repositoryRoot, 'examples', 'clinic-network');
    const { model: stack, version } = await ingestedOnce(folder);
    host = await startEpisodeHost([{ id: 'clinic-network', path: folder, model: stack, version }], {
      log: () => undefined,
    });
    environment = host.environments.get('clinic-network')!;
  });

  beforeEach(() => {
    requests = [];
  });

  afterEach(() => model.resetHandlers());

  afterAll(async () => {
    model.close();
    await host?.stop();
    await database?.drop();
  });

  const scenario = () => {
    const found = environment.bundle.model.scenarios.find((s) => s.scenario.id === 'invoice-dispute');
    if (!found) {
      throw new Error('the clinic example has no invoice-dispute scenario');
    }
    return found;
  };

  it('plays an episode through the twins with the scripted calls, and the episode is graded', async () => {
    const { scenario: declared, file } = scenario();
    const agent = modelAgent('openai:scripted', environment.bundle.model, declared, {
      url: 'http://model.test/v1',
      key: undefined,
      maxTurns: 10,
    });
    const invoices = 'records_list_invoices';
    scriptModel([
      { name: invoices, arguments: { limit: 2 } },
      { name: 'no_such_tool', arguments: {} },
      { name: invoices, arguments: '{broken' },
      { name: 'finish_episode', arguments: {} },
    ]);

    const played = await host.play(environment, { scenario: declared, file }, 4, agent);

    // The model saw the episode's tools, its prompt, and each call's observation, tied to the call.
    expect(requests[0].tools.map((t) => t.function.name)).toEqual(expect.arrayContaining([invoices, 'finish_episode']));
    expect(requests[0].messages.map((m) => m.role)).toEqual(['system', 'user']);
    const observation = (turn: number) => requests[turn].messages.find((m) => m.tool_call_id === `call_${turn}`);
    // The records twin's own rows, two as asked.
    expect(JSON.parse(observation(1)?.content ?? 'null')).toEqual([
      expect.objectContaining({ id: expect.anything(), total: expect.any(Number) }),
      expect.objectContaining({ id: expect.anything(), total: expect.any(Number) }),
    ]);
    expect(observation(2)?.content).toMatch(/unknown tool "no_such_tool"/);
    expect(observation(3)?.content).toMatch(/not a JSON object: nothing was done/);
    // Four calls, the last one finishing: the model is asked no fifth turn, and the episode is graded as any other.
    expect(requests).toHaveLength(4);
    expect(played).toMatchObject({ agent: 'openai:scripted', scenarioId: 'invoice-dispute', seed: 4 });
    expect(played.status).not.toBe('infrastructure_error');
    expect(played.passed).toBe(false);
    expect(played.reward).toBe(0);
  });

  it('finishes the episode for a model that stops without finishing', async () => {
    const { scenario: declared, file } = scenario();
    const agent = modelAgent('openai:scripted', environment.bundle.model, declared, {
      url: 'http://model.test/v1',
      key: undefined,
      maxTurns: 10,
    });
    scriptModel([]);

    const played = await host.play(environment, { scenario: declared, file }, 5, agent);

    expect(requests).toHaveLength(1);
    expect(played.status).not.toBe('infrastructure_error');
    expect(played.agentError).toBeUndefined();
  });
});
