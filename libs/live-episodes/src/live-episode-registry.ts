import { randomUUID } from 'node:crypto';

import { Logger } from '@nestjs/common';

import {
  EnvironmentSummary,
  EpisodeAccessError,
  EpisodeLifecyclePort,
  EpisodeRequestError,
  EpisodeStart,
  EpisodeStatus,
  ToolCall,
  ToolCallResult,
  ToolDefinition,
  ToolObservation,
} from '@libs/agent-tools';
import { HostedEnvironment, EpisodeHost, ScenarioOfBundle } from '@libs/episode-host';
import { EpisodeInfrastructureError, startEpisode } from '@libs/episode-runs';
import { LiveEpisodeRepository, LiveEpisodeRow, TrajectoryStepRow } from '@libs/persistence';
import { boundedLabel, inEpisodeSpan, mirrorMetrics, withLogFields } from '@libs/telemetry';
import type { EpisodeStarter } from '@libs/twin-engine';
import type { EpisodeOutcome } from '@libs/workflow-contracts';

import type { AgentToolkit } from './agent-toolkit';
import { issueEpisodeToken, tokenOpens } from './episode-tokens';
import { EpisodeResult, endedResult, infrastructureResult } from './episode-result';
import { parseTaskId, SplitName, splits, taskPage } from './task-ids';
import { episodePrompt, performToolCall, refusal } from './tool-dispatch';
import { trajectoryView } from './trajectory-view';

type Started = Awaited<ReturnType<typeof startEpisode>>;

/** Why a live episode ended: the agent finished, the horizon passed, a limit cut it, or it sat idle past its TTL. */
type EndCause = 'finished' | 'horizon' | 'truncated' | 'expired';

interface LiveEpisode {
  id: string;
  tokenHash: Buffer;
  environment: HostedEnvironment;
  scenario: ScenarioOfBundle;
  seed: number;
  task: string;
  started: Started;
  tools: ToolDefinition[];
  toolsByName: Map<string, ToolDefinition>;
  maxSteps: number;
  steps: number;
  /** The next trajectory index (refused calls are recorded too, uncounted). */
  index: number;
  expiresAt: number;
  /** Calls to one episode run one after another, in the order they came. */
  queue: Promise<unknown>;
  /** Set when the workflow ended by itself (the horizon passed while the agent was not waiting). */
  workflowEnded: boolean;
  ending: boolean;
}

export interface LiveEpisodeOptions {
  /** The tenant whose episodes this registry starts and answers for (the host's). */
  tenantId: string;
  ttlSeconds: number;
  maxLive: number;
  /** Steps an episode allows when its creator names none, and the most one may ask for. */
  defaultMaxSteps?: number;
  maxMaxSteps?: number;
  /** The name runs are stored under (`mirror grade` shows it). */
  agentName?: string;
  now?: () => number;
}

/** What an ended episode's grade request answers: the final status and the rules it broke. */
export interface EpisodeGradeView extends EpisodeStatus {
  violations: EpisodeResult['violations'];
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The live episodes outside agents play, whatever protocol they speak: starts episodes of the hosted environments'
 * tasks (through the same runner `mirror run` uses), opens each to its own bearer token only, performs tool calls
 * through `@libs/agent-tools`, records every call in the trajectory, ends episodes (finish, horizon, step limit, idle
 * TTL) and grades them exactly as `mirror run` does. Refused calls (unknown tool, arguments that are not JSON or break
 * the schema) reach no twin and count no step; they are answered as error observations and kept in the trajectory.
 */
export class LiveEpisodeRegistry implements EpisodeLifecyclePort {
  private readonly live = new Map<string, LiveEpisode>();
  private reserved = 0;
  private readonly catalogues = new Map<string, ToolDefinition[]>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly now: () => number;
  private readonly logger = new Logger('episodes');

  constructor(
    private readonly host: Pick<EpisodeHost, 'environments' | 'engine' | 'signals' | 'gradeAndStore'>,
    private readonly repository: LiveEpisodeRepository,
    private readonly toolkit: AgentToolkit,
    private readonly options: LiveEpisodeOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(
      () => void this.expireIdle(),
      Math.max(200, Math.min(30_000, (options.ttlSeconds * 1000) / 4)),
    );
    this.sweeper.unref();
  }

