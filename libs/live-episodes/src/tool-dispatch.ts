import type { ToolCall, ToolDefinition, ToolObservation } from '@libs/agent-tools';
import type { AgentSession } from '@libs/reference-agents';

import type { AgentToolkit } from './agent-toolkit';

/** What a tool call needs of an episode's session: the agent's endpoints, and its two verbs. */
export type ToolSession = Pick<AgentSession, 'brief' | 'identity' | 'endpoints' | 'wait' | 'finish'>;

/** One performed call: what the agent observes, whether it counts as a step, and whether it ended the episode. */
export interface PerformedCall {
  observation: ToolObservation;
  counted: boolean;
  ends?: 'finished' | 'horizon';
}

export const refusal = (call: ToolCall, message: string): ToolObservation => ({
  callId: call.id,
  name: call.name,
  isError: true,
  structured: { error: message },
  text: message,
});

/**
 * The prompt every agent of an episode is given, whatever plays it (an outside agent over the API, MCP or OpenEnv, or a
 * model `mirror run` drives): the brief's context, who the agent is, and the policy it works under.
 */
export const episodePrompt = (session: Pick<ToolSession, 'brief' | 'identity'>) => {
  const { brief, identity } = session;
  const system = [
    brief.context,
    `You act as ${identity.name} <${identity.email}>. Use the tools to do the task. Call wait_for_events to let ` +
      'business time pass until someone else acts, and finish_episode once the task is done (or cannot be).',
    ...(brief.policy ? [`The policy you work under:\n\n${brief.policy}`] : []),
  ].join('\n\n');
  return { system, user: brief.goal, policy: brief.policy ?? null };
};

/**
 * Performs one tool call on an episode's session: an operation through the agent's own endpoint, or one of the
 * episode's verbs. Refused calls (unknown tool, arguments that are not JSON or break the schema) reach no twin and
 * count no step; they are answered as error observations.
 */
export const performToolCall = async (
  toolsByName: ReadonlyMap<string, ToolDefinition>,
  session: ToolSession,
  toolkit: Pick<AgentToolkit, 'argumentProblems' | 'callOperation'>,
  call: ToolCall,
): Promise<PerformedCall> => {
  const tool = toolsByName.get(call.name);
  if (!tool) {
    return {
      observation: refusal(
        call,
        `unknown tool "${String(call.name).slice(0, 64)}": this episode's tools are ${[...toolsByName.keys()].join(', ')}`,
      ),
      counted: false,
    };
  }
  if ('unparsable' in call.arguments) {
    return {
      observation: refusal(call, `the arguments of ${tool.name} are not a JSON object: nothing was done`),
      counted: false,
    };
  }
  const args = call.arguments;
  const problems = toolkit.argumentProblems(tool, args);
  if (problems.length > 0) {
    return {
      observation: refusal(call, `the arguments of ${tool.name} break its schema: ${problems.join('; ')}`),
      counted: false,
    };
  }
  switch (tool.target.kind) {
    case 'operation': {
      const endpoint = session.endpoints[tool.target.service];
      if (!endpoint) {
        return {
          observation: refusal(call, `${tool.name}: its service is not open to this episode`),
          counted: false,
        };
      }
      const result = await toolkit.callOperation(tool, args, endpoint);
      return { observation: { callId: call.id, name: call.name, ...result }, counted: true };
    }
    case 'wait_for_events': {
      const days = args.business_days ?? args.businessDays;
      try {
        const waited = await session.wait(typeof days === 'number' ? days : undefined);
        const structured = { now: waited.now, happened: waited.happened, finished: waited.finished };
        const text = [
          `It is now ${waited.now}.`,
          ...waited.happened.map((h) => `[${h.at}] ${h.actor} (${h.kind}): ${h.summary}`),
          ...(waited.finished ? ['The episode has ended: its horizon passed.'] : []),
        ].join('\n');
        return {
          observation: { callId: call.id, name: call.name, isError: false, structured, text },
          counted: true,
          ...(waited.finished ? { ends: 'horizon' as const } : {}),
        };
      } catch (error) {
        if (error instanceof RangeError) {
          return { observation: refusal(call, error.message), counted: false };
        }
        throw error;
      }
    }
    case 'finish_episode': {
      const outcome = await session.finish();
      const structured = { finished: true, status: outcome.status, reason: outcome.reason };
      return {
        observation: {
          callId: call.id,
          name: call.name,
          isError: false,
          structured,
          text: `The episode has ended (${outcome.status}): ${outcome.reason}`,
        },
        counted: true,
        ends: 'finished',
      };
    }
  }
};
