import type { EnvironmentSummary, EpisodeStart, EpisodeStatus } from '@libs/agent-tools';
import type { AgentToolkit, EpisodeResult } from '@libs/live-episodes';

/** The episode API's JSON: snake_case views of the ports' results. */
export const environmentView = (environment: EnvironmentSummary) => ({
  id: environment.id,
  title: environment.title,
  stack_version: environment.stackVersion,
  scenarios: environment.scenarios,
  splits: Object.fromEntries(
    Object.entries(environment.splits).map(([name, s]) => [name, { first_seed: s.firstSeed, last_seed: s.lastSeed }]),
  ),
});

export const startView = (start: EpisodeStart, toolkit: AgentToolkit, apiUrl: string) => ({
  episode_id: start.episodeId,
  token: start.token,
  environment: start.environment,
  task: start.task,
  prompt: {
    messages: [
      { role: 'system', content: start.prompt.system },
      { role: 'user', content: start.prompt.user },
    ],
    policy: start.prompt.policy,
  },
  tools: toolkit.toolsAs('mcp', start.tools),
  mcp: {
    url: `${apiUrl}/v1/episodes/${start.episodeId}/mcp`,
    headers: { Authorization: `Bearer ${start.token}` },
  },
  limits: {
    max_steps: start.limits.maxSteps,
    ttl_seconds: start.limits.ttlSeconds,
    horizon_business_days: start.limits.horizonBusinessDays,
  },
});

export const statusView = (status: EpisodeStatus) => ({
  episode_id: status.episodeId,
  status: status.status,
  steps: status.steps,
  business_time: status.businessTime,
  expires_at: status.expiresAt,
  ...(status.result ? { outcome: status.result } : {}),
});

export const gradeView = (status: EpisodeStatus, result: EpisodeResult | null) => ({
  episode_id: status.episodeId,
  reward: result?.reward ?? null,
  passed: result?.passed ?? null,
  status: result?.status ?? 'infrastructure_error',
  reason: result?.reason ?? 'the episode ended without a grade',
  ended_by: result?.cause ?? null,
  episode_status: status.status,
  violations: result?.violations ?? [],
});
