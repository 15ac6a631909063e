import type { AgentSession, ReferenceAgent } from '@libs/reference-agents';
import { hashSeed } from '@libs/synthetic-data';
import type { Episode } from '@libs/twin-engine';

import { RequestMaker } from './twin-requests';

/** How the session reaches each pack: the session's verbs take a path (REST) or a method name (Slack). */
type PackCall = (session: AgentSession, path: string, method: string, body: unknown) => Promise<unknown>;

const callers: Record<string, PackCall> = {
  procurement: (session, path, method, body) => session.erp(path, { method, ...(body === undefined ? {} : { body }) }),
  email: (session, path, method, body) => session.mail(path, { method, ...(body === undefined ? {} : { body }) }),
  slack: (session, path, _method, body) =>
    session.slack(path.replace(/^\//, ''), (body ?? {}) as Record<string, unknown>),
};

/**
 * An agent that knows the twins' operations and nothing of the task: at each step it sends a random valid request
 * (ids of records that exist in the episode as it stands, bodies synthesized from the spec) to a random service of
 * the scenario, with its own credentials, and now and then lets business time pass. What it earns is what the reward
 * gives for activity alone, which must be nothing unless the task's success terms happen to be met.
 */
export const randomAgent = (episodeOf: () => Promise<Episode>, seed: number, steps: number): ReferenceAgent => ({
  name: `random-${seed}`,
  async run(session) {
    const episode = await episodeOf();
    const services = [...episode.twin.services.values()].filter((s) => s.pack && callers[s.pack.name]);
    for (let step = 0; step < steps; step++) {
      const pick = hashSeed(seed, 'random-agent', step);
      if (pick % 10 === 0) {
        if ((await session.wait(1)).finished) {
          return;
        }
        continue;
      }
      const twin = services[pick % services.length];
      const plan = twin.plans[hashSeed(seed, step, twin.service.name) % twin.plans.length];
      const request = new RequestMaker(twin, episode.state, hashSeed(seed, step)).request(plan, step);
      const query = request.query.toString();
      const body = request.body && /json/i.test(request.headers['content-type'] ?? '') ? request.body : undefined;
      // A refusal (4xx) is part of random play: the agent goes on, as a policy exploring the tools would.
      await callers[twin.pack!.name](
        session,
        `${request.path}${query ? `?${query}` : ''}`,
        request.method,
        body ? JSON.parse(body.toString('utf8')) : undefined,
      ).catch(() => undefined);
    }
    await session.finish();
  },
});
