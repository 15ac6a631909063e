import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { EpisodeAccessError, EpisodeRequestError, ToolCall, ToolDefinition } from '@libs/agent-tools';
import { EpisodeHost, startEpisodeHost } from '@libs/episode-host';
import { AuditTrailRepository, LiveEpisodeRepository } from '@libs/persistence';
import { repositoryRoot } from '@test/support/cli-runner';
import { testInstanceKey } from '@test/support/instance-key';
import { testOperatorKey } from '@test/support/operator-key';
import { createTestDatabase, requireEnvironment } from '@test/support/test-services';
import { ingestedOnce } from '@test/support/run-cache';

import { agentToolkit } from './agent-toolkit';
import { LiveEpisodeOptions, LiveEpisodeRegistry } from './live-episode-registry';

/**
 * Real: PostgreSQL, the Temporal dev server, the episode host (twins, gateway, worker) and the clinic example, with
 * the real tool catalogue and executor. Mocked: nothing.
 */
describe('live-episode registry', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let host: EpisodeHost;
  const registries: LiveEpisodeRegistry[] = [];
  const registry = (options: Partial<LiveEpisodeOptions> = {}): LiveEpisodeRegistry => {
    const made = new LiveEpisodeRegistry(host, new LiveEpisodeRepository(host.dataSource), agentToolkit, {
      tenantId: host.config.MIRROR_TENANT,
      ttlSeconds: 900,
      maxLive: 8,
      ...options,
    });
    registries.push(made);
    return made;
  };
  const task = 'invoice-dispute@3';

  beforeAll(async () => {
    database = await createTestDatabase();
    Object.assign(process.env, {
      DATABASE_URL: database.url,
      TEMPORAL_ADDRESS: requireEnvironment('TEMPORAL_ADDRESS'),
      MIRROR_INSTANCE_KEY: testInstanceKey,
      MIRROR_OPERATOR_KEY: testOperatorKey,
      MIRROR_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-live-')),
    });
    const folder = path.join(repositoryRoot, 'examples', 'clinic-network');
    const { model, version } = await ingestedOnce(folder);
    host = await startEpisodeHost([{ id: 'clinic-network', path: folder, model, version }], {
      log: () => undefined,
    });
  });

  afterAll(async () => {
    for (const made of registries) {
      await made.close();
    }
    await host?.stop();
    await database?.drop();
  });

  const invoicesTool = (tools: ToolDefinition[]): ToolDefinition => {
    const found = tools.find(
      (t) =>
        t.target.kind === 'operation' &&
        t.target.service === 'records' &&
        t.target.method === 'get' &&
        t.target.path === '/invoices',
    );
    if (!found) {
      throw new Error(`no tool lists the records' invoices among ${tools.map((t) => t.name).join(', ')}`);
    }
    return found;
  };
  const call = (name: string, args: ToolCall['arguments'], id = `call-${name}`): ToolCall => ({
    id,
    name,
    arguments: args,
  });
  const seqOf = async (episodeId: string) =>
    (await host.engine.episode(host.config.MIRROR_TENANT, episodeId)).state.seq;
  const rejection = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    return error as EpisodeAccessError & EpisodeRequestError;
  };

  it('plays an episode to a graded end, refusing bad calls without a step or a twin call, and keeps its trajectory', async () => {
    const episodes = registry();
    const start = await episodes.start({ environment: 'clinic-network', task });
    expect(start).toMatchObject({ environment: 'clinic-network', task, limits: { maxSteps: 100, ttlSeconds: 900 } });
    expect(start.token).toMatch(/^mep_[\w-]{43}$/);
    expect(start.prompt.user).toContain('INV-');
    expect(start.prompt.policy).toEqual(expect.any(String));
    expect(start.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['wait_for_events', 'finish_episode']));
    const invoices = invoicesTool(start.tools);
    const id = start.episodeId;

    // Let the patient's mail and the records arrive, then look the invoices up.
    const waited = await episodes.call(id, start.token, [call('wait_for_events', { business_days: 1 })]);
    expect(waited).toMatchObject({ terminated: false, truncated: false });
    const lookup = { filters: { number: 'like.INV-*' }, limit: 5 };
    const looked = await episodes.call(id, start.token, [call(invoices.name, lookup)]);
    expect(looked.observations[0]).toMatchObject({ callId: `call-${invoices.name}`, isError: false });
    expect(looked.observations[0].text).toContain('INV-');
    expect((await episodes.status(id, start.token)).steps).toBe(2);

    // Refused: an unknown tool, arguments that are not JSON, arguments breaking the schema. No step, no twin call.
    const before = { seq: await seqOf(id), steps: (await episodes.status(id, start.token)).steps };
    const refused = await episodes.call(id, start.token, [
      call('records_drop_everything', {}),
      call(invoices.name, { unparsable: '{limit: 5' }, 'not-json'),
      call(invoices.name, { limit: 'five' }, 'bad-schema'),
    ]);
    expect(refused.observations.map((o) => o.isError)).toEqual([true, true, true]);
    expect(refused.observations[0].text).toContain('unknown tool "records_drop_everything"');
    expect(refused.observations[1].text).toContain('not a JSON object');
    expect(refused.observations[2].text).toMatch(/break its schema: \/limit/);
    expect({ seq: await seqOf(id), steps: (await episodes.status(id, start.token)).steps }).toEqual(before);

    // Another episode's token, or none: refused, nothing changes.
    const other = await episodes.start({ environment: 'clinic-network', task: 'invoice-dispute@4' });
    expect(await rejection(episodes.call(id, other.token, [call(invoices.name, {})]))).toMatchObject({
      code: 'token_invalid',
      status: 403,
    });
    expect(await rejection(episodes.status(id, ''))).toMatchObject({ code: 'token_invalid', status: 401 });
    expect(await rejection(episodes.status('00000000-0000-4000-8000-000000000000', start.token))).toMatchObject({
      code: 'episode_not_found',
      status: 404,
    });
    expect({ seq: await seqOf(id), steps: (await episodes.status(id, start.token)).steps }).toEqual(before);

    // Finishing ends and grades it as mirror run does; the run and grade are stored for `mirror grade`.
    const finished = await episodes.call(id, start.token, [call('finish_episode', {}), call(invoices.name, {})]);
    expect(finished).toMatchObject({ terminated: true, truncated: false, reward: expect.any(Number) as number });
    expect(finished.observations[1]).toMatchObject({ isError: true, text: expect.stringContaining('ended before') });
    const status = await episodes.status(id, start.token);
    expect(status).toMatchObject({ status: 'ended', steps: 3, result: { reward: finished.reward } });
    const [grade] = await host.dataSource.query<{ grade: { reward: number } }[]>(
      'SELECT grade FROM episode_grades WHERE episode_id = $1',
      [id],
    );
    expect(grade.grade.reward).toBe(finished.reward);

    // Calls after the end: 409, nothing changes.
    const ended = { seq: await seqOf(id), status };
    expect(await rejection(episodes.call(id, start.token, [call(invoices.name, {})]))).toMatchObject({
      code: 'episode_ended',
      status: 409,
    });
    expect({ seq: await seqOf(id), status: await episodes.status(id, start.token) }).toEqual(ended);

    // The trajectory: every call in order (the refused ones uncounted), the reward on the final turn, the log beside.
    const trajectory = await episodes.trajectory(id, start.token);
    expect(trajectory.steps.map((s) => [s.index, s.call.name, s.counted, s.observation.is_error])).toEqual([
      [0, 'wait_for_events', true, false],
      [1, invoices.name, true, false],
      [2, 'records_drop_everything', false, true],
      [3, invoices.name, false, true],
      [4, invoices.name, false, true],
      [5, 'finish_episode', true, false],
    ]);
    expect(trajectory.steps[5].reward).toBe(finished.reward);
    expect(trajectory.steps.slice(0, 5).every((s) => !('reward' in s))).toBe(true);
    expect(trajectory.steps[1].business_time >= trajectory.steps[0].business_time).toBe(true);
    expect(trajectory.steps[1].call.arguments).toEqual(lookup);
    expect(trajectory.events?.length).toBeGreaterThan(0);
    const lastSeq = trajectory.events![trajectory.events!.length - 1].seq;
    expect(trajectory.steps[5].events.through_seq).toBeLessThanOrEqual(lastSeq);

    // It outlives the registry that ran it: another one over the same database reads the same trajectory.
    const later = registry();
    expect((await later.trajectory(id, start.token)).steps).toEqual(trajectory.steps);
    expect(await later.status(id, start.token)).toEqual(status);
    await episodes.delete(other.episodeId, other.token);
  });

  it('keeps the events from an agent while its episode runs', async () => {
    const episodes = registry();
    const start = await episodes.start({ environment: 'clinic-network', task });
    expect((await episodes.trajectory(start.episodeId, start.token)).events).toBeNull();
    await episodes.delete(start.episodeId, start.token);
  });

  it('refuses episodes past capacity with a retry time, and frees a place when one is deleted', async () => {
    const episodes = registry({ maxLive: 1 });
    const first = await episodes.start({ environment: 'clinic-network', task });
    const refused = await rejection(episodes.start({ environment: 'clinic-network', task }));
    expect(refused).toMatchObject({ code: 'capacity_exhausted', status: 429 });
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(episodes.capacity()).toEqual({ live: 1, max: 1, available: 0 });
    expect(await rejection(episodes.startGroup({ environment: 'clinic-network', task, n: 2 }))).toMatchObject({
      code: 'n_invalid',
    });

    await episodes.delete(first.episodeId, first.token);
    expect(await rejection(episodes.status(first.episodeId, first.token))).toMatchObject({
      code: 'episode_deleted',
      status: 410,
    });
    expect(await rejection(episodes.call(first.episodeId, first.token, [call('finish_episode', {})]))).toMatchObject({
      code: 'episode_deleted',
    });
    expect(episodes.capacity()).toEqual({ live: 0, max: 1, available: 1 });
    // On the evidence trail once, by the token's holder, however often deleted.
    await episodes.delete(first.episodeId, first.token).catch(() => undefined);
    const deletions = (
      await new AuditTrailRepository(host.dataSource).forSubject(host.config.MIRROR_TENANT, 'episode', first.episodeId)
    ).filter((entry) => entry.action === 'episode.deleted');
    expect(deletions).toEqual([
      expect.objectContaining({
        actor: `episode-token:${first.episodeId}`,
        actorKind: 'agent',
        details: { statusBefore: 'running' },
      }),
    ]);
    const second = await episodes.start({ environment: 'clinic-network', task });
    await episodes.delete(second.episodeId, second.token);
  });

  it('refuses unknown environments, tasks and limits before starting anything', async () => {
    const episodes = registry();
    for (const [request, code] of [
      [{ environment: 'nowhere', task }, 'environment_not_found'],
      [{ environment: 'clinic-network', task: 'no-such-scenario@1' }, 'task_not_found'],
      [{ environment: 'clinic-network', task: 'invoice-dispute' }, 'task_invalid'],
      [{ environment: 'clinic-network', task, maxSteps: 0 }, 'max_steps_invalid'],
    ] as const) {
      expect(await rejection(episodes.start(request))).toMatchObject({ code });
    }
    expect(episodes.capacity().live).toBe(0);
  });

  it('starts a group of episodes of one task with identical starts', async () => {
    const episodes = registry();
    const { groupId, episodes: group } = await episodes.startGroup({ environment: 'clinic-network', task, n: 2 });
    expect(groupId).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(group.map((e) => e.episodeId)).size).toBe(2);
    expect(new Set(group.map((e) => e.token)).size).toBe(2);
    expect(group[1].prompt).toEqual(group[0].prompt);
    const observed = [];
    for (const episode of group) {
      await episodes.call(episode.episodeId, episode.token, [call('wait_for_events', { business_days: 1 })]);
      const [seen] = (
        await episodes.call(episode.episodeId, episode.token, [call(invoicesTool(episode.tools).name, {})])
      ).observations;
      observed.push(seen.text);
    }
    expect(observed[0]).toContain('INV-');
    expect(observed[1]).toBe(observed[0]);
    for (const episode of group) {
      await episodes.delete(episode.episodeId, episode.token);
    }
  });

  it('truncates an episode at its step limit, graded', async () => {
    const episodes = registry();
    const start = await episodes.start({ environment: 'clinic-network', task, maxSteps: 1 });
    const result = await episodes.call(start.episodeId, start.token, [
      call(invoicesTool(start.tools).name, {}),
      call(invoicesTool(start.tools).name, {}, 'second'),
    ]);
    expect(result).toMatchObject({ terminated: false, truncated: true, reward: expect.any(Number) as number });
    expect(result.observations[1].isError).toBe(true);
    expect(await episodes.status(start.episodeId, start.token)).toMatchObject({ status: 'ended', steps: 1 });
  });

  it('expires an idle episode after its TTL, and a ping keeps one alive', async () => {
    const episodes = registry({ ttlSeconds: 2 });
    const idle = await episodes.start({ environment: 'clinic-network', task });
    const kept = await episodes.start({ environment: 'clinic-network', task });
    const deadline = Date.now() + 120_000;
    while ((await episodes.status(idle.episodeId, idle.token)).status === 'running' && Date.now() < deadline) {
      await episodes.ping(kept.episodeId, kept.token);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(await episodes.status(idle.episodeId, idle.token)).toMatchObject({ status: 'expired' });
    expect((await episodes.status(kept.episodeId, kept.token)).status).toBe('running');
    expect(await rejection(episodes.call(idle.episodeId, idle.token, [call('finish_episode', {})]))).toMatchObject({
      code: 'episode_ended',
      status: 409,
    });
    await episodes.delete(kept.episodeId, kept.token);
  });
});