  /** The tenant whose episodes this registry starts and answers for. */
  get tenantId(): string {
    return this.options.tenantId;
  }

  get ttlSeconds(): number {
    return this.options.ttlSeconds;
  }

  environments(): EnvironmentSummary[] {
    return [...this.host.environments.entries()].map(([id, { bundle }]) => ({
      id,
      title: bundle.model.name,
      stackVersion: bundle.version,
      scenarios: bundle.model.scenarios.map(({ scenario }) => ({ id: scenario.id, title: scenario.title })),
      splits: { train: { ...splits.train }, test: { ...splits.test } },
    }));
  }

  tasks(environment: string, split: SplitName, offset: number, limit: number) {
    const { bundle } = this.environmentOf(environment);
    return taskPage(
      bundle.model.scenarios.map((s) => s.scenario.id),
      split,
      offset,
      limit,
    );
  }

  capacity(): { live: number; max: number; available: number } {
    const live = this.live.size + this.reserved;
    return { live, max: this.options.maxLive, available: Math.max(0, this.options.maxLive - live) };
  }

  /** `startedBy`: the caller (an API key's principal), as the evidence trail names who started the episode. */
  async start(request: {
    environment: string;
    task: string;
    maxSteps?: number;
    startedBy?: EpisodeStarter;
  }): Promise<EpisodeStart> {
    const [start] = await this.startMany(request, 1, null);
    return start;
  }

  /** `n` episodes of one task with identical starts (the same world, instance and clock), for group-relative RL. */
  async startGroup(request: {
    environment: string;
    task: string;
    n: number;
    maxSteps?: number;
    startedBy?: EpisodeStarter;
  }): Promise<{ groupId: string; episodes: EpisodeStart[] }> {
    if (!Number.isInteger(request.n) || request.n < 1 || request.n > this.options.maxLive) {
      throw new EpisodeRequestError('n_invalid', 400, `n: must be an integer from 1 to ${this.options.maxLive}`);
    }
    const groupId = randomUUID();
    return { groupId, episodes: await this.startMany(request, request.n, groupId) };
  }

  private async startMany(
    request: { environment: string; task: string; maxSteps?: number; startedBy?: EpisodeStarter },
    n: number,
    groupId: string | null,
  ): Promise<EpisodeStart[]> {
    const environment = this.environmentOf(request.environment);
    const { scenario: scenarioId, seed } = parseTaskId(request.task);
    const scenario = environment.bundle.model.scenarios.find((s) => s.scenario.id === scenarioId);
    if (!scenario) {
      throw new EpisodeRequestError(
        'task_not_found',
        404,
        `task: environment "${request.environment}" has no scenario "${scenarioId}"`,
      );
    }
    const maxSteps = this.maxStepsOf(request.maxSteps);
    const tools = this.catalogueOf(request.environment, environment, scenario);
    this.reserve(n);
    const opened: { live: LiveEpisode; token: string }[] = [];
    try {
      for (let i = 0; i < n; i++) {
        opened.push(
          await this.open(environment, scenario, seed, request.task, maxSteps, tools, groupId, request.startedBy),
        );
      }
    } catch (error) {
      // A group starts whole or not at all: the episodes already started are taken down and forgotten.
      for (const { live } of opened) {
        await this.discard(live);
      }
      throw error;
    } finally {
      this.reserved -= n;
    }
    return opened.map(({ live, token }) => this.startOf(live, token));
  }

  private environmentOf(id: string): HostedEnvironment {
    const environment = this.host.environments.get(id);
    if (!environment) {
      throw new EpisodeRequestError(
        'environment_not_found',
        404,
        `environment: no environment "${String(id).slice(0, 80)}" (GET /v1/environments lists them)`,
      );
    }
    return environment;
  }

