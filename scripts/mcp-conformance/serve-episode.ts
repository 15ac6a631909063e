/**
 * Serves one episode's MCP endpoint for the conformance suite and MCP Inspector, which cannot send a bearer token:
 * a localhost proxy adds the episode's token to every request and forwards it unchanged, so what is tested is the
 * endpoint itself. Without arguments the episode is an in-memory one (test/support); with `--target <episode MCP URL>
 * --token <token>` it is a running Mirror's (`mirror up`). Prints one JSON line `{"url": …, "base_url": …}` when ready.
 */
import { createServer, request as httpRequest } from 'node:http';
import { AddressInfo } from 'node:net';

import { InMemoryEpisodes } from '@test/support/episode-protocols/in-memory-episodes';
import { serveProtocols } from '@test/support/episode-protocols/protocol-server';

const option = (name: string): string | undefined => {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? undefined : process.argv[index + 1];
};

const episodeEndpoint = async (): Promise<{ target: URL; token: string; baseUrl?: string }> => {
  const target = option('target');
  const token = option('token');
  if (target !== undefined && token !== undefined) {
    return { target: new URL(target), token };
  }
  const episodes = new InMemoryEpisodes();
  const served = await serveProtocols(episodes);
  const start = await episodes.start({ environment: 'shop', task: 'refund@1' });
  return {
    target: new URL(`${served.baseUrl}/v1/episodes/${start.episodeId}/mcp`),
    token: start.token,
    baseUrl: served.baseUrl,
  };
};

const main = async (): Promise<void> => {
  const { target, token, baseUrl } = await episodeEndpoint();
  const proxy = createServer((incoming, outgoing) => {
    const forwarded = httpRequest(
      {
        hostname: target.hostname,
        port: target.port,
        method: incoming.method,
        path: target.pathname,
        // The client's Host and Origin pass unchanged, so host and origin checks still see them.
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on('error', () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const { port } = proxy.address() as AddressInfo;
  // `base_url`: the in-memory protocols themselves (its OpenEnv environment is `shop`), for the OpenEnv client check.
  // `--print-episode` adds the episode's own URL and token, for clients that can send the token themselves.
  const episode = process.argv.includes('--print-episode') ? { episode_url: target.href, token } : {};
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, base_url: baseUrl, ...episode })}\n`);
};

main().catch((error: unknown) => {
  process.stderr.write(`serve-episode: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
