import { isOutcome, TwinPack } from '@libs/twin-engine';

import { slackBehaviours } from './slack-behaviours';
import { authenticate, readArgs, slackErrorResponse } from './slack-call';
import { slackToken } from './slack-ids';
import { seedSlack } from './slack-seed';
import { slackEventNames } from './slack-events';

export type { SlackDomainEvents } from './slack-events';
export { slackToken, teamId } from './slack-ids';
export { slackUserId } from './slack-seed';
export { slackMethods } from './slack-methods';

/** Slack's Web API: the methods in `slack-methods.ts`, over the stack's company (see README.md). */
export const slackPack: TwinPack = {
  name: 'slack',
  seed: seedSlack,
  // The spec's operation ids spell methods with underscores (`chat_postMessage`).
  behaviours: Object.fromEntries(
    Object.entries(slackBehaviours).map(([method, behaviour]) => [method.replace(/\./g, '_'), behaviour]),
  ),
  anyMethod: true,
  principal: (call) => {
    const args = readArgs(call);
    const caller = typeof args === 'string' ? undefined : authenticate(call, args);
    return caller && !isOutcome(caller) ? caller.employee : undefined;
  },
  domainEventNames: slackEventNames,
  agentToken: (company, seed) => slackToken(seed, company.agent.id),
  errorResponse: (status, code) => slackErrorResponse(status, code),
};