  private maxStepsOf(requested: number | undefined): number {
    const most = this.options.maxMaxSteps ?? 1000;
    if (requested === undefined) {
      return this.options.defaultMaxSteps ?? 100;
    }
    if (!Number.isInteger(requested) || requested < 1 || requested > most) {
      throw new EpisodeRequestError('max_steps_invalid', 400, `max_steps: must be an integer from 1 to ${most}`);
    }
    return requested;
  }

  private catalogueOf(id: string, environment: HostedEnvironment, { scenario }: ScenarioOfBundle): ToolDefinition[] {
    const key = `${id}\u0000${scenario.id}`;
    let tools = this.catalogues.get(key);
    if (!tools) {
      tools = this.toolkit.toolCatalogue(environment.bundle.model, scenario.task.tools);
      this.catalogues.set(key, tools);
    }
    return tools;
  }

  private reserve(n: number): void {
    const { available } = this.capacity();
    if (n > available) {
      const soonest = Math.min(...[...this.live.values()].map((l) => l.expiresAt));
      const retryAfter = Number.isFinite(soonest) ? Math.max(1, Math.ceil((soonest - this.now()) / 1000)) : 1;
      throw new EpisodeRequestError(
        'capacity_exhausted',
        429,
        `${this.options.maxLive} live episodes at most and ${this.options.maxLive - available} are live: end one (finish or DELETE) or retry after ${retryAfter} s`,
        retryAfter,
      );
    }
    this.reserved += n;
  }

  private async open(
    environment: HostedEnvironment,
    scenario: ScenarioOfBundle,
    seed: number,
    task: string,
    maxSteps: number,
    tools: ToolDefinition[],
    groupId: string | null,
    startedBy: EpisodeStarter | undefined,
  ): Promise<{ live: LiveEpisode; token: string }> {
    const started = await startEpisode(environment.context, this.host.signals, scenario.scenario, seed, {}, startedBy);
    const { token, hash } = issueEpisodeToken();
    const live: LiveEpisode = {
      id: started.episode.id,
      tokenHash: hash,
      environment,
      scenario,
      seed,
      task,
      started,
      tools,
      toolsByName: new Map(tools.map((t) => [t.name, t])),
      maxSteps,
      steps: 0,
      index: 0,
      expiresAt: this.now() + this.options.ttlSeconds * 1000,
      queue: Promise.resolve(),
      workflowEnded: false,
      ending: false,
    };
    try {
      await this.repository.create(this.options.tenantId, {
        id: live.id,
        environment: environment.bundle.id,
        task,
        groupId,
        tokenHash: hash,
        maxSteps,
        status: 'running',
        expiresAt: new Date(live.expiresAt).toISOString(),
      });
    } catch (error) {
      await started.handle.terminate('the live episode could not be recorded').catch(() => undefined);
      this.host.signals.forget(live.id);
      throw error;
    }
    started.handle.result().then(
      () => (live.workflowEnded = true),
      () => (live.workflowEnded = true),
    );
    this.live.set(live.id, live);
    this.logWith(live, `episode started: ${task}`);
    // The token is handed out once, in the start; only its hash is kept.
    return { live, token };
  }

  private startOf(live: LiveEpisode, token: string): EpisodeStart {
    const { started } = live;
    const prompt = episodePrompt(started.session);
    return {
      episodeId: live.id,
      token,
      environment: live.environment.bundle.id,
      task: live.task,
      prompt,
      tools: live.tools,
      limits: {
        maxSteps: live.maxSteps,
        ttlSeconds: this.options.ttlSeconds,
        horizonBusinessDays: started.instance.horizon.businessDays,
      },
    };
  }

  /** 401 without a token, 403 with any other token (another episode's included). */
  private checkToken(token: string | undefined, hash: Buffer): void {
    if (!token) {
      throw new EpisodeAccessError('token_invalid', 401, 'this episode takes its own token: Authorization: Bearer …');
    }
    if (!tokenOpens(token, hash)) {
      throw new EpisodeAccessError('token_invalid', 403, 'this token does not open this episode');
    }
  }

