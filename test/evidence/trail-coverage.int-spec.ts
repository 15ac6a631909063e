import { createHash, randomUUID } from 'node:crypto';

import request from 'supertest';
import { DataSource } from 'typeorm';

import {
  AuditTrailRepository,
  EpisodeGradeRepository,
  PostgresEpisodeStore,
  ReviewRepository,
  RolloutRepository,
} from '@libs/persistence';
import { bearer, issueApiKey } from '@test/support/api-keys';
import { minimalSpec } from '@test/support/bundle-fixtures';
import { json, startGateway, tenant } from '@test/support/gateway-harness';
import { operatorHeaders } from '@test/support/operator-key';
import { startTestApiApp, TestApiApp } from '@test/support/api-app';

const sha256 = (content: string | Buffer): string => createHash('sha256').update(content).digest('hex');

/**
 * What the trail must hold beyond episodes and grades: credentials issued on the operator's routes, reports handed
 * out, and the versions that produced faults, trials and verdicts. Real: the gateway and the api app over PostgreSQL
 * with the committed migrations. Mocked: nothing.
 */
describe('evidence-trail coverage', () => {
  it('records a credential issued on the operator routes once, with who asked and what for, never the token', async () => {
    const gateway = await startGateway();
    try {
      const created = await fetch(`${gateway.base}/_mirror/episodes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ stackVersion: gateway.version, seed: 5 }),
      });
      expect(created.status).toBe(201);
      const episode = (await json(created)).id as string;
      const issue = async (body: unknown) => {
        const issued = await fetch(`${gateway.base}/_mirror/episodes/${episode}/credentials`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...operatorHeaders },
          body: JSON.stringify(body),
        });
        expect(issued.status).toBe(200);
        return String((await json(issued)).token);
      };
      const token = await issue({ service: 'procurement', principal: 'agent' });
      // The same request again gives the same token and is no news.
      expect(await issue({ service: 'procurement', principal: 'agent' })).toBe(token);
      const faults = await fetch(`${gateway.base}/_mirror/episodes/${episode}/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify({ services: { procurement: { errorRate: 0.5 } } }),
      });
      expect(faults.status).toBe(200);

      const trail = new AuditTrailRepository(gateway.dataSource);
      const entries = await trail.forSubject(tenant, 'episode', episode);
      const versions = { stack: gateway.version, worldSeed: 5 };
      expect(entries.filter((e) => e.action === 'episode.credential_issued')).toEqual([
        expect.objectContaining({
          actor: 'operator-key',
          actorKind: 'admin',
          // A fingerprint names the token (a copy met later can be told for it) and cannot be used as it.
          details: {
            service: 'procurement',
            principal: 'agent',
            scopes: 'all',
            fingerprint: sha256(token).slice(0, 16),
            expires: 'never',
          },
          versions,
        }),
      ]);
      expect(entries.find((e) => e.action === 'episode.faults_set')).toMatchObject({ versions });
      expect(JSON.stringify(await gateway.dataSource.query('SELECT * FROM audit_entries'))).not.toContain(token);
      await expect(trail.verify(tenant)).resolves.not.toHaveProperty('broken');
    } finally {
      await gateway.stop();
    }
  });

  describe('over the api', () => {
    let api: TestApiApp;
    let dataSource: DataSource;
    let server: request.SuperTest<request.Test>;

    beforeAll(async () => {
      api = await startTestApiApp();
      ({ dataSource, server } = api);
    });

    afterAll(() => api.close());

    /** A stack, a graded episode of a task and a rollout whose trial it is, as `mirror run` and a rollout store them. */
    const gradedEpisode = async (tenantId: string) => {
      const engineer = await issueApiKey(dataSource, tenantId, 'engineer');
      const ingested = await server
        .post('/v1/stacks?filename=spec.yaml')
        .set(bearer(engineer.token))
        .set('content-type', 'application/yaml')
        .send(minimalSpec());
      expect(ingested.status).toBe(201);
      const stackVersion = ingested.body.stack.version as string;
      const episodeId = randomUUID();
      await new PostgresEpisodeStore(dataSource).createEpisode({
        id: episodeId,
        tenantId,
        stackVersion,
        seed: 3,
        secret: randomUUID(),
        sizes: { recordsPerResource: 1, childrenPerParent: 1 },
        scenario: { id: 'task', seed: 4 },
      });
      const models = { judge: 'llm:judge-model', personas: 'llm:persona-model' };
      await new EpisodeGradeRepository(dataSource).saveGrade(
        tenantId,
        episodeId,
        'rules@2',
        '3',
        { verdicts: [] },
        models,
      );
      const rolloutId = randomUUID();
      const rollouts = new RolloutRepository(dataSource);
      await rollouts.open(tenantId, {
        id: rolloutId,
        stackVersion,
        bundle: 'bundle',
        agent: 'agent',
        tasks: ['task'],
        trials: 1,
        concurrency: 1,
      });
      return { stackVersion, episodeId, rolloutId, models, rollouts };
    };

    it('records each report handed out: who, of what, in which format, and the digest of the file', async () => {
      const { stackVersion, episodeId, rolloutId } = await gradedEpisode('reports');
      const reviewer = await issueApiKey(dataSource, 'reports', 'reviewer');
      const episodeReport = await server
        .get(`/v1/review/episodes/${episodeId}/report?format=html`)
        .set(bearer(reviewer.token))
        .buffer(true);
      expect(episodeReport.status).toBe(200);
      const rolloutReport = await server
        .get(`/v1/review/rollouts/${rolloutId}/report?format=html`)
        .set(bearer(reviewer.token))
        .buffer(true);
      expect(rolloutReport.status).toBe(200);

      const trail = new AuditTrailRepository(dataSource);
      const exported = (await trail.page('reports', 0)).filter((e) => e.action === 'report.exported');
      expect(exported).toEqual([
        expect.objectContaining({
          actor: `key:${reviewer.id}`,
          actorKind: 'reviewer',
          subject: { kind: 'episode', id: episodeId },
          details: { format: 'html', bytes: Buffer.byteLength(episodeReport.text), sha256: sha256(episodeReport.text) },
          versions: { stack: stackVersion, worldSeed: 3, scenario: 'task', scenarioSeed: 4 },
        }),
        expect.objectContaining({
          subject: { kind: 'rollout', id: rolloutId },
          details: expect.objectContaining({ format: 'html', sha256: sha256(rolloutReport.text) }),
          versions: { stack: stackVersion },
        }),
      ]);
      await expect(trail.verify('reports')).resolves.not.toHaveProperty('broken');
    });

    it('names the versions and models that produced a trial and a verdict annotated', async () => {
      const { stackVersion, episodeId, rolloutId, models, rollouts } = await gradedEpisode('versions');
      await rollouts.recordEpisode('versions', rolloutId, {
        task: 'task',
        trial: 1,
        episodeId,
        status: 'succeeded',
        passed: true,
        reward: 1,
        violations: [],
        reason: '',
      });
      await new ReviewRepository(dataSource).annotate('versions', {
        episodeId,
        policies: 'rules@2',
        graderVersion: '3',
        rule: 'some-rule',
        stance: 'dispute',
        comment: 'looks wrong',
        reviewer: 'key:someone',
        role: 'reviewer',
      });

      const trail = new AuditTrailRepository(dataSource);
      const produced = {
        stack: stackVersion,
        worldSeed: 3,
        scenario: 'task',
        scenarioSeed: 4,
        policies: 'rules@2',
        grader: '3',
        ...models,
      };
      const entries = await trail.page('versions', 0);
      expect(entries.find((e) => e.action === 'rollout.trial_recorded')?.versions).toEqual(produced);
      expect(entries.find((e) => e.action === 'verdict.disputed')?.versions).toEqual(produced);
      await expect(trail.verify('versions')).resolves.not.toHaveProperty('broken');
    });
  });
});
