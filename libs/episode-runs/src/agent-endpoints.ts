import type { AgentEndpoint } from '@libs/reference-agents';
import type { Episode } from '@libs/twin-engine';

/**
 * The agent's way into each service its scenario allows (`task.tools`): the service's base URL on the gateway, as its
 * spec's server puts it (`/api/v1`), and the agent's own token for it, issued by the episode (a spec twin's carries
 * every scope its spec declares; the tool calls put it where each operation's scheme says). A tool that issues no
 * token (a pack without tokens) is refused here, before the agent could act as no one.
 */
export const agentEndpoints = (
  episode: Episode,
  gatewayUrl: string,
  tools: readonly string[],
): Record<string, AgentEndpoint> =>
  Object.fromEntries(
    tools.map((tool) => {
      const service = episode.twin.services.get(tool);
      const token = service ? episode.agentTokenFor(tool) : undefined;
      if (!service || token === undefined) {
        throw new Error(
          `the scenario's tool "${tool}" ${service ? 'issues no tokens' : 'is not a service of the stack'}`,
        );
      }
      return [tool, { baseUrl: `${gatewayUrl}/e/${episode.id}/${tool}${service.basePath}`, token }];
    }),
  );
