import type { AgentEndpoint } from '@libs/reference-agents';
import type { Episode } from '@libs/twin-engine';

/**
 * The agent's way into each service its scenario allows (`task.tools`): the service's base URL on the gateway, as its
 * spec's server puts it (`/api/v1`), and the agent's own token for it, issued through `issue` (which records the
 * issuance in the evidence trail; a spec twin's token carries every scope its spec declares; the tool calls put it
 * where each operation's scheme says). A tool that issues no token (a pack without tokens) is refused here, before
 * the agent could act as no one.
 */
export const agentEndpoints = async (
  episode: Episode,
  gatewayUrl: string,
  tools: readonly string[],
  issue: (service: string) => Promise<string | undefined>,
): Promise<Record<string, AgentEndpoint>> => {
  const refuse = (tool: string, why: string): never => {
    throw new Error(`the scenario's tool "${tool}" ${why}`);
  };
  // Every tool checked before any token is issued: a refused scenario leaves no issuance on record.
  const services = tools.map((tool) => {
    const service = episode.twin.services.get(tool);
    if (!service) {
      return refuse(tool, 'is not a service of the stack');
    }
    if (episode.agentPrincipalFor(tool) === undefined) {
      return refuse(tool, 'issues no tokens');
    }
    return { tool, service };
  });
  const endpoints: Record<string, AgentEndpoint> = {};
  for (const { tool, service } of services) {
    const token = (await issue(tool)) ?? refuse(tool, 'issues no tokens');
    endpoints[tool] = { baseUrl: `${gatewayUrl}/e/${episode.id}/${tool}${service.basePath}`, token };
  }
  return endpoints;
};
