import type { ToolDefinition } from './tool-contract';

/** The episode's own verbs, after every service's tools: the agent's way to let time pass and to say it is done. */
export const episodeVerbTools = (): ToolDefinition[] => [
  {
    name: 'wait_for_events',
    description:
      'Let business time pass until someone else acts (a reply, an approval, a new request) or the days given have ' +
      'passed; answers what was addressed to you meanwhile (mail to you, messages naming you): read channels and ' +
      'mailboxes for the rest. Use it when the task waits on others.',
    inputSchema: {
      type: 'object',
      properties: {
        business_days: {
          type: 'number',
          exclusiveMinimum: 0,
          description: 'The most business days to wait (default: until the next event)',
        },
      },
      additionalProperties: false,
    },
    annotations: {
      title: 'Wait for events',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    target: { kind: 'wait_for_events' },
  },
  {
    name: 'finish_episode',
    description: 'Say the task is done. The episode ends and is graded; no tool works after it.',
    inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
    annotations: {
      title: 'Finish the episode',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    },
    target: { kind: 'finish_episode' },
  },
];
