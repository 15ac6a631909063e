import { expectedRoles } from '@test/support/role-expectations';

import { mintApiKey, parseApiKey, secretMatches } from './api-keys';
import { AccessError, ApiKeyLookup, Authenticator, StoredApiKey } from './authenticator';
import { permissions, permissionsOf, roleCan, roles } from './roles';

/** Keys kept in a map, as the repository keeps them in a table: the authenticator is what is tested. */
const keyStore = () => {
  const rows = new Map<string, StoredApiKey>();
  const lookup: ApiKeyLookup = { findForAuthentication: (id) => Promise.resolve(rows.get(id)) };
  const add = async (fields: Partial<StoredApiKey> = {}) => {
    const key = await mintApiKey();
    rows.set(key.id, {
      id: key.id,
      tenantId: 'tenant-a',
      role: 'trainer',
      salt: key.salt,
      hash: key.hash,
      expiresAt: null,
      revokedAt: null,
      ...fields,
    });
    return key;
  };
  return { rows, lookup, add };
};

const refusal = async (work: Promise<unknown>): Promise<{ status: number; message: string }> => {
  try {
    await work;
  } catch (error) {
    if (error instanceof AccessError) {
      return { status: error.status, message: error.message };
    }
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('API keys', () => {
  it('are shown once as mk_<id>_<secret> and stored as a salted scrypt hash the secret alone matches', async () => {
    const key = await mintApiKey();
    const parsed = parseApiKey(key.token)!;

    expect(parsed.id).toBe(key.id);
    expect(key.hash.toString('hex')).not.toContain(parsed.secret);
    await expect(secretMatches(parsed.secret, key.salt, key.hash)).resolves.toBe(true);
    const altered = `${parsed.secret[0] === 'A' ? 'B' : 'A'}${parsed.secret.slice(1)}`;
    await expect(secretMatches(altered, key.salt, key.hash)).resolves.toBe(false);
    const other = await mintApiKey();
    expect(other.salt.equals(key.salt)).toBe(false);
    await expect(secretMatches(parsed.secret, other.salt, key.hash)).resolves.toBe(false);
  });

  it.each(['', 'mk_', 'mk_0123456789abcdef', 'mk_0123456789ABCDEF_' + 'a'.repeat(43), 'bearer', 'mk_x_y'])(
    'refuses %j as no key',
    (text) => {
      expect(parseApiKey(text)).toBeUndefined();
    },
  );
});

describe('Authenticator', () => {
  it('derives tenant and role from a valid key, not from anything the caller says', async () => {
    const store = keyStore();
    const key = await store.add({ tenantId: 'tenant-b', role: 'reviewer' });

    await expect(new Authenticator(store.lookup).authenticate(`Bearer ${key.token}`)).resolves.toEqual({
      tenantId: 'tenant-b',
      role: 'reviewer',
      actor: `key:${key.id}`,
    });
  });

  it.each([
    [undefined, /missing API key/],
    ['', /missing API key/],
    ['Basic dXNlcjpwYXNz', /Bearer <key>/],
    ['Bearer not-a-key', /not a Mirror API key/],
    [`Bearer mk_0123456789abcdef_${'a'.repeat(43)}`, /unknown API key/],
  ])('answers %j with a 401 naming why', async (header, message) => {
    const store = keyStore();
    await store.add();

    const refused = await refusal(new Authenticator(store.lookup).authenticate(header));

    expect(refused.status).toBe(401);
    expect(refused.message).toMatch(message);
  });

  it('refuses a key with the right id and another secret, also after the right one was accepted', async () => {
    const store = keyStore();
    const key = await store.add();
    const sut = new Authenticator(store.lookup);
    await sut.authenticate(`Bearer ${key.token}`);
    const forged = `mk_${key.id}_${'b'.repeat(43)}`;

    await expect(refusal(sut.authenticate(`Bearer ${forged}`))).resolves.toEqual({
      status: 401,
      message: 'unknown API key',
    });
  });

  it('refuses a revoked or expired key at once, even one it verified before', async () => {
    const store = keyStore();
    const revoked = await store.add();
    const expiring = await store.add({ expiresAt: '2030-01-01T00:00:00.000Z' });
    let now = new Date('2029-12-31T23:59:59.000Z');
    const sut = new Authenticator(store.lookup, () => now);
    await sut.authenticate(`Bearer ${revoked.token}`);
    await sut.authenticate(`Bearer ${expiring.token}`);

    store.rows.get(revoked.id)!.revokedAt = '2029-12-31T00:00:00.000Z';
    now = new Date('2030-01-01T00:00:00.000Z');

    await expect(refusal(sut.authenticate(`Bearer ${revoked.token}`))).resolves.toEqual({
      status: 401,
      message: `API key ${revoked.id} was revoked at 2029-12-31T00:00:00.000Z`,
    });
    await expect(refusal(sut.authenticate(`Bearer ${expiring.token}`))).resolves.toEqual({
      status: 401,
      message: `API key ${expiring.id} expired at 2030-01-01T00:00:00.000Z`,
    });
  });

  it('refuses a key whose stored role is no role with a 403', async () => {
    const store = keyStore();
    const key = await store.add({ role: 'superuser' });

    const refused = await refusal(new Authenticator(store.lookup).authenticate(`Bearer ${key.token}`));

    expect(refused).toEqual({ status: 403, message: `API key ${key.id} holds no known role ("superuser")` });
  });
});

describe('roles', () => {
  it('give the reviewer reads, annotations and sign-off only, and the admin everything', () => {
    expect(permissionsOf('reviewer').filter((p) => !p.endsWith(':read'))).toEqual([
      'review:annotate',
      'review:sign-off',
    ]);
    expect(permissions.every((p) => roleCan('admin', p))).toBe(true);
    expect(roleCan('engineer', 'episodes:run')).toBe(false);
    expect(roleCan('trainer', 'stacks:ingest')).toBe(false);
    expect(roles.filter((r) => roleCan(r, 'keys:manage'))).toEqual(['admin']);
  });

  // The matrices test the permissions routes declare; this one every permission, routed or not.
  it.each(permissions)('give %s to the roles the requirements name', (permission) => {
    expect(roles.filter((r) => roleCan(r, permission))).toEqual(expectedRoles[permission]);
  });
});
