import {
  Body,
  Controller,
  Delete,
  Get,
  Headers,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import {
  ApiBearerAuth,
  ApiBody,
  ApiHeader,
  ApiOperation,
  ApiParam,
  ApiQuery,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';

import { CurrentPrincipal, EpisodeTokenAuth, Principal, Requires } from '@libs/access';
import { EpisodeRequestError, ToolCallShapeError, toolFormats, ToolFormat } from '@libs/agent-tools';
import { AgentToolkit, IdempotentRequests, LiveEpisodeRegistry, StoredResponse } from '@libs/live-episodes';

import { environmentNotFound } from './control-plane-admission';
import { EpisodeErrorFilter } from './episode-error.filter';
import { environmentView, gradeView, startView, statusView } from './episode-views';
import { bodyOf, episodeRequest, groupRequest, jsonBody, taskOf } from './request-bodies';
import { AGENT_TOOLKIT } from './injection-tokens';
import { errorSchema, schemas } from './openapi-schemas';

/** `Authorization: Bearer <token>`, or undefined. */
const bearer = (authorization: string | undefined): string | undefined =>
  /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];

/** The API's own base URL as the caller reached it: where the episode's MCP endpoint is. */
const apiUrlOf = (request: Request): string => `${request.protocol}://${request.get('host') ?? 'localhost'}`;

const send = (response: Response, { status, body }: StoredResponse & { replayed?: boolean }, replayed = false) => {
  if (replayed) {
    response.setHeader('Idempotent-Replayed', 'true');
  }
  response.status(status).json(body);
};

const idempotencyHeader = ApiHeader({
  name: 'Idempotency-Key',
  required: false,
  description: 'Same key + same body: the first response replayed. Same key + other body: 422.',
});
const episodeParam = ApiParam({ name: 'id', description: 'The episode id' });

/** The caller as the evidence trail names who started an episode: the key's principal in its role. */
const starterOf = (principal: Principal) => ({ actor: principal.actor, actorKind: principal.role });

/**
 * The episode API outside agents and trainers use: thin over the live-episode registry. Every episode route takes the
 * episode's own bearer token; every mutation accepts an Idempotency-Key; every error is `{ error: { code, message,
 * episode_id? } }`.
 */
@ApiTags('episodes')
@UseFilters(EpisodeErrorFilter)
@ApiResponse({
  status: 400,
  description: 'A body or query that breaks the contract (the field named)',
  schema: errorSchema,
})
@Controller('v1')
export class EpisodesController {
  constructor(
    @Inject(LiveEpisodeRegistry) private readonly registry: LiveEpisodeRegistry,
    @Inject(AGENT_TOOLKIT) private readonly toolkit: AgentToolkit,
    @Inject(IdempotentRequests) private readonly idempotent: IdempotentRequests,
  ) {}

  @Get('environments')
  @Requires('environments:read')
  @ApiOperation({ summary: 'The environments this server hosts (one per bundle), their scenarios and seed splits' })
  @ApiResponse({ status: 200, schema: schemas.environments })
  environments(@CurrentPrincipal() principal: Principal) {
    return {
      environments: this.hosts(principal) ? this.registry.environments().map(environmentView) : [],
    };
  }

  @Get('environments/:env/tasks')
  @Requires('environments:read')
  @ApiOperation({ summary: "A page of an environment's tasks (scenario × seed) in a split" })
  @ApiQuery({ name: 'split', enum: ['train', 'test'], required: false })
  @ApiQuery({ name: 'offset', required: false, type: Number })
  @ApiQuery({ name: 'limit', required: false, type: Number, description: '1 to 1000, default 100' })
  @ApiResponse({ status: 200, schema: schemas.tasks })
  @ApiResponse({ status: 404, description: 'environment_not_found', schema: errorSchema })
  tasks(
    @CurrentPrincipal() principal: Principal,
    @Param('env') env: string,
    @Query('split') split = 'train',
    @Query('offset') offset = '0',
    @Query('limit') limit = '100',
  ) {
    if (split !== 'train' && split !== 'test') {
      throw new EpisodeRequestError('query_invalid', 400, 'split: must be train or test');
    }
    const from = integerQuery('offset', offset, 0, Number.MAX_SAFE_INTEGER);
    const count = integerQuery('limit', limit, 1, 1000);
    this.hostedFor(principal, env);
    const page = this.registry.tasks(env, split, from, count);
    return {
      tasks: page.tasks,
      total: page.total,
      offset: page.offset,
      limit: page.limit,
      next_offset: page.nextOffset,
    };
  }

  @Get('capacity')
  @Requires('environments:read')
  @ApiOperation({ summary: 'Live episodes now, the most this server holds, and how many more it takes' })
  @ApiResponse({ status: 200, schema: schemas.capacity })
  capacity(@CurrentPrincipal() principal: Principal) {
    // How busy this server is is the hosted tenant's business: another tenant's key is told it holds nothing here.
    return this.hosts(principal) ? this.registry.capacity() : { live: 0, max: 0, available: 0 };
  }

  @Post('episodes')
  @Requires('episodes:run')
  @idempotencyHeader
  @ApiOperation({ summary: 'Starts an episode of a task: its prompt, tools, MCP endpoint, token and limits' })
  @ApiBody({ schema: schemas.episodeRequest })
  @ApiResponse({ status: 201, schema: schemas.episodeStart })
  @ApiResponse({ status: 404, description: 'environment_not_found, task_not_found', schema: errorSchema })
  @ApiResponse({ status: 429, description: 'capacity_exhausted (with Retry-After)', schema: errorSchema })
  async create(
    @CurrentPrincipal() principal: Principal,
    @Body() raw: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const body = bodyOf(episodeRequest, raw);
    this.hostedFor(principal, body.environment);
    const result = await this.idempotent.run(principal.tenantId, 'POST /v1/episodes', key, body, async () => {
      const start = await this.registry.start({
        environment: body.environment,
        task: taskOf(body),
        ...(body.max_steps !== undefined ? { maxSteps: body.max_steps } : {}),
        startedBy: starterOf(principal),
      });
      return { status: 201, body: startView(start, this.toolkit, apiUrlOf(request)) };
    });
    send(response, result, result.replayed);
  }

  @Post('episodes\\:group')
  @Requires('episodes:run')
  @idempotencyHeader
  @ApiOperation({ summary: 'Starts n episodes of one task with identical starts (for group-relative training)' })
  @ApiBody({ schema: schemas.groupRequest })
  @ApiResponse({ status: 201, schema: schemas.group })
  @ApiResponse({ status: 429, description: 'capacity_exhausted (with Retry-After)', schema: errorSchema })
  async createGroup(
    @CurrentPrincipal() principal: Principal,
    @Body() raw: unknown,
    @Headers('idempotency-key') key: string | undefined,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const body = bodyOf(groupRequest, raw);
    this.hostedFor(principal, body.environment);
    const result = await this.idempotent.run(principal.tenantId, 'POST /v1/episodes:group', key, body, async () => {
      const group = await this.registry.startGroup({
        environment: body.environment,
        task: taskOf(body),
        n: body.n,
        ...(body.max_steps !== undefined ? { maxSteps: body.max_steps } : {}),
        startedBy: starterOf(principal),
      });
      const apiUrl = apiUrlOf(request);
      return {
        status: 201,
        body: { group_id: group.groupId, episodes: group.episodes.map((e) => startView(e, this.toolkit, apiUrl)) },
      };
    });
    send(response, result, result.replayed);
  }

  @Post('episodes/:id/tool_calls')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @idempotencyHeader
  @ApiOperation({
    summary: 'Performs tool calls (OpenAI Chat or Responses shape) and answers in the same shape',
    description:
      'Refused calls (unknown tool, arguments that are not JSON or break the schema) come back as error observations, reach no twin and count no step.',
  })
  @ApiBody({ schema: schemas.toolCallsRequest })
  @ApiResponse({ status: 200, schema: schemas.toolCallsResult })
  @ApiResponse({ status: 401, description: 'token_invalid (no token)', schema: errorSchema })
  @ApiResponse({ status: 403, description: 'token_invalid (another token)', schema: errorSchema })
  @ApiResponse({ status: 404, description: 'episode_not_found', schema: errorSchema })
  @ApiResponse({ status: 409, description: 'episode_ended', schema: errorSchema })
  @ApiResponse({ status: 410, description: 'episode_deleted', schema: errorSchema })
  async toolCalls(
    @Param('id') id: string,
    @Body() raw: unknown,
    @Headers('authorization') authorization: string | undefined,
    @Headers('idempotency-key') key: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const token = bearer(authorization);
    await this.registry.authorize(id, token);
    const body = jsonBody(raw);
    let parsed: ReturnType<AgentToolkit['parseToolCalls']>;
    try {
      parsed = this.toolkit.parseToolCalls(body);
    } catch (error) {
      if (error instanceof ToolCallShapeError) {
        throw new EpisodeRequestError('body_invalid', 400, `body${error.message}`);
      }
      throw error;
    }
    const result = await this.idempotent.run(
      this.registry.tenantId,
      `POST /v1/episodes/${id}/tool_calls`,
      key,
      body,
      async () => {
        const done = await this.registry.call(id, token!, parsed.calls);
        const answer = this.toolkit.toolMessages(parsed.shape, done.observations);
        return {
          status: 200,
          body: {
            episode_id: id,
            step: done.steps,
            ...(parsed.shape === 'chat' ? { messages: answer } : { output: answer }),
            terminated: done.terminated,
            truncated: done.truncated,
            ...(done.reward !== undefined ? { reward: done.reward } : {}),
          },
        };
      },
    );
    send(response, result, result.replayed);
  }

  @Get('episodes/:id/tools')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @ApiQuery({ name: 'format', enum: toolFormats, required: false })
  @ApiOperation({ summary: "The episode's tools in a wire format (strict where the schema allows)" })
  @ApiResponse({ status: 200, schema: schemas.tools })
  async tools(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Query('format') format = 'mcp',
  ) {
    const tools = await this.registry.tools(id, bearer(authorization) ?? '');
    if (!(toolFormats as readonly string[]).includes(format)) {
      throw new EpisodeRequestError('query_invalid', 400, `format: must be one of ${toolFormats.join(', ')}`);
    }
    return { episode_id: id, format, tools: this.toolkit.toolsAs(format as ToolFormat, tools) };
  }

  @Get('episodes/:id')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @ApiOperation({ summary: "The episode's status, steps, business time and, once ended, its outcome" })
  @ApiResponse({ status: 200, schema: schemas.status })
  async status(@Param('id') id: string, @Headers('authorization') authorization: string | undefined) {
    return statusView(await this.registry.status(id, bearer(authorization) ?? ''));
  }

  @Post('episodes/:id/grade')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @idempotencyHeader
  @ApiOperation({ summary: 'Ends the episode if it runs, grades it as `mirror run` does, and returns the grade' })
  @ApiResponse({ status: 200, schema: schemas.grade })
  async grade(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Headers('idempotency-key') key: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const token = bearer(authorization);
    await this.registry.authorize(id, token);
    const result = await this.idempotent.run(
      this.registry.tenantId,
      `POST /v1/episodes/${id}/grade`,
      key,
      {},
      async () => {
        const graded = await this.registry.grade(id, token!);
        return { status: 200, body: gradeView(graded.status, graded.result) };
      },
    );
    send(response, result, result.replayed);
  }

  @Get('episodes/:id/trajectory')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @ApiOperation({
    summary:
      "Every call, its arguments and observation, wall and business time, in order; the twins' events once ended",
  })
  @ApiResponse({ status: 200, schema: schemas.trajectory })
  trajectory(@Param('id') id: string, @Headers('authorization') authorization: string | undefined) {
    return this.registry.trajectory(id, bearer(authorization) ?? '');
  }

  @Delete('episodes/:id')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @idempotencyHeader
  @ApiOperation({ summary: 'Deletes the episode (a running one is stopped ungraded); then 410 episode_deleted' })
  @ApiResponse({ status: 200, schema: schemas.deleted })
  async delete(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Headers('idempotency-key') key: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const token = bearer(authorization);
    await this.registry.authorize(id, token);
    const result = await this.idempotent.run(this.registry.tenantId, `DELETE /v1/episodes/${id}`, key, {}, async () => {
      await this.registry.delete(id, token!);
      return { status: 200, body: { episode_id: id, status: 'deleted' } };
    });
    send(response, result, result.replayed);
  }

  @Post('episodes/:id/ping')
  @EpisodeTokenAuth()
  @ApiBearerAuth()
  @episodeParam
  @idempotencyHeader
  @ApiOperation({ summary: "Extends an idle episode's life by its TTL from now" })
  @ApiResponse({ status: 200, schema: schemas.ping })
  async ping(
    @Param('id') id: string,
    @Headers('authorization') authorization: string | undefined,
    @Headers('idempotency-key') key: string | undefined,
    @Res() response: Response,
  ): Promise<void> {
    const token = bearer(authorization);
    await this.registry.authorize(id, token);
    const result = await this.idempotent.run(
      this.registry.tenantId,
      `POST /v1/episodes/${id}/ping`,
      key,
      {},
      async () => {
        const { expiresAt } = await this.registry.ping(id, token!);
        return { status: 200, body: { episode_id: id, expires_at: expiresAt } };
      },
    );
    send(response, result, result.replayed);
  }

  /**
   * Whether this server's episodes are the caller's tenant's: the registry serves one tenant (the host's), and a key
   * of another sees no environment of it. Episode routes need no such check: the episode's token is its own.
   */
  private hosts(principal: Principal): boolean {
    return principal.tenantId === this.registry.tenantId;
  }

  private hostedFor(principal: Principal, environment: string): void {
    if (!this.hosts(principal)) {
      throw environmentNotFound(environment);
    }
  }
}

const integerQuery = (name: string, value: string, min: number, max: number): number => {
  const parsed = Number(value);
  if (!/^\d+$/.test(value) || parsed < min || parsed > max) {
    throw new EpisodeRequestError('query_invalid', 400, `${name}: must be an integer from ${min} to ${max}`);
  }
  return parsed;
};
