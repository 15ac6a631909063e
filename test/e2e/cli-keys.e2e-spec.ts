import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';

import { createApiApp } from '@api/bootstrap';
import { loadConfig } from '@libs/config';
import { AuditTrailRepository, createDataSource } from '@libs/persistence';
import { bearer } from '@test/support/api-keys';
import { runCli } from '@test/support/cli-runner';
import { createTestDatabase } from '@test/support/test-services';

/**
 * The operator's bootstrap: `mirror keys create` on the database makes a tenant's first admin key, which then works
 * against the api app. Real: the built CLI in its own process, PostgreSQL, the api app. Mocked: nothing.
 */
describe('mirror keys', () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataSource: DataSource;
  let app: INestApplication;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { DATABASE_URL: database.url };
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    app = await createApiApp(loadConfig({ DATABASE_URL: database.url }), dataSource, false);
    await app.init();
  });

  afterAll(async () => {
    await app.close();
    await dataSource.destroy();
    await database.drop();
  });

  it('makes a first admin key that opens the api, lists it without its secret, and revokes it', async () => {
    const created = await runCli(['keys', 'create', '--tenant', 'globex', '--role', 'admin', '--expires', '30d'], env);
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token).toMatch(/^mk_[0-9a-f]{16}_[\w-]{43}$/);
    expect(created.stderr).toMatch(/admin of tenant globex, expires .*Shown once/);
    const id = token.slice(3, 19);

    const made = await request(app.getHttpServer())
      .post('/v1/keys')
      .set(bearer(token))
      .send({ role: 'reviewer' })
      .expect(201);
    expect(made.body.tenantId).toBe('globex');

    const listed = await runCli(['keys', 'list', '--tenant', 'globex', '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(token.slice(20));
    expect((JSON.parse(listed.stdout) as { keys: { id: string; role: string }[] }).keys).toEqual([
      expect.objectContaining({ id, role: 'admin', createdBy: expect.stringMatching(/^operator:/) }),
      expect.objectContaining({ id: made.body.id, role: 'reviewer', createdBy: `key:${id}` }),
    ]);

    const foreign = await runCli(['keys', 'revoke', id, '--tenant', 'initech'], env);
    expect([foreign.code, foreign.stderr]).toEqual([2, expect.stringContaining(`no API key ${id} in this tenant`)]);
    const revoked = await runCli(['keys', 'revoke', id, '--tenant', 'globex'], env);
    expect(revoked.code).toBe(0);
    await request(app.getHttpServer()).get('/v1/keys').set(bearer(token)).expect(401);

    const actions = (await new AuditTrailRepository(dataSource).forSubject('globex', 'api_key', id)).map(
      (e) => e.action,
    );
    expect(actions).toEqual(['api_key.created', 'api_key.revoked']);
  });

  it('makes keys that expire in 90 days by default, and one that never expires only with --expires never', async () => {
    const lasting = await runCli(['keys', 'create', '--tenant', 'globex', '--role', 'reviewer', '--json'], env);
    expect(lasting.code).toBe(0);
    const days =
      (Date.parse((JSON.parse(lasting.stdout) as { expiresAt: string }).expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);
    const forever = await runCli(
      ['keys', 'create', '--tenant', 'globex', '--role', 'reviewer', '--expires', 'never'],
      env,
    );
    expect([forever.code, forever.stderr]).toEqual([0, expect.stringContaining('never expires')]);
  });

  it.each([
    [
      ['keys', 'create', '--tenant', 'globex', '--role', 'superuser'],
      /Allowed choices are engineer, trainer, reviewer, admin/,
    ],
    [['keys', 'create', '--tenant', 'globex'], /required option '--role <role>'/],
    [
      ['keys', 'create', '--tenant', 'globex', '--role', 'trainer', '--expires', 'soon'],
      /--expires soon: give a lifetime/,
    ],
    [['keys', 'create', '--tenant', 'a b', '--role', 'trainer'], /--tenant a b: letters, digits/],
  ])('refuses %j as a usage error and makes no key', async (args, message) => {
    const before = (await dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM api_keys'))[0].n;

    const result = await runCli(args, env);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect((await dataSource.query<{ n: number }[]>('SELECT count(*)::int AS n FROM api_keys'))[0].n).toBe(before);
  });
});
