import type { ServiceCredentials } from '../episode-credentials';
import type { PackCall } from '../packs/twin-pack';

const base64url = (value: string): string => Buffer.from(value).toString('base64url');
const jwtHeader = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));

/**
 * A token in the shape PostgREST clients carry (a JWT: header, claims with `sub` and `role`, signature), signed with
 * the episode's MAC of the principal: it names its principal in the clear and is genuine only if the MAC is.
 */
export const postgrestToken = (credentials: ServiceCredentials, principal: string): string =>
  `${jwtHeader}.${base64url(JSON.stringify({ role: 'authenticated', sub: principal }))}.${credentials.mac(principal)}`;

/** The token a call presents: a bearer `Authorization`, else Supabase's `apikey` header. */
export const presented = (call: PackCall): string | undefined => {
  const authorization = call.request.headers.authorization;
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  return bearer ?? call.request.headers.apikey?.trim();
};

/** What a token claims, genuine or not: its `sub` and signature. */
export const claimOf = (token: string): { sub?: string; mac: string } => {
  const [, claims = '', mac = ''] = token.split('.');
  try {
    const parsed = JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')) as { sub?: unknown };
    return { ...(typeof parsed.sub === 'string' ? { sub: parsed.sub } : {}), mac };
  } catch {
    return { mac };
  }
};

/** The caller, when its token is genuine for this episode and service. */
export const callerOf = (call: PackCall): string | undefined => {
  const token = presented(call);
  const claim = token === undefined ? undefined : claimOf(token);
  return claim?.sub !== undefined && call.credentials.verify(claim.sub, claim.mac) ? claim.sub : undefined;
};
