import { EpisodeCredentials, newEpisodeSecret } from './episode-credentials';
import { isTraversal } from './http/gateway-server';

describe(EpisodeCredentials.name, () => {
  it('draws a fresh 256-bit secret each time', () => {
    const secrets = new Set(Array.from({ length: 100 }, newEpisodeSecret));
    expect(secrets.size).toBe(100);
    expect(Buffer.from([...secrets][0], 'base64url')).toHaveLength(32);
  });

  it('accepts a MAC only for its own secret, service and principal', () => {
    const sut = new EpisodeCredentials(newEpisodeSecret());
    const mac = sut.for('erp').mac('E0003');
    expect(mac).toMatch(/^[0-9a-f]{32}$/);
    expect(sut.for('erp').verify('E0003', mac)).toBe(true);
    expect(sut.for('erp').verify('E0004', mac)).toBe(false);
    expect(sut.for('slack').verify('E0003', mac)).toBe(false);
    expect(new EpisodeCredentials(newEpisodeSecret()).for('erp').verify('E0003', mac)).toBe(false);
    expect(sut.for('erp').verify('E0003', mac.slice(0, 31))).toBe(false);
    expect(sut.for('erp').verify('E0003', '')).toBe(false);
  });
});

describe('isTraversal', () => {
  it.each([
    '/e/x/erp/../_mirror',
    '/e/x/erp/./users',
    '/e/x/erp/%2e%2e/_mirror',
    '/e/x/erp/%2E./_mirror',
    '/e/x/erp/..%2F_mirror',
    '/e/x/erp/a%2fb',
    '/e/x/erp/a%5Cb',
    '/e/x/erp/a\\b',
  ])('refuses %s', (path) => {
    expect(isTraversal(path)).toBe(true);
  });

  it.each([
    '/e/x/erp/api/v1/purchase-orders/PO-2026-0001',
    '/e/x/slack/api/chat.postMessage',
    '/e/x/email/v1.0/me/messages/AAMk%3D',
    '/a/..b/c.',
    // A broken escape spells no dot segment: the twin refuses it with 400 in its own API's error shape.
    '/e/x/erp/%E0%A4%A',
  ])('lets %s through', (path) => {
    expect(isTraversal(path)).toBe(false);
  });
});