  /**
   * Whether this token opens this episode: 404 for no such episode, 401 without a token, 403 with any other token,
   * 410 once deleted. A live episode is checked in memory; any other from its stored row.
   */
  async authorize(episodeId: string, token: string | undefined): Promise<void> {
    const live = this.live.get(episodeId);
    if (live) {
      this.checkToken(token, live.tokenHash);
      return;
    }
    await this.storedRow(episodeId, token);
  }

  private async storedRow(episodeId: string, token: string | undefined): Promise<LiveEpisodeRow<EpisodeResult>> {
    const row = await this.repository.find<EpisodeResult>(this.options.tenantId, episodeId);
    if (!row) {
      throw new EpisodeAccessError('episode_not_found', 404, `no episode ${String(episodeId).slice(0, 64)}`);
    }
    this.checkToken(token, row.tokenHash);
    if (row.status === 'deleted') {
      throw new EpisodeAccessError('episode_deleted', 410, 'this episode was deleted');
    }
    return row;
  }

  /** The running episode this token opens; 409 `episode_ended` once it ended (or the process holding it stopped). */
  private async running(episodeId: string, token: string): Promise<LiveEpisode> {
    const live = this.live.get(episodeId);
    if (live && !live.ending) {
      this.checkToken(token, live.tokenHash);
      return live;
    }
    if (live) {
      this.checkToken(token, live.tokenHash);
    }
    const row = live ? undefined : await this.storedRow(episodeId, token);
    const how =
      row === undefined || row.status === 'ended'
        ? 'has ended'
        : row.status === 'expired'
          ? 'has expired'
          : 'is no longer held by this server';
    throw new EpisodeAccessError('episode_ended', 409, `the episode ${how}: it takes no more calls`);
  }

  async tools(episodeId: string, token: string): Promise<ToolDefinition[]> {
    await this.authorize(episodeId, token);
    const live = this.live.get(episodeId);
    if (live) {
      return live.tools;
    }
    const row = (await this.repository.find(this.options.tenantId, episodeId))!;
    const environment = this.environmentOf(row.environment);
    const { scenario } = parseTaskId(row.task);
    return this.catalogueOf(
      row.environment,
      environment,
      environment.bundle.model.scenarios.find((s) => s.scenario.id === scenario)!,
    );
  }

  private serially<T>(live: LiveEpisode, work: () => Promise<T>): Promise<T> {
    const next = live.queue.then(work, work);
    live.queue = next.catch(() => undefined);
    return next;
  }

  private touch(live: LiveEpisode): void {
    live.expiresAt = this.now() + this.options.ttlSeconds * 1000;
  }

  /** Performs the calls in order; the result says the episode's step count after them too. */
  async call(episodeId: string, token: string, calls: ToolCall[]): Promise<ToolCallResult & { steps: number }> {
    const live = await this.running(episodeId, token);
    return this.serially(live, async () => {
      if (live.ending || !this.live.has(live.id)) {
        throw new EpisodeAccessError('episode_ended', 409, 'the episode has ended: it takes no more calls');
      }
      this.touch(live);
      const observations: ToolObservation[] = [];
      let ended: EndCause | undefined;
      for (const call of calls) {
        if (ended) {
          observations.push(refusal(call, 'the episode ended before this call: it was not performed'));
          continue;
        }
        const seqBefore = await this.seqOf(live);
        const began = this.now();
        const { observation, counted, ends } = await this.perform(live, call);
        const episode = await this.host.engine.episode(this.options.tenantId, live.id);
        if (counted) {
          live.steps++;
        }
        this.touch(live);
        const step: TrajectoryStepRow = {
          index: live.index++,
          at: new Date(began).toISOString(),
          wallMs: this.now() - began,
          businessTime: episode.now(),
          // Kept as the episode's log keeps what the call did: secrets and personal data not the world's redacted.
          ...episode.redactor.json({
            call: { id: call.id, name: call.name, arguments: call.arguments },
            observation: { is_error: observation.isError, structured: observation.structured, text: observation.text },
          }).value,
          counted,
          seqBefore,
          seqAfter: episode.state.seq,
        };
        await this.repository.appendStep(this.options.tenantId, live.id, step, {
          steps: live.steps,
          expiresAt: new Date(live.expiresAt).toISOString(),
        });
        observations.push(observation);
        ended = ends ?? (live.workflowEnded ? 'horizon' : live.steps >= live.maxSteps ? 'truncated' : undefined);
      }
      if (!ended) {
        return { observations, terminated: false, truncated: false, steps: live.steps };
      }
      const result = await this.end(live, ended);
      return {
        observations,
        terminated: ended !== 'truncated',
        truncated: ended === 'truncated',
        steps: live.steps,
        ...(result.reward !== null ? { reward: result.reward } : {}),
      };
    });
  }

