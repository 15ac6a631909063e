import { isOutcome, TwinPack } from '@libs/twin-engine';

import { slackBehaviours } from './slack-behaviours';
import { authenticate, presentedToken, readArgs, slackErrorResponse } from './slack-call';
import { slackToken } from './slack-ids';
import { seedSlack } from './slack-seed';
import { slackEventNames } from './slack-events';

export type { SlackDomainEvents } from './slack-events';
export { slackToken, teamId } from './slack-ids';
export { slackUserId } from './slack-seed';
export { slackMethods } from './slack-methods';

/** Slack errors that refuse a caller's rights or a record's state (not a malformed call), as the status they stand for. */
const slackRefusals: Record<string, number> = {
  cant_update_message: 403,
  cant_delete_message: 403,
  not_in_channel: 403,
  restricted_action: 403,
  is_archived: 409,
  name_taken: 409,
  already_reacted: 409,
  // A token that is not genuine (forged, another episode's): Slack answers it with HTTP 200 too.
  invalid_auth: 401,
};

/** Slack's Web API: the methods in `slack-methods.ts`, over the stack's company (see README.md). */
export const slackPack: TwinPack = {
  name: 'slack',
  seed: seedSlack,
  // The spec's operation ids spell methods with underscores (`chat_postMessage`).
  behaviours: Object.fromEntries(
    Object.entries(slackBehaviours).map(([method, behaviour]) => [method.replace(/\./g, '_'), behaviour]),
  ),
  anyMethod: true,
  refusal: (response) => {
    const error = (response.body as { ok?: boolean; error?: string } | undefined)?.error;
    const status = error ? slackRefusals[error] : undefined;
    return status ? { status, reason: error as string } : undefined;
  },
  principal: (call) => {
    const args = readArgs(call);
    const caller = typeof args === 'string' ? undefined : authenticate(call, args);
    return caller && !isOutcome(caller) ? caller.employee : undefined;
  },
  domainEventNames: slackEventNames,
  token: (principal, credentials) => slackToken(credentials, principal),
  agentPrincipal: (company) => company.agent.id,
  presentedCredential: presentedToken,
  errorResponse: (status, code) => slackErrorResponse(status, code),
};
