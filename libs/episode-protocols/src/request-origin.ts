import type { IncomingHttpHeaders } from 'node:http';

import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

/** The host names the protocols answer by default: localhost only, where `mirror up` listens. */
export const defaultAllowedHostnames = (): string[] => localhostAllowedHostnames();

/**
 * Why a request may not be served, or undefined when it may: DNS-rebinding protection, as the MCP transport spec asks
 * of servers (a web page must not reach a local episode by renaming its own host). A `Host` outside the allowed names
 * or a browser `Origin` from elsewhere is refused; clients that are not browsers send no `Origin`.
 */
export const hostRefusal = (headers: IncomingHttpHeaders, allowedHostnames: string[]): string | undefined => {
  const host = validateHostHeader(headers.host, allowedHostnames);
  if (!host.ok) {
    return host.message;
  }
  const origin = validateOriginHeader(headers.origin, allowedHostnames);
  return origin.ok ? undefined : origin.message;
};
