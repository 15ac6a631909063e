import { TwinPack } from '@libs/twin-engine';

import { graphError, mailBehaviours, mailPrincipal, presentedToken } from './mail-behaviours';
import { mailToken } from './mail-ids';
import { mailboxRows, seedMail } from './mail-seed';
import { mailEventNames } from './mail-events';

export type { MailDomainEvents } from './mail-events';
export { mailboxId, mailToken } from './mail-ids';

const graphCodes: Record<string, string> = {
  invalid_request: 'BadRequest',
  unknown_method: 'BadRequest',
  method_not_allowed: 'BadRequest',
  rate_limited: 'TooManyRequests',
  service_unavailable: 'ServiceNotAvailable',
  timeout: 'GatewayTimeout',
};

/** Mail the Microsoft Graph way: a mailbox per person of the company and per supplier contact (see README.md). */
export const emailPack: TwinPack = {
  name: 'email',
  seed: seedMail,
  // Someone outside the company writes from their own mailbox, at their own domain.
  enrol: (person, seed) =>
    mailboxRows(
      {
        address: person.address.toLowerCase(),
        name: person.name,
        givenName: person.name.split(' ')[0],
        surname: person.name.split(' ').slice(1).join(' '),
        jobTitle: '',
        department: null,
        companyName: person.address.split('@')[1] ?? '',
      },
      seed,
    ),
  behaviours: mailBehaviours,
  validate: true,
  principal: mailPrincipal,
  domainEventNames: mailEventNames,
  token: (principal, credentials) => mailToken(credentials, principal),
  agentPrincipal: (company) => company.agent.email,
  presentedCredential: presentedToken,
  errorResponse: (status, code, message) => graphError(status, graphCodes[code] ?? code, message).response,
};
