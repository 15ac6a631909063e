import {
  admitsAnonymous,
  credentialPlaces,
  CredentialPlace,
  declaredSchemes,
  describePlace,
  operationSecurity,
  SecurityAlternatives,
} from '@libs/openapi-schemas';
import type { ServiceModel } from '@libs/stack-ingestion';

import type { ServiceCredentials } from './episode-credentials';
import type { OperationPlan } from './operation-plan';
import type { TwinRequest } from './twin-http';

const tokenPattern = /^mirror_([0-9a-f]{32})_(.+)$/;
/** A claim's scopes follow its principal after the last `~`: `*` for every scope, else base64url of the list. */
const allScopes = '*';

/** Who a genuine token is and what it may do; `scopes` undefined means every scope the service declares. */
interface Holder {
  principal: string;
  scopes?: ReadonlySet<string>;
}

export type Admission =
  | { admitted: true; principal?: string }
  | {
      admitted: false;
      status: 401 | 403;
      code: 'unauthorized' | 'invalid_token' | 'insufficient_scope';
      message: string;
      /** The `WWW-Authenticate` challenges: each scheme the operation takes, by name. */
      challenge: string;
      /** The caller, when its token is genuine and only lacks a scope. */
      principal?: string;
    };

const claimOf = (principal: string, scopes: readonly string[] | undefined): string =>
  scopes === undefined && !principal.includes('~')
    ? principal
    : `${principal}~${scopes === undefined ? allScopes : Buffer.from(scopes.join(' ')).toString('base64url')}`;

const holderOf = (claim: string): Holder => {
  const at = claim.lastIndexOf('~');
  if (at < 0) {
    return { principal: claim };
  }
  const encoded = claim.slice(at + 1);
  const principal = claim.slice(0, at);
  return encoded === allScopes
    ? { principal }
    : { principal, scopes: new Set(Buffer.from(encoded, 'base64url').toString('utf8').split(' ').filter(Boolean)) };
};

const quoted = (text: string): string => `"${text.replace(/["\\]/g, '\\$&')}"`;

/**
 * Who calls a twin of a client's own spec, as the spec declares it per operation: the operation's `security`
 * alternatives (else the document's), each an AND of schemes, read where each scheme puts its credential (a bearer,
 * basic or other `Authorization`, an API key header, query parameter or cookie), with OAuth2/OpenID Connect scopes.
 * Credentials are episode tokens: a token names its principal (and scopes, when fewer than all) in the clear and is
 * genuine only if its MAC under the episode's secret is, so it opens this service of this episode and nothing else.
 */
export class SpecCredentials {
  /** Lower-case header names the spec's API keys travel in (cookies included): reads must be keyed on them too. */
  readonly headers: readonly string[];
  private readonly schemes: ReturnType<typeof declaredSchemes>;
  /** Every place the service takes a credential: where a call of an anonymous operation may still say who it is. */
  private readonly places: CredentialPlace[];
  private readonly byOperation = new Map<string, SecurityAlternatives>();

  constructor(private readonly service: ServiceModel) {
    this.schemes = declaredSchemes(service.document);
    const places = [...this.schemes.values()].flatMap((scheme) => (scheme.place ? [scheme.place] : []));
    // A spec that declares no security still learns who calls from the bearer token Mirror issues (personas and the
    // agent present one), so its records and refusals are attributed; nothing is enforced there.
    this.places =
      places.length > 0
        ? [...new Map(places.map((place) => [JSON.stringify(place), place])).values()]
        : [{ in: 'bearer' }];
    this.headers = [
      ...new Set(
        this.places.flatMap((place) =>
          place.in === 'header' ? [place.name.toLowerCase()] : place.in === 'cookie' ? ['cookie'] : [],
        ),
      ),
    ];
  }

  /** A principal's token: every scope the service declares unless `scopes` names fewer. */
  static token(credentials: ServiceCredentials, principal: string, scopes?: readonly string[]): string {
    const claim = claimOf(principal, scopes);
    return `mirror_${credentials.mac(claim)}_${claim}`;
  }

  /** What admits a call of the operation: its alternatives, read once per operation. */
  alternatives(plan: OperationPlan): SecurityAlternatives {
    let alternatives = this.byOperation.get(plan.operation.pointer);
    if (!alternatives) {
      alternatives = operationSecurity(this.service.document, plan.operation.pointer, this.schemes);
      this.byOperation.set(plan.operation.pointer, alternatives);
    }
    return alternatives;
  }

