import {
  BadRequestException,
  Body,
  Controller,
  Headers,
  HttpCode,
  NotFoundException,
  Post,
  Res,
  ServiceUnavailableException,
  UnprocessableEntityException,
} from '@nestjs/common';
import type { Response } from 'express';
import { DataSource } from 'typeorm';

import { CurrentPrincipal, Principal, Requires } from '@libs/access';
import { RolloutRepository, StackRepository, StoredRollout } from '@libs/persistence';
import { requirePlayableOnWorkers, RolloutLauncher, RolloutLaunchError } from '@libs/rollout-launch';
import { RolloutPlan, RolloutTaskError, rolloutTasks, scenariosOfTasks } from '@libs/rollouts';

import { pointerTo, rolloutStartRequest, RolloutStartRequest } from './rollout-start-request';
import { rolloutIdFor } from './rollout-idempotency';

const stackId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const stackVersion = /^[0-9a-f]{8,64}$/;

/** What a retry must ask again to be the same request: everything the plan holds but its id and who asked. */
const sameRollout = (stored: StoredRollout, plan: RolloutPlan): boolean =>
  stored.stackVersion === plan.stackVersion &&
  stored.agent === plan.agent &&
  JSON.stringify(stored.tasks) === JSON.stringify(plan.tasks) &&
  stored.trials === plan.trials &&
  stored.concurrency === plan.concurrency;

/**
 * Starts rollouts on the deployment's scaled-out workers (served by the api app, whose Temporal they poll): the key's
 * tenant owns the rollout and its `rollout.opened` entry names the key. The answer comes once the rollout is stored
 * and its workflow started; `GET /v1/rollouts/{id}` follows it to its report.
 */
@Controller('v1/rollouts')
export class RolloutStartsController {
  private readonly stacks: StackRepository;
  private readonly rollouts: RolloutRepository;

  constructor(
    dataSource: DataSource,
    private readonly launcher: RolloutLauncher,
  ) {
    this.stacks = new StackRepository(dataSource);
    this.rollouts = new RolloutRepository(dataSource);
  }

  @Post()
  @HttpCode(202)
  @Requires('episodes:run')
  async start(
    @CurrentPrincipal() principal: Principal,
    @Body() raw: unknown,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ) {
    const request = rolloutStartRequest(raw);
    const id = rolloutIdFor(principal.tenantId, idempotencyKey);
    const { version, stack } = await this.stackOf(principal.tenantId, request.stack);
    const plan: RolloutPlan = {
      id,
      stackVersion: version.version,
      bundle: version.model.name,
      agent: request.agent,
      tasks: this.tasksOf(
        version.model.scenarios.map((s) => s.scenario.id),
        request,
      ),
      trials: request.trials,
      concurrency: request.concurrency,
      startedBy: { actor: principal.actor, actorKind: principal.role },
    };
    try {
      requirePlayableOnWorkers(
        plan.agent,
        scenariosOfTasks(plan.tasks).map(
          (scenario) => version.model.scenarios.find((s) => s.scenario.id === scenario)!.scenario,
        ),
      );
    } catch (error) {
      throw error instanceof RolloutLaunchError ? new BadRequestException(`/agent: ${error.message}`) : error;
    }
    const stackShown = { id: stack, name: version.model.name, version: version.version };
    const stored = idempotencyKey === undefined ? undefined : await this.rollouts.find(principal.tenantId, id);
    if (stored) {
      const replay = { ...this.replayed(stored, plan), stack: stackShown };
      response.setHeader('Location', `/v1/rollouts/${id}`).setHeader('Idempotent-Replayed', 'true');
      return replay;
    }
    try {
      await this.launcher.launch(principal.tenantId, plan);
    } catch (error) {
      throw error instanceof RolloutLaunchError ? new ServiceUnavailableException(error.message) : error;
    }
    if (idempotencyKey !== undefined) {
      // Two attempts with one key at once both get here; the rollout stored is the first's, which the other must ask.
      this.replayed((await this.rollouts.find(principal.tenantId, id))!, plan);
    }
    const { startedBy: _startedBy, ...shown } = plan;
    response.setHeader('Location', `/v1/rollouts/${id}`);
    return {
      ...shown,
      status: 'running',
      startedBy: principal.actor,
      stack: stackShown,
    };
  }

  /** The rollout an Idempotency-Key already started, if `plan` is what it asked; else a 422. */
  private replayed(stored: StoredRollout, plan: RolloutPlan): StoredRollout {
    if (!sameRollout(stored, plan)) {
      throw new UnprocessableEntityException(
        `Idempotency-Key: rollout ${stored.id} was started with this key and another request; use a new key for a new rollout`,
      );
    }
    return stored;
  }

  /** The version a request names, of the caller's tenant only: a stack id (its newest version) or a version. */
  private async stackOf(tenantId: string, reference: string) {
    const version = stackId.test(reference)
      ? await this.stacks.latestVersion(tenantId, reference)
      : stackVersion.test(reference)
        ? await this.stacks.findVersion(tenantId, reference)
        : undefined;
    if (version === undefined) {
      throw new BadRequestException(
        '/stack: must be a stack id (a UUID) or a stack version (its hash, or 8 or more of its first characters)',
      );
    }
    if (!version) {
      // Not repeated: the caller has it, and a 404 says no more than that this tenant holds no such stack.
      throw new NotFoundException('/stack: no stack of this tenant has that id or version');
    }
    return { version, stack: version.stackId };
  }

  private tasksOf(scenarios: string[], request: RolloutStartRequest): string[] {
    try {
      return rolloutTasks(scenarios, request.tasks, { first: request.seed, count: request.seeds });
    } catch (error) {
      if (error instanceof RolloutTaskError) {
        throw new BadRequestException(
          `${pointerTo(error.item < 0 ? ['tasks'] : ['tasks', error.item])}: ${error.message}`,
        );
      }
      throw error;
    }
  }
}