  private async seqOf(live: LiveEpisode): Promise<number> {
    return (await this.host.engine.episode(this.options.tenantId, live.id)).state.seq;
  }

  /** One tool call as a span of the episode's trace (its twin requests and workflow updates inside), counted. */
  private perform(
    live: LiveEpisode,
    call: ToolCall,
  ): Promise<{ observation: ToolObservation; counted: boolean; ends?: EndCause }> {
    const tool = boundedLabel('tool', live.toolsByName.has(call.name) ? call.name : 'unknown');
    return inEpisodeSpan(live.id, `mirror.tool_call ${tool}`, { 'mirror.tool': tool }, async () => {
      const performed = await performToolCall(live.toolsByName, live.started.session, this.toolkit, call);
      const outcome = !performed.counted ? 'refused' : performed.observation.isError ? 'error' : 'ok';
      mirrorMetrics.toolCalls.inc({ tool, outcome });
      return performed;
    });
  }

  /** Ends a live episode (its workflow, if still running), grades it as `mirror run` does, and stores how it ended. */
  private async end(live: LiveEpisode, cause: EndCause): Promise<EpisodeResult> {
    live.ending = true;
    let result: EpisodeResult;
    try {
      const outcome: EpisodeOutcome = live.started.finished() ?? (await live.started.session.finish());
      const { conduct } = live.started;
      if (conduct.infrastructureFaults.length > 0) {
        throw new EpisodeInfrastructureError(live.id, conduct.infrastructureFaults.join('; '));
      }
      const { grade } = await this.host.gradeAndStore(
        live.environment,
        live.scenario,
        live.seed,
        outcome,
        this.options.agentName ?? 'episode-api',
      );
      result = endedResult(
        outcome,
        grade,
        (await this.host.engine.episode(this.options.tenantId, live.id)).now(),
        cause,
      );
    } catch (error) {
      result = infrastructureResult(messageOf(error), cause);
    }
    mirrorMetrics.episodesEnded.inc({ status: result.status });
    this.logWith(live, `episode ended (${cause}): ${result.status}`);
    this.host.signals.forget(live.id);
    // Stored before it leaves the registry: its status reads `running` until its end is on record.
    await this.repository
      .update(this.options.tenantId, live.id, {
        status: cause === 'expired' ? 'expired' : 'ended',
        truncated: cause === 'truncated',
        endedAt: new Date(this.now()).toISOString(),
        result,
      })
      .finally(() => this.live.delete(live.id));
    return result;
  }

  /** A log line that names the episode and its tenant (JSON logs carry them as fields). */
  private logWith(live: LiveEpisode, message: string): void {
    withLogFields({ episodeId: live.id, tenantId: live.environment.context.tenantId }, () => this.logger.log(message));
  }

  /** Takes a live episode down without grading it: its workflow terminated, its row marked. */
  private async discard(live: LiveEpisode): Promise<void> {
    live.ending = true;
    this.host.signals.forget(live.id);
    await live.started.handle.terminate('the episode was deleted').catch(() => undefined);
    await this.repository
      .markDeleted(this.options.tenantId, live.id, new Date(this.now()).toISOString())
      .finally(() => this.live.delete(live.id));
  }

  async status(episodeId: string, token: string): Promise<EpisodeStatus> {
    const live = this.live.get(episodeId);
    if (live) {
      this.checkToken(token, live.tokenHash);
      return this.liveStatus(live);
    }
    return this.statusOf(await this.storedRow(episodeId, token));
  }

