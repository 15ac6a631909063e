import type { ServiceModel } from '@libs/stack-ingestion';

import type { ServiceCredentials } from './episode-credentials';
import type { TwinRequest } from './twin-http';

const tokenPattern = /^mirror_([0-9a-f]{32})_(.+)$/;

/**
 * Who calls a twin of a client's own spec, when its world has people (a company): every call presents an episode
 * token where the spec's security schemes put credentials (a bearer or basic `Authorization`, an API key header,
 * query parameter or cookie), so each call is someone's and the agent acts only as itself. The token names its
 * principal in the clear and is genuine only if its MAC under the episode's secret is.
 */
export class SpecCredentials {
  /** Lower-case header names the spec's API keys travel in (cookies included): reads must be keyed on them too. */
  readonly headers: readonly string[];
  private readonly keyHeaders: readonly string[];
  private readonly queryKeys: readonly string[];
  private readonly cookies: readonly string[];

  constructor(service: ServiceModel) {
    const keys = service.securitySchemes.filter((scheme) => scheme.type === 'apiKey' && scheme.parameterName);
    const named = (place: string) =>
      keys.filter((scheme) => scheme.in === place).map((scheme) => scheme.parameterName as string);
    this.keyHeaders = named('header').map((name) => name.toLowerCase());
    this.queryKeys = named('query');
    this.cookies = named('cookie');
    this.headers = [...this.keyHeaders, ...(this.cookies.length > 0 ? ['cookie'] : [])];
  }

  static token(credentials: ServiceCredentials, principal: string): string {
    return `mirror_${credentials.mac(principal)}_${principal}`;
  }

  /** The credential a call presents, genuine or not, wherever the spec lets a client put one. */
  presented(request: TwinRequest): string | undefined {
    const authorization = request.headers.authorization?.trim();
    const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1];
    if (bearer) {
      return bearer.trim();
    }
    const basic = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
    if (basic) {
      const decoded = Buffer.from(basic, 'base64').toString('utf8');
      // Either half may carry the token: clients put an API key as the user name or as the password.
      return decoded.split(':').find((part) => tokenPattern.test(part)) ?? decoded;
    }
    for (const header of this.keyHeaders) {
      const value = request.headers[header]?.trim();
      if (value) {
        return value;
      }
    }
    for (const key of this.queryKeys) {
      const value = request.query.get(key);
      if (value) {
        return value;
      }
    }
    const cookie = request.headers.cookie;
    for (const name of cookie ? this.cookies : []) {
      const value = new RegExp(`(?:^|;\\s*)${name.replace(/[^\w-]/g, '\\$&')}=([^;]*)`).exec(cookie as string)?.[1];
      if (value) {
        return decodeURIComponent(value);
      }
    }
    return undefined;
  }

  /** The principal a presented token claims, genuine or not; `{}` when it names none. */
  claimed(request: TwinRequest): { claimed?: string } | undefined {
    const token = this.presented(request);
    if (token === undefined) {
      return undefined;
    }
    const claimed = tokenPattern.exec(token)?.[2];
    return claimed !== undefined ? { claimed: claimed.slice(0, 200) } : {};
  }

  /** The caller, when the call presents a genuine token of this episode and service. */
  principal(request: TwinRequest, credentials: ServiceCredentials): string | undefined {
    const match = tokenPattern.exec(this.presented(request) ?? '');
    return match && credentials.verify(match[2], match[1]) ? match[2] : undefined;
  }
}
