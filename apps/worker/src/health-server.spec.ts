import type { AddressInfo } from 'node:net';

import { startHealthServer } from './health-server';

describe('worker health server', () => {
  it('is live until the worker fails or stops, ready only while it polls, and serves metrics', async () => {
    let state = 'INITIALIZED';
    const server = await startHealthServer({ getState: () => state }, 0, '127.0.0.1');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const status = async (path: string): Promise<number> => (await fetch(`${base}${path}`)).status;
    try {
      expect([await status('/healthz'), await status('/readyz')]).toEqual([200, 503]);
      state = 'RUNNING';
      expect([await status('/healthz'), await status('/readyz')]).toEqual([200, 200]);
      state = 'DRAINING';
      expect([await status('/healthz'), await status('/readyz')]).toEqual([200, 503]);
      state = 'FAILED';
      expect([await status('/healthz'), await status('/readyz')]).toEqual([503, 503]);
      expect(await status('/elsewhere')).toBe(404);
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await metrics.text()).toContain('# TYPE mirror_activity_duration_seconds histogram');
    } finally {
      server.close();
    }
  });
});
