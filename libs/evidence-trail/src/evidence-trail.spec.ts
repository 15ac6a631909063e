import { createHash } from 'node:crypto';

import {
  AuditEntry,
  entryHash,
  eventLogDigest,
  genesisHash,
  materialDigest,
  merkleRoot,
  newSigningKey,
  keyFingerprint,
  publicKeyOf,
  rolloutCommitment,
  rolloutMaterial,
  sealEvidenceBundle,
  verifyEvidenceBundle,
  verifyHead,
  verifyLinks,
} from './index';

const chain = (n: number): AuditEntry[] => {
  const entries: AuditEntry[] = [];
  let prevHash = genesisHash;
  for (let seq = 1; seq <= n; seq++) {
    const unhashed = {
      tenant: 't1',
      seq,
      id: `00000000-0000-0000-0000-${String(seq).padStart(12, '0')}`,
      at: new Date(Date.UTC(2026, 11, 1, 12, 0, seq)).toISOString(),
      actor: 'mirror:grader',
      actorKind: 'grader' as const,
      action: 'episode.graded',
      subject: { kind: 'episode', id: `e${seq}` },
      details: { reward: seq / 10, eventLog: eventLogDigest([{ seq: 1, event: { n: seq } }]) },
      versions: { stack: 'abc', grader: '1' },
      prevHash,
    };
    const entry = { ...unhashed, hash: entryHash(unhashed) };
    entries.push(entry);
    prevHash = entry.hash;
  }
  return entries;
};

describe('the hash chain', () => {
  it('hashes canonical JSON: key order does not matter, any change of content does', () => {
    const [entry] = chain(1);
    const reordered = Object.fromEntries(Object.entries(entry).reverse()) as unknown as AuditEntry;
    expect(entryHash(reordered)).toBe(entry.hash);
    expect(entryHash({ ...entry, details: { ...entry.details, reward: 0.2 } })).not.toBe(entry.hash);
    expect(entryHash({ ...entry, at: '2026-12-01T12:00:02.000Z' })).not.toBe(entry.hash);
  });

  it('verifies an intact chain and its head', () => {
    const entries = chain(5);
    const checked = verifyLinks(entries);
    expect(checked.broken).toBeUndefined();
    expect(verifyHead(checked.state, { seq: 5, hash: entries[4].hash })).toBeUndefined();
  });

  it('names the first broken link: an edit, a deletion, a reordering, a foreign link, a cut end', () => {
    const edited = chain(5);
    edited[2] = { ...edited[2], details: { ...edited[2].details, reward: 1 } };
    expect(verifyLinks(edited).broken).toMatchObject({ seq: 3, id: edited[2].id, problem: 'edited' });

    const deleted = chain(5);
    deleted.splice(3, 1);
    expect(verifyLinks(deleted).broken).toMatchObject({ seq: 4, problem: 'missing' });

    const swapped = chain(5);
    // Reordering keeps each row's content but swaps their places (seq): their hashes no longer match.
    const a = swapped[1];
    const b = swapped[2];
    swapped[1] = { ...b, seq: 2 };
    swapped[2] = { ...a, seq: 3 };
    expect(verifyLinks(swapped).broken).toMatchObject({ seq: 2, problem: 'edited' });

    const rehashed = chain(5);
    // An edit with the hash recomputed still breaks the link to the next entry.
    const forged = { ...rehashed[1], details: { reward: 1 } };
    rehashed[1] = { ...forged, hash: entryHash(forged) };
    expect(verifyLinks(rehashed).broken).toMatchObject({ seq: 3, problem: 'unlinked' });

    const cut = chain(5);
    const state = verifyLinks(cut.slice(0, 4)).state;
    expect(verifyHead(state, { seq: 5, hash: cut[4].hash })).toMatchObject({ problem: 'head_mismatch' });
  });
});

describe('Merkle roots', () => {
  const h = (...parts: Buffer[]) => parts.reduce((x, p) => x.update(p), createHash('sha256')).digest();
  it('are RFC 6962 trees: empty, one leaf, and an unbalanced three', () => {
    expect(merkleRoot([])).toBe(createHash('sha256').digest('hex'));
    const leaves = ['aa', 'bb', 'cc'].map((x) => Buffer.from(x.repeat(32), 'hex'));
    const leaf = (b: Buffer) => h(Buffer.from([0]), b);
    const node = (l: Buffer, r: Buffer) => h(Buffer.from([1]), l, r);
    expect(merkleRoot([leaves[0].toString('hex')])).toBe(leaf(leaves[0]).toString('hex'));
    expect(merkleRoot(leaves.map((l) => l.toString('hex')))).toBe(
      node(node(leaf(leaves[0]), leaf(leaves[1])), leaf(leaves[2])).toString('hex'),
    );
  });
});

