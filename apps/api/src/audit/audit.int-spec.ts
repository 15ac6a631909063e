import { createHash, randomUUID } from 'node:crypto';

import request from 'supertest';
import { DataSource } from 'typeorm';

import { AuditEntry, ChainLink, compactLink, verifyEvidenceBundle } from '@libs/evidence-trail';
import { AuditTrailRepository, RolloutRepository } from '@libs/persistence';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { startTestApiApp, TestApiApp } from '@test/support/api-app';

/**
 * Real: the api app as main.ts builds it, PostgreSQL with the migrations, keys made as the operator makes them, a
 * rollout opened and closed by the rollout repository. Mocked: nothing.
 */
describe('the evidence trail over HTTP', () => {
  let api: TestApiApp;
  let dataSource: DataSource;
  let server: request.SuperTest<request.Test>;
  let reviewer: { id: string; token: string };
  let otherReviewer: { id: string; token: string };
  const rolloutId = randomUUID();
  const trail = () => new AuditTrailRepository(dataSource);

  beforeAll(async () => {
    api = await startTestApiApp();
    ({ dataSource, server } = api);
    reviewer = await issueApiKey(dataSource, 'north', 'reviewer');
    otherReviewer = await issueApiKey(dataSource, 'south', 'reviewer');
    const rollouts = new RolloutRepository(dataSource);
    await rollouts.open('north', {
      id: rolloutId,
      stackVersion: 'a'.repeat(64),
      bundle: 'b',
      agent: 'oracle',
      tasks: ['t@1'],
      trials: 1,
      concurrency: 1,
    });
    // Another subject's entry between the rollout's: the bundle carries it as a link of the chain.
    await issueApiKey(dataSource, 'north', 'trainer');
    await rollouts.close('north', rolloutId, 'completed', null);
  });

  afterAll(() => api.close());

  it("answers the tenant's chain check as `mirror audit verify --json` prints it, and names a break", async () => {
    const head = (await trail().head('north'))!;
    const response = await server.get('/v1/audit/verify').set(bearer(reviewer.token)).expect(200);
    expect(response.body).toEqual({ tenant: 'north', entries: head.seq, head, drifted: [], valid: true });
    const deep = await server.get('/v1/audit/verify?deep=true').set(bearer(reviewer.token)).expect(200);
    expect(deep.body).toMatchObject({ valid: true, drifted: [], unvouched: [] });
    await server
      .get('/v1/audit/verify?deep=maybe')
      .set(bearer(reviewer.token))
      .expect(400)
      .expect((r) => expect(r.body.message).toBe('deep: must be true or false, given once'));

    await dataSource.query(`ALTER TABLE audit_entries DISABLE TRIGGER USER`);
    try {
      await dataSource.query(
        `UPDATE audit_entries SET details = details || '{"forged":true}' WHERE tenant_id = 'north' AND seq = 2`,
      );
      const broken = await server.get('/v1/audit/verify').set(bearer(reviewer.token)).expect(200);
      expect(broken.body).toMatchObject({ valid: false, broken: { seq: 2, problem: 'edited' } });
      // The other tenant's chain is its own.
      const south = await server.get('/v1/audit/verify').set(bearer(otherReviewer.token)).expect(200);
      expect(south.body).toMatchObject({ tenant: 'south', valid: true });
    } finally {
      await dataSource.query(
        `UPDATE audit_entries SET details = details - 'forged' WHERE tenant_id = 'north' AND seq = 2`,
      );
      await dataSource.query(`ALTER TABLE audit_entries ENABLE TRIGGER USER`);
    }
  });

  it('exports a bundle that verifies offline, with the chain to the head, and records who exported it', async () => {
    const head = (await trail().head('north'))!;
    const response = await server.get(`/v1/audit/export?rollout=${rolloutId}`).set(bearer(reviewer.token)).expect(200);
    const bundle = response.body as { entries: AuditEntry[]; links: ChainLink[]; head: unknown };
    expect(verifyEvidenceBundle(bundle)).toEqual([]);
    expect(bundle.head).toEqual(head);
    expect(bundle.entries.map((e) => e.action)).toEqual(['rollout.opened', 'rollout.closed']);
    // The key's creation in between is another subject's: a compact link, its content left out.
    const between = (await trail().page('north', 0, 1000)).filter((e) => e.seq === bundle.links[0]?.seq);
    expect(between.map((e) => e.action)).toEqual(['api_key.created']);
    expect(bundle.links).toEqual([compactLink(between[0])]);
    expect(bundle.links[0]).not.toHaveProperty('details');

    const [exported] = await trail().page('north', head.seq, 10);
    expect(exported).toMatchObject({
      seq: head.seq + 1,
      actor: `key:${reviewer.id}`,
      actorKind: 'reviewer',
      action: 'bundle.exported',
      subject: { kind: 'rollout', id: rolloutId },
      details: {
        subject: { kind: 'rollout', id: rolloutId },
        format: 'mirror-evidence/3',
        sha256: createHash('sha256').update(response.text).digest('hex'),
      },
    });
  });

  it("answers 404 for another tenant's subject and 400 for a query that names none or two, recording nothing", async () => {
    const before = [(await trail().head('north'))!, (await trail().head('south'))!];
    const foreign = await server.get(`/v1/audit/export?rollout=${rolloutId}`).set(bearer(otherReviewer.token));
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body)).not.toContain('rollout.opened');
    for (const [query, message] of [
      ['', 'rollout, episode: give rollout=<id> or episode=<id>, one of them'],
      [`rollout=${rolloutId}&episode=${rolloutId}`, 'rollout, episode: give rollout=<id> or episode=<id>, one of them'],
      [`rollout=${rolloutId}&rollout=${rolloutId}`, 'rollout: give one id, once'],
      ['stack=x', 'stack: unknown parameter; give rollout=<id> or episode=<id>'],
    ]) {
      const refused = await server.get(`/v1/audit/export?${query}`).set(bearer(reviewer.token));
      expect([refused.status, refused.body.message]).toEqual([400, message]);
    }
    expect([await trail().head('north'), await trail().head('south')]).toEqual(before);
  });
});