  /** Whether the call may go on, and as whom; else the 401 or 403 that says what to present and where. */
  admit(plan: OperationPlan, request: TwinRequest, credentials: ServiceCredentials): Admission {
    const alternatives = this.alternatives(plan);
    if (admitsAnonymous(alternatives)) {
      // Anyone may call; a genuine token presented anywhere the service takes one still says who called.
      const principal = this.places
        .map((place) => this.holder(this.read(place, request), credentials))
        .find((holder) => holder !== undefined)?.principal;
      return { admitted: true, ...(principal !== undefined ? { principal } : {}) };
    }
    let invalid: CredentialPlace | undefined;
    let lacking: { principal: string; scopes: string[] } | undefined;
    for (const alternative of alternatives) {
      const holders = credentialPlaces(alternative).map((place) => ({
        place,
        token: this.read(place, request),
      }));
      if (holders.some((h) => h.token === undefined)) {
        continue;
      }
      const verified = holders.map((h) => ({ ...h, holder: this.holder(h.token, credentials) }));
      const forged = verified.find((v) => v.holder === undefined);
      const principals = new Set(verified.map((v) => v.holder?.principal));
      if (forged || principals.size !== 1) {
        invalid ??= (forged ?? verified[0]).place;
        continue;
      }
      const holder = verified[0].holder as Holder;
      const missing = alternative.flatMap((requirement) =>
        requirement.scopes.filter((scope) => holder.scopes !== undefined && !holder.scopes.has(scope)),
      );
      if (missing.length > 0) {
        lacking ??= { principal: holder.principal, scopes: [...new Set(missing)] };
        continue;
      }
      return { admitted: true, principal: holder.principal };
    }
    const operation = `${plan.operation.method.toUpperCase()} ${plan.operation.path.replace(/#.*$/, '')}`;
    if (lacking) {
      return {
        admitted: false,
        status: 403,
        code: 'insufficient_scope',
        message: `the token lacks the scope this operation needs (${lacking.scopes.join(', ')}): present a token granted ${lacking.scopes.length > 1 ? 'them' : 'it'}`,
        challenge: this.challenge(
          alternatives,
          `error="insufficient_scope", scope=${quoted(lacking.scopes.join(' '))}`,
        ),
        principal: lacking.principal,
      };
    }
    if (invalid) {
      return {
        admitted: false,
        status: 401,
        code: 'invalid_token',
        message: `the credential in ${describePlace(invalid).replace(/^(an|the token in the) /, 'the ')} is not valid for this service: present the token issued for it in this episode`,
        challenge: this.challenge(alternatives, 'error="invalid_token"'),
      };
    }
    const ways = alternatives.map((alternative) => credentialPlaces(alternative).map(describePlace).join(' and '));
    return {
      admitted: false,
      status: 401,
      code: 'unauthorized',
      message: `${operation} needs a credential: ${ways.join(', or ')}, with the token issued for this service`,
      challenge: this.challenge(alternatives),
    };
  }

  /** The caller, when the call presents a genuine token of this episode and service where the operation takes one. */
  principal(plan: OperationPlan, request: TwinRequest, credentials: ServiceCredentials): string | undefined {
    return this.admit(plan, request, credentials).principal;
  }

  /** The principal a presented token claims, genuine or not; `{}` when it names none; undefined when none is shown. */
  claimed(plan: OperationPlan, request: TwinRequest): { claimed?: string } | undefined {
    const alternatives = this.alternatives(plan);
    const places = alternatives.length > 0 ? alternatives.flatMap(credentialPlaces) : this.places;
    const token = places.map((place) => this.read(place, request)).find((value) => value !== undefined);
    if (token === undefined) {
      return undefined;
    }
    const claim = tokenPattern.exec(token)?.[2];
    return claim !== undefined ? { claimed: holderOf(claim).principal.slice(0, 200) } : {};
  }

  private holder(token: string | undefined, credentials: ServiceCredentials): Holder | undefined {
    const match = tokenPattern.exec(token ?? '');
    return match && credentials.verify(match[2], match[1]) ? holderOf(match[2]) : undefined;
  }

  /** The credential a call presents in one place, genuine or not. */
  private read(place: CredentialPlace, request: TwinRequest): string | undefined {
    const authorization = request.headers.authorization?.trim() ?? '';
    const value = (() => {
      switch (place.in) {
        case 'bearer':
          return /^Bearer\s+(.+)$/i.exec(authorization)?.[1];
        case 'authorization':
          return authorization.toLowerCase().startsWith(`${place.scheme.toLowerCase()} `)
            ? authorization.slice(place.scheme.length + 1)
            : undefined;
        case 'basic': {
          const encoded = /^Basic\s+(.+)$/i.exec(authorization)?.[1];
          if (!encoded) {
            return undefined;
          }
          const decoded = Buffer.from(encoded.trim(), 'base64').toString('utf8');
          // Either half may carry the token: clients put an API key as the user name or as the password.
          return decoded.split(':').find((part) => tokenPattern.test(part)) ?? decoded;
        }
        case 'header':
          return request.headers[place.name.toLowerCase()];
        case 'query':
          return request.query.get(place.name) ?? undefined;
        case 'cookie': {
          const cookie = request.headers.cookie;
          const escaped = place.name.replace(/[^\w-]/g, '\\$&');
          const raw = cookie ? new RegExp(`(?:^|;\\s*)${escaped}=([^;]*)`).exec(cookie)?.[1] : undefined;
          try {
            return raw === undefined ? undefined : decodeURIComponent(raw);
          } catch {
            return raw;
          }
        }
      }
    })();
    const trimmed = value?.trim();
    return trimmed ? trimmed : undefined;
  }

  /** One challenge per scheme the operation takes (RFC 9110 §11.6.1), naming this service as the realm. */
  private challenge(alternatives: SecurityAlternatives, bearerError?: string): string {
    const realm = `realm=${quoted(this.service.name)}`;
    const challenges = alternatives.flatMap(credentialPlaces).map((place) => {
      switch (place.in) {
        case 'bearer':
          return `Bearer ${realm}${bearerError ? `, ${bearerError}` : ''}`;
        case 'basic':
          return `Basic ${realm}, charset="UTF-8"`;
        case 'authorization':
          return `${place.scheme} ${realm}`;
        default:
          // API keys have no registered scheme; the challenge still says where the key goes.
          return `ApiKey ${realm}, in=${quoted(place.in)}, name=${quoted(place.name)}`;
      }
    });
    return [...new Set(challenges)].join(', ');
  }
}