describe('evidence bundles', () => {
  const key = newSigningKey();
  const entries = chain(3);
  const events = [{ seq: 1, event: { n: 2 } }];
  const grades = [{ reward: 0.2 }];
  entries[1] = (() => {
    const unhashed = { ...entries[1], details: { eventLog: eventLogDigest(events), grades: materialDigest(grades) } };
    return { ...unhashed, hash: entryHash(unhashed) };
  })();
  const bundle = sealEvidenceBundle(
    {
      tenant: 't1',
      subject: { kind: 'episode', id: 'e2' },
      exportedAt: '2026-12-01T13:00:00.000Z',
      entries: [entries[1]],
      episodes: [{ id: 'e2', events, grades }],
      head: { seq: 3, hash: entries[2].hash },
    },
    key,
  );

  it('verify offline, and against the pinned key', () => {
    expect(verifyEvidenceBundle(JSON.parse(JSON.stringify(bundle)))).toEqual([]);
    expect(verifyEvidenceBundle(bundle, keyFingerprint(publicKeyOf(key)))).toEqual([]);
  });

  it('fail once anything in them changes, naming the place', () => {
    const changed = structuredClone(bundle);
    changed.episodes[0].events = [{ seq: 1, event: { n: 3 } }];
    expect(verifyEvidenceBundle(changed)).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: '/episodes/0/events' })]),
    );
    const graded = structuredClone(bundle);
    graded.episodes[0].grades = [{ reward: 1 }];
    expect(verifyEvidenceBundle(graded).map((p) => p.pointer)).toContain('/episodes/0/grades');
    const dropped = structuredClone(bundle);
    dropped.entries = [];
    expect(verifyEvidenceBundle(dropped).map((p) => p.pointer)).toEqual(
      expect.arrayContaining(['/merkleRoot', '/episodes/0', '/signature']),
    );
  });

  it('re-signed by another key verify only until the key is pinned', () => {
    const forged = sealEvidenceBundle({ ...bundle, episodes: [{ id: 'e2', events, grades }] }, newSigningKey());
    expect(verifyEvidenceBundle(forged)).toEqual([]);
    expect(verifyEvidenceBundle(forged, keyFingerprint(publicKeyOf(key)))).toEqual([
      expect.objectContaining({ pointer: '/signature/publicKey' }),
    ]);
  });

  it('refuses what is not a bundle', () => {
    expect(verifyEvidenceBundle({ format: 'other' })).toEqual([expect.objectContaining({ pointer: '/format' })]);
    expect(verifyEvidenceBundle(null)).toHaveLength(1);
  });
});

describe("a rollout's close", () => {
  const key = newSigningKey();
  /** Links records into a chain, the close committing to what came before it as the repository computes it. */
  const rolloutChain = (): AuditEntry[] => {
    const records: { action: string; subject: { kind: string; id: string }; details: Record<string, unknown> }[] = [
      { action: 'rollout.opened', subject: { kind: 'rollout', id: 'r1' }, details: { rolloutId: 'r1' } },
      { action: 'episode.started', subject: { kind: 'episode', id: 'e1' }, details: { rolloutId: 'r1' } },
      { action: 'episode.started', subject: { kind: 'episode', id: 'other' }, details: {} },
      { action: 'episode.graded', subject: { kind: 'episode', id: 'e1' }, details: { reward: 1 } },
      { action: 'rollout.trial_recorded', subject: { kind: 'rollout', id: 'r1' }, details: { episodeId: 'e1' } },
      { action: 'rollout.closed', subject: { kind: 'rollout', id: 'r1' }, details: { rolloutId: 'r1' } },
      { action: 'episode.regraded', subject: { kind: 'episode', id: 'e1' }, details: { reward: 0.5 } },
    ];
    const entries: AuditEntry[] = [];
    records.forEach((record, index) => {
      const details =
        record.action === 'rollout.closed'
          ? { ...record.details, ...rolloutCommitment(rolloutMaterial(entries, 'r1', index + 1)) }
          : record.details;
      const unhashed = {
        tenant: 't1',
        seq: index + 1,
        id: `00000000-0000-0000-0000-${String(index + 1).padStart(12, '0')}`,
        at: new Date(Date.UTC(2026, 11, 1, 12, 0, index)).toISOString(),
        actor: 'mirror:rollouts',
        actorKind: 'system' as const,
        ...record,
        details,
        versions: {},
        prevHash: entries[index - 1]?.hash ?? genesisHash,
      };
      entries.push({ ...unhashed, hash: entryHash(unhashed) });
    });
    return entries;
  };
  const sealed = (entries: AuditEntry[]) =>
    sealEvidenceBundle(
      {
        tenant: 't1',
        subject: { kind: 'rollout', id: 'r1' },
        exportedAt: '2026-12-01T13:00:00.000Z',
        entries,
        episodes: [],
        head: { seq: entries.length, hash: entries[entries.length - 1].hash },
      },
      key,
    );

  it("commits to the rollout's entries and its episodes' before it, and nothing else", () => {
    const entries = rolloutChain();
    expect(rolloutMaterial(entries, 'r1', 6).map((e) => e.seq)).toEqual([1, 2, 4, 5]);
    expect(entries[5].details).toMatchObject({ entries: 4 });
  });

  it('verifies in a bundle with later entries of its episodes, and fails when an earlier one is left out', () => {
    const entries = rolloutChain().filter((e) => e.subject.id !== 'other');
    expect(verifyEvidenceBundle(sealed(entries), keyFingerprint(publicKeyOf(key)))).toEqual([]);
    // Signed by the installation's own key, so only the commitment can tell: the grading of e1 is missing.
    const withoutGrading = entries.filter((e) => e.action !== 'episode.graded');
    expect(verifyEvidenceBundle(sealed(withoutGrading), keyFingerprint(publicKeyOf(key)))).toEqual([
      {
        pointer: '/entries/3/details/merkleRoot',
        message: expect.stringMatching(/^rollout r1 committed at its close to 4 entries, and the bundle's 3/) as string,
      },
    ]);
  });
});
