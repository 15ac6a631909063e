import { DataSource } from 'typeorm';

import { createTestDatabase } from '@test/support/test-services';

import { createDataSource } from '../data-source';
import { AuditTrailRepository } from './audit-trail.repository';
import { ReviewConflictError, ReviewRepository } from './review.repository';
import { RolloutRepository } from './rollout.repository';

const episodeId = '11111111-1111-4111-8111-111111111111';
const rolloutId = '22222222-2222-4222-8222-222222222222';
const runningId = '33333333-3333-4333-8333-333333333333';
const closedId = '44444444-4444-4444-8444-444444444444';

/** Real: PostgreSQL with the committed migrations (the review tables, the append-only trail). Mocked: nothing. */
describe(ReviewRepository.name, () => {
  let database: { url: string; drop: () => Promise<void> };
  let dataSource: DataSource;
  let sut: ReviewRepository;

  const rows = async () => ({
    annotations: Number((await dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM review_annotations'))[0].n),
    signOffs: Number((await dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM rollout_signoffs'))[0].n),
    audit: Number((await dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM audit_entries'))[0].n),
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = createDataSource(database.url);
    await dataSource.initialize();
    sut = new ReviewRepository(dataSource);
    await dataSource.query(
      `INSERT INTO episodes (id, tenant_id, stack_version, seed, secret, sizes) VALUES ($1, 'own', $2, 1, 's', '{}')`,
      [episodeId, 'a'.repeat(64)],
    );
    await dataSource.query(
      `INSERT INTO episode_events (episode_id, seq, at, operation_id, actor, event) VALUES
         ($1, 1, now(), 'post', 'E1', '{"type":"domain","name":"chat.message.posted","service":"chat","data":{}}')`,
      [episodeId],
    );
    await dataSource.query(
      `INSERT INTO episode_grades (episode_id, policies, grader_version, grade) VALUES ($1, 'p@1', '3', '{"verdicts":[]}')`,
      [episodeId],
    );
    for (const [id, status] of [
      [rolloutId, 'completed'],
      [runningId, 'running'],
      [closedId, 'running'],
    ]) {
      await dataSource.query(
        `INSERT INTO rollouts (id, tenant_id, stack_version, bundle, agent, tasks, trials, concurrency, status)
         VALUES ($1, 'own', $2, 'b', 'oracle', '["t@1"]', 1, 1, $3)`,
        [id, 'a'.repeat(64), status],
      );
    }
    await dataSource.query(
      `INSERT INTO rollout_episodes (rollout_id, task, trial, episode_id, status, passed, reward, violations, reason)
       VALUES ($1, 't@1', 1, $2, 'failed', false, 0, '["least-role"]', '')`,
      [rolloutId, episodeId],
    );
    // Closed as a rollout closes: its `rollout.closed` entry commits to its record.
    await new RolloutRepository(dataSource).close('own', closedId, 'completed', null);
  });

  afterAll(async () => {
    await dataSource.destroy();
    await database.drop();
  });

  const annotation = {
    episodeId,
    policies: 'p@1',
    graderVersion: '3',
    rule: 'least-role',
    stance: 'dispute' as const,
    comment: 'read only was asked',
    reviewer: 'r1',
    // An admin's key, not a reviewer's: the trail and the row say so.
    role: 'admin' as const,
  };

  it('reads nothing of another tenant: not its episode, log, grades, rollouts or sign-offs', async () => {
    await expect(sut.episode('foreign', episodeId)).resolves.toBeUndefined();
    await expect(sut.events('foreign', episodeId)).resolves.toEqual([]);
    await expect(sut.grades('foreign', episodeId)).resolves.toEqual([]);
    await expect(sut.rolloutGrades('foreign', rolloutId)).resolves.toEqual(new Map());
    await expect(sut.rolloutSummaries('foreign', 10)).resolves.toEqual([]);
    await expect(sut.episode('own', episodeId)).resolves.toMatchObject({
      id: episodeId,
      rollout: { id: rolloutId, task: 't@1', trial: 1 },
    });
    await expect(sut.events('own', episodeId)).resolves.toHaveLength(1);
    await expect(sut.rolloutSummaries('own', 10)).resolves.toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: rolloutId,
          episodes: 1,
          graded: 1,
          passed: 0,
          violations: [{ rule: 'least-role', severity: null, episodes: 1 }],
        }),
      ]),
    );
  });

  it('writes an annotation and its evidence entry together, or neither', async () => {
    const before = await rows();
    // The database's own check refuses the row after the entry was appended in the same transaction: both go.
    await expect(sut.annotate('own', { ...annotation, comment: 'x'.repeat(4001) })).rejects.toThrow(
      /ck_review_annotations_comment/,
    );
    await expect(sut.annotate('own', { ...annotation, stance: 'maybe' as 'agree' })).rejects.toThrow(/stance/);
    expect(await rows()).toEqual(before);

    const saved = await sut.annotate('own', annotation);
    expect(await rows()).toEqual({ ...before, annotations: 1, audit: before.audit + 1 });
    const [entry] = await new AuditTrailRepository(dataSource).page('own', saved.auditSeq - 1, 1);
    expect(entry).toMatchObject({
      seq: saved.auditSeq,
      actor: 'r1',
      actorKind: 'admin',
      action: 'verdict.disputed',
      subject: { kind: 'episode', id: episodeId },
      details: { annotation: saved.id, rule: 'least-role', comment: 'read only was asked' },
    });
    expect(saved.role).toBe('admin');
    await expect(sut.annotations('own', episodeId)).resolves.toEqual([saved]);
    await expect(sut.annotations('foreign', episodeId)).resolves.toEqual([]);
    await expect(new AuditTrailRepository(dataSource).verify('own')).resolves.not.toHaveProperty('broken');
  });

  it("binds a sign-off to the rollout's close, refusing one without a close or with another than the one reviewed", async () => {
    const before = await rows();
    const signOff = { reviewer: 'r3', role: 'reviewer' as const, decision: 'approved' as const, comment: '' };
    // Ended, but with no `rollout.closed` entry: there is no committed record to sign.
    await expect(sut.signOff('own', { ...signOff, rolloutId })).rejects.toThrow(
      `rollout ${rolloutId} has no rollout.closed entry in the evidence trail yet`,
    );
    const closure = (await sut.closure('own', closedId))!;
    expect(closure).toEqual({
      seq: expect.any(Number),
      entryHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      merkleRoot: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    await expect(
      sut.signOff('own', { ...signOff, rolloutId: closedId }, { merkleRoot: 'a'.repeat(64) }),
    ).rejects.toThrow(
      `has Merkle root ${closure.merkleRoot} (entry ${closure.seq}), not the ${'a'.repeat(64)} you reviewed`,
    );
    await expect(
      sut.signOff('own', { ...signOff, rolloutId: closedId }, { entryHash: 'b'.repeat(64) }),
    ).rejects.toThrow(`rollout.closed entry is ${closure.entryHash} (entry ${closure.seq}), not the ${'b'.repeat(64)}`);
    expect(await rows()).toEqual(before);

    const signed = await sut.signOff('own', { ...signOff, rolloutId: closedId }, closure);
    expect(signed.closure).toEqual(closure);
    const [entry] = await new AuditTrailRepository(dataSource).page('own', signed.auditSeq - 1, 1);
    expect(entry.details).toMatchObject({ closure });
    await expect(sut.signOffs('own', closedId)).resolves.toEqual([signed]);
  });

  it('signs a finished rollout off once per reviewer, never a running or foreign one, audited in the same transaction', async () => {
    const before = await rows();
    await expect(
      sut.signOff('own', { rolloutId: runningId, reviewer: 'r1', role: 'reviewer', decision: 'approved', comment: '' }),
    ).rejects.toThrow(ReviewConflictError);
    await expect(
      sut.signOff('foreign', { rolloutId, reviewer: 'r1', role: 'reviewer', decision: 'approved', comment: '' }),
    ).rejects.toThrow(/no rollout/);
    expect(await rows()).toEqual(before);

    const signed = await sut.signOff('own', {
      rolloutId: closedId,
      reviewer: 'r1',
      role: 'reviewer',
      decision: 'rejected',
      comment: 'pass^1 is 0',
    });
    await expect(
      sut.signOff('own', {
        rolloutId: closedId,
        reviewer: 'r1',
        role: 'reviewer',
        decision: 'approved',
        comment: '',
      }),
    ).rejects.toThrow(/already signed/);
    expect(await rows()).toEqual({ ...before, signOffs: before.signOffs + 1, audit: before.audit + 1 });
    await expect(sut.signOffs('own', closedId)).resolves.toEqual(
      expect.arrayContaining([{ ...signed, role: 'reviewer' }]),
    );
    const [entry] = await new AuditTrailRepository(dataSource).page('own', signed.auditSeq - 1, 1);
    expect(entry).toMatchObject({ actor: 'r1', actorKind: 'reviewer', action: 'rollout.signed_off' });
    await expect(sut.signOffs('foreign', closedId)).resolves.toEqual([]);
    await expect(sut.rolloutSummaries('own', 10)).resolves.toEqual(
      expect.arrayContaining([expect.objectContaining({ id: closedId, signOffs: 2 })]),
    );
  });

  it('stores the secrets and personal data a comment quotes as markers, in its row and its trail entry alike', async () => {
    const card = '4111 1111 1111 1111';
    const address = 'jane.roe@gmail.com';
    const token = 'ghp_' + 'x7Kq2mP9vR4tY8wZ1aB3cD5eF6gH0jL2nQ4s';
    const saved = await sut.annotate('own', {
      ...annotation,
      stance: 'agree',
      comment: `paid with ${card}; ask ${address}; the key was ${token}`,
    });
    expect(saved.comment).toBe(
      'paid with [redacted:card]; ask redacted-email@gmail.com; the key was [redacted:secret]',
    );
    const signed = await sut.signOff('own', {
      rolloutId: closedId,
      reviewer: 'r2',
      role: 'reviewer',
      decision: 'approved',
      comment: `refund to ${card}`,
    });
    expect(signed.comment).toBe('refund to [redacted:card]');
    const stored = JSON.stringify(
      await dataSource.query(
        `SELECT row_to_json(t)::text AS row FROM (
           SELECT comment FROM review_annotations UNION ALL SELECT comment FROM rollout_signoffs
           UNION ALL SELECT details::text FROM audit_entries) t`,
      ),
    );
    for (const value of [card, card.replace(/ /g, ''), address, token]) {
      expect(stored).not.toContain(value);
    }
    const [entry] = await new AuditTrailRepository(dataSource).page('own', saved.auditSeq - 1, 1);
    expect(entry.details).toMatchObject({
      comment: saved.comment,
      redactions: expect.arrayContaining([
        expect.objectContaining({ kind: 'card', place: '/comment' }),
        expect.objectContaining({ kind: 'email', place: '/comment' }),
        expect.objectContaining({ kind: 'secret', place: '/comment' }),
      ]),
    });
    await expect(sut.annotations('own', episodeId)).resolves.toEqual(expect.arrayContaining([saved]));
    await expect(new AuditTrailRepository(dataSource).verify('own')).resolves.not.toHaveProperty('broken');
  });
});