  private async liveStatus(live: LiveEpisode): Promise<EpisodeStatus> {
    return {
      episodeId: live.id,
      status: 'running',
      steps: live.steps,
      businessTime: (await this.host.engine.episode(this.options.tenantId, live.id)).now(),
      expiresAt: new Date(live.expiresAt).toISOString(),
    };
  }

  private async statusOf(row: LiveEpisodeRow<EpisodeResult>): Promise<EpisodeStatus> {
    const live = this.live.get(row.id);
    if (live) {
      return this.liveStatus(live);
    }
    // Running in the database but held by no one here: the process that ran it stopped. It takes no more calls.
    const status = row.status === 'ended' ? 'ended' : 'expired';
    return {
      episodeId: row.id,
      status,
      steps: row.steps,
      businessTime: row.result?.businessTime ?? (await this.host.engine.episode(this.options.tenantId, row.id)).now(),
      expiresAt: row.expiresAt,
      ...(row.result
        ? {
            result: {
              reward: row.result.reward ?? 0,
              passed: row.result.passed ?? false,
              status: row.result.status,
              reason: row.result.reason,
            },
          }
        : {}),
    };
  }

  async finish(episodeId: string, token: string): Promise<EpisodeStatus> {
    return (await this.grade(episodeId, token)).status;
  }

  /** Ends the episode if it runs, grades it, and returns its final status with the rules it broke. */
  async grade(episodeId: string, token: string): Promise<{ status: EpisodeStatus; result: EpisodeResult | null }> {
    await this.authorize(episodeId, token);
    const live = this.live.get(episodeId);
    if (live) {
      await this.serially(live, async () => {
        if (this.live.has(live.id) && !live.ending) {
          await this.end(live, 'finished');
        }
      });
    }
    const row = (await this.repository.find<EpisodeResult>(this.options.tenantId, episodeId))!;
    return { status: await this.statusOf(row), result: row.result };
  }

  /** Extends an idle episode's life by its TTL from now. */
  async ping(episodeId: string, token: string): Promise<{ expiresAt: string }> {
    const live = await this.running(episodeId, token);
    this.touch(live);
    const expiresAt = new Date(live.expiresAt).toISOString();
    await this.repository.update(this.options.tenantId, live.id, { expiresAt });
    return { expiresAt };
  }

  /** Deletes an episode: a running one is stopped ungraded. Its trajectory stays stored; the API answers 410 after. */
  async delete(episodeId: string, token: string): Promise<void> {
    await this.authorize(episodeId, token);
    const live = this.live.get(episodeId);
    if (live) {
      await this.serially(live, () => this.discard(live));
      return;
    }
    await this.repository.markDeleted(this.options.tenantId, episodeId);
  }

  async trajectory(episodeId: string, token: string) {
    await this.authorize(episodeId, token);
    const row = (await this.repository.find<EpisodeResult>(this.options.tenantId, episodeId))!;
    const live = this.live.get(episodeId);
    const steps = await this.repository.steps(this.options.tenantId, episodeId);
    // The twins' log holds what the agent's tools may not show it: it is given only once the episode has ended.
    const ended = !live || live.ending;
    const events = ended ? await this.host.engine.events(this.options.tenantId, episodeId, 0) : undefined;
    return trajectoryView(row, steps, events);
  }

  /** Ends every episode idle past its TTL (graded as it stands: the agent stopped acting). */
  async expireIdle(): Promise<void> {
    const now = this.now();
    for (const live of [...this.live.values()]) {
      if (live.expiresAt <= now && !live.ending) {
        await this.serially(live, async () => {
          if (this.live.has(live.id) && !live.ending && live.expiresAt <= this.now()) {
            await this.end(live, 'expired');
          }
        });
      }
    }
  }

  /** Stops the sweeper and takes down the episodes still live (their rows say `expired`: no one holds them). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    for (const live of [...this.live.values()]) {
      live.ending = true;
      this.host.signals.forget(live.id);
      await live.started.handle.terminate('the server stopped').catch(() => undefined);
      await this.repository
        .update(this.options.tenantId, live.id, { status: 'expired', endedAt: new Date(this.now()).toISOString() })
        .catch(() => undefined);
      this.live.delete(live.id);
    }
  }
}
