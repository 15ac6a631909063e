/**
 * Security as an OpenAPI 3.x document declares it (Swagger 2.0's `securityDefinitions` arrive converted): the schemes
 * of `components.securitySchemes`, and per operation the alternatives a call may satisfy (`security`, else the
 * document's default), each an AND of schemes with the scopes it needs. Twins enforce it and clients place their
 * credential by it, so both read it here.
 */

/** Where a scheme's credential travels: an `Authorization` header (`bearer`, `basic`, another HTTP scheme) or a named key. */
export type CredentialPlace =
  | { in: 'bearer' }
  | { in: 'basic' }
  /** An HTTP scheme other than bearer or basic (`Digest`, `Token`): `Authorization: <scheme> <credential>`. */
  | { in: 'authorization'; scheme: string }
  | { in: 'header' | 'query' | 'cookie'; name: string };

export interface DeclaredScheme {
  /** The scheme's key in `components.securitySchemes`. */
  name: string;
  /** `http`, `apiKey`, `oauth2`, `openIdConnect` (or whatever the spec says; unknown kinds cannot be placed). */
  type: string;
  place?: CredentialPlace;
  /** Every scope an OAuth2 scheme's flows declare; none for other schemes. */
  scopes: string[];
}

export interface SecurityRequirement {
  scheme: DeclaredScheme;
  /** The scopes this requirement names (OAuth2 / OpenID Connect); the others' lists are roles, not checked. */
  scopes: string[];
}

/** Alternatives of requirements, any one of which admits a call; an empty alternative admits anyone. */
export type SecurityAlternatives = SecurityRequirement[][];

const asRecord = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Follows local `$ref`s (a scheme or a path item may be one) at every step, a few deep. */
const followed = (document: Record<string, unknown>, value: unknown, depth = 0): Record<string, unknown> => {
  const current = asRecord(value);
  if (depth > 8 || typeof current.$ref !== 'string' || !current.$ref.startsWith('#/')) {
    return current;
  }
  return current.$ref
    .slice(2)
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<Record<string, unknown>>((at, part) => followed(document, at[part], depth + 1), document);
};

const placeOf = (scheme: Record<string, unknown>): CredentialPlace | undefined => {
  const type = typeof scheme.type === 'string' ? scheme.type : '';
  if (type === 'oauth2' || type === 'openIdConnect') {
    // Resource servers take OAuth2 and OpenID Connect access tokens as bearer tokens (RFC 6750).
    return { in: 'bearer' };
  }
  if (type === 'http') {
    const http = typeof scheme.scheme === 'string' ? scheme.scheme.trim() : '';
    const lower = http.toLowerCase();
    return lower === 'bearer' || lower === ''
      ? { in: 'bearer' }
      : lower === 'basic'
        ? { in: 'basic' }
        : { in: 'authorization', scheme: http };
  }
  if (type === 'apiKey' && typeof scheme.name === 'string' && scheme.name !== '') {
    const where = scheme.in;
    return where === 'header' || where === 'query' || where === 'cookie' ? { in: where, name: scheme.name } : undefined;
  }
  return undefined;
};

/** The document's security schemes by name. */
export const declaredSchemes = (document: Record<string, unknown>): Map<string, DeclaredScheme> =>
  new Map(
    Object.entries(asRecord(asRecord(document.components).securitySchemes)).map(([name, raw]) => {
      const scheme = followed(document, raw);
      const place = placeOf(scheme);
      const scopes = Object.values(asRecord(scheme.flows)).flatMap((flow) =>
        Object.keys(asRecord(asRecord(flow).scopes)),
      );
      return [name, { name, type: String(scheme.type), ...(place ? { place } : {}), scopes: [...new Set(scopes)] }];
    }),
  );

/**
 * The alternatives that admit a call of the operation at `pointer` (its `security`, else the document's): [] when
 * neither declares any, so nothing is asked. An alternative naming a scheme the document does not declare, or one
 * no client could place, is left out: a call cannot satisfy what the spec does not say how to send.
 */
export const operationSecurity = (
  document: Record<string, unknown>,
  pointer: string,
  schemes: Map<string, DeclaredScheme> = declaredSchemes(document),
): SecurityAlternatives => {
  const operation = followed(document, { $ref: `#${pointer}` });
  const declared = operation.security !== undefined ? operation.security : document.security;
  if (!Array.isArray(declared)) {
    return [];
  }
  return declared.flatMap((raw) => {
    const requirements = Object.entries(asRecord(raw)).map(([name, scopes]) => ({
      scheme: schemes.get(name),
      scopes: Array.isArray(scopes) ? scopes.map(String) : [],
    }));
    if (requirements.some((r) => r.scheme?.place === undefined)) {
      return [];
    }
    return [
      requirements.map((r) => ({
        scheme: r.scheme as DeclaredScheme,
        scopes: r.scheme?.type === 'oauth2' || r.scheme?.type === 'openIdConnect' ? r.scopes : [],
      })),
    ];
  });
};

/** Whether the operation admits a call without any credential (no security, or an empty alternative). */
export const admitsAnonymous = (alternatives: SecurityAlternatives): boolean =>
  alternatives.length === 0 || alternatives.some((alternative) => alternative.length === 0);

/** Where a client puts one credential to satisfy an alternative: each of its schemes' places, once each. */
export const credentialPlaces = (alternative: SecurityRequirement[]): CredentialPlace[] => {
  const seen = new Set<string>();
  return alternative.flatMap(({ scheme }) => {
    const place = scheme.place as CredentialPlace;
    const key = JSON.stringify(place);
    if (seen.has(key)) {
      return [];
    }
    seen.add(key);
    return [place];
  });
};

/** How a place reads to a person: what to send and where (`an Authorization: Bearer <token> header`). */
export const describePlace = (place: CredentialPlace): string => {
  switch (place.in) {
    case 'bearer':
      return 'an "Authorization: Bearer <token>" header';
    case 'basic':
      return 'an "Authorization: Basic <base64 of token:>" header (the token as user name)';
    case 'authorization':
      return `an "Authorization: ${place.scheme} <token>" header`;
    case 'header':
      return `the token in the "${place.name}" header`;
    case 'query':
      return `the token in the "${place.name}" query parameter`;
    case 'cookie':
      return `the token in the "${place.name}" cookie`;
  }
};

/** A request's credential parts for one token put in the given places. */
export const placeCredential = (
  places: readonly CredentialPlace[],
  token: string,
): { headers: Record<string, string>; query: [string, string][] } => {
  const headers: Record<string, string> = {};
  const query: [string, string][] = [];
  const cookies: string[] = [];
  for (const place of places) {
    switch (place.in) {
      case 'bearer':
        headers.authorization = `Bearer ${token}`;
        break;
      case 'basic':
        headers.authorization = `Basic ${Buffer.from(`${token}:`).toString('base64')}`;
        break;
      case 'authorization':
        headers.authorization = `${place.scheme} ${token}`;
        break;
      case 'header':
        headers[place.name.toLowerCase()] = token;
        break;
      case 'query':
        query.push([place.name, token]);
        break;
      case 'cookie':
        cookies.push(`${place.name}=${encodeURIComponent(token)}`);
        break;
    }
  }
  return { headers: cookies.length > 0 ? { ...headers, cookie: cookies.join('; ') } : headers, query };
};
