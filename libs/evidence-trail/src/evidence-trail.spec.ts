import { createHash } from 'node:crypto';

import {
  AuditEntry,
  canonicalJson,
  ChainLink,
  chainLinks,
  compactLink,
  isCompactLink,
  linkHash,
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
  // The entry after it follows the new one, as the chain would have it.
  entries[2] = (() => {
    const unhashed = { ...entries[2], prevHash: entries[1].hash };
    return { ...unhashed, hash: entryHash(unhashed) };
  })();
  const bundle = sealEvidenceBundle(
    {
      tenant: 't1',
      subject: { kind: 'episode', id: 'e2' },
      exportedAt: '2026-12-01T13:00:00.000Z',
      entries: [entries[1]],
      links: [entries[2]],
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
  type ChainRecord = { action: string; subject: { kind: string; id: string }; details: Record<string, unknown> };
  /** Links records into a chain, each close committing to what came before it as the repository computes it. */
  const linked = (records: ChainRecord[]): AuditEntry[] => {
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
  const rolloutRecords: ChainRecord[] = [
    { action: 'rollout.opened', subject: { kind: 'rollout', id: 'r1' }, details: { rolloutId: 'r1' } },
    { action: 'episode.started', subject: { kind: 'episode', id: 'e1' }, details: { rolloutId: 'r1' } },
    { action: 'episode.started', subject: { kind: 'episode', id: 'other' }, details: {} },
    { action: 'episode.graded', subject: { kind: 'episode', id: 'e1' }, details: { reward: 1 } },
    { action: 'rollout.trial_recorded', subject: { kind: 'rollout', id: 'r1' }, details: { episodeId: 'e1' } },
    { action: 'rollout.closed', subject: { kind: 'rollout', id: 'r1' }, details: { rolloutId: 'r1' } },
    { action: 'episode.regraded', subject: { kind: 'episode', id: 'e1' }, details: { reward: 0.5 } },
  ];
  const rolloutChain = (): AuditEntry[] => linked(rolloutRecords);
  const sealed = (entries: AuditEntry[], links: AuditEntry[] = [], head?: { seq: number; hash: string }) =>
    sealEvidenceBundle(
      {
        tenant: 't1',
        subject: { kind: 'rollout', id: 'r1' },
        exportedAt: '2026-12-01T13:00:00.000Z',
        entries,
        links,
        episodes: [],
        head: head ?? { seq: entries[entries.length - 1].seq, hash: entries[entries.length - 1].hash },
      },
      key,
    );
  const pinned = () => keyFingerprint(publicKeyOf(key));
  /** The chain as an export splits it: the rollout's entries, and the others between them as links. */
  const exported = (chain: AuditEntry[]) => ({
    entries: chain.filter((e) => e.subject.id !== 'other'),
    links: chain.filter((e) => e.subject.id === 'other'),
  });

  it("commits to the rollout's entries and its episodes' before it, and nothing else", () => {
    const entries = rolloutChain();
    expect(rolloutMaterial(entries, 'r1', 6).map((e) => e.seq)).toEqual([1, 2, 4, 5]);
    expect(entries[5].details).toMatchObject({ entries: 4 });
  });

  it('verifies in a bundle with later entries of its episodes, and fails when an earlier one is left out', () => {
    const { entries, links } = exported(rolloutChain());
    expect(verifyEvidenceBundle(sealed(entries, links), pinned())).toEqual([]);
    // Signed by the installation's own key, so only the commitments can tell: the grading of e1 is left out, moved
    // among the links so that the chain still runs to the head.
    const withoutGrading = entries.filter((e) => e.action !== 'episode.graded');
    const grading = entries.filter((e) => e.action === 'episode.graded');
    expect(verifyEvidenceBundle(sealed(withoutGrading, [...links, ...grading]), pinned())).toEqual([
      {
        pointer: '/links/1',
        message: "entry 4 (episode.graded) is about rollout r1 but is not among the bundle's entries",
      },
      {
        pointer: '/entries/3/details/merkleRoot',
        message: expect.stringMatching(/^rollout r1 committed at its close to 4 entries, and the bundle's 3/) as string,
      },
    ]);
  });
});

describe("a bundle's proof that its entries are the tenant's chain", () => {
  const key = newSigningKey();
  const records = [1, 2, 3, 4, 5, 6].map((n) => ({
    action: n % 2 === 0 ? 'episode.graded' : 'stack.ingested',
    subject: n % 2 === 0 ? { kind: 'episode', id: 'e1' } : { kind: 'stack', id: `s${n}` },
    details: { n },
  }));
  const chain = (): AuditEntry[] => {
    const entries: AuditEntry[] = [];
    for (const [index, record] of records.entries()) {
      const unhashed = {
        tenant: 't1',
        seq: index + 1,
        id: `00000000-0000-0000-0000-${String(index + 1).padStart(12, '0')}`,
        at: new Date(Date.UTC(2026, 11, 1, 12, 0, index)).toISOString(),
        actor: 'mirror:grader',
        actorKind: 'grader' as const,
        ...record,
        versions: {},
        prevHash: entries[index - 1]?.hash ?? genesisHash,
      };
      entries.push({ ...unhashed, hash: entryHash(unhashed) });
    }
    return entries;
  };
  /** Episode e1's entries (2, 4, 6) exported, the others (3, 5) as links, as the export makes it; re-signed. */
  const bundleOf = (
    entries: AuditEntry[],
    links: AuditEntry[],
    head: { seq: number; hash: string } = { seq: 6, hash: chain()[5].hash },
  ) =>
    sealEvidenceBundle(
      {
        tenant: 't1',
        subject: { kind: 'episode', id: 'e1' },
        exportedAt: '2026-12-01T13:00:00.000Z',
        entries,
        links,
        episodes: [],
        head,
      },
      key,
    );
  const ownOf = (entries: AuditEntry[]) => entries.filter((e) => e.subject.id === 'e1');
  const othersOf = (entries: AuditEntry[]) => entries.filter((e) => e.subject.id !== 'e1' && e.seq > 2);
  const problems = (bundle: unknown) => verifyEvidenceBundle(bundle, keyFingerprint(publicKeyOf(key)));

  it('holds when the entries and links run without a gap to the head', () => {
    expect(problems(bundleOf(ownOf(chain()), othersOf(chain())))).toEqual([]);
    expect(chainLinks(ownOf(chain()), chain().slice(1))).toEqual(othersOf(chain()));
  });

  it('names an entry dropped, even re-signed', () => {
    const entries = ownOf(chain()).filter((e) => e.seq !== 4);
    expect(problems(bundleOf(entries, othersOf(chain())))).toEqual([
      { pointer: '/links/1', message: 'entry 4 is missing from the chain: entry 3 is followed by entry 5' },
    ]);
  });

  it('names an entry altered with its hash recomputed, and one moved', () => {
    const altered = chain();
    const forged = { ...altered[3], details: { n: 40 } };
    altered[3] = { ...forged, hash: entryHash(forged) };
    expect(problems(bundleOf(ownOf(altered), othersOf(altered)))).toEqual([
      {
        pointer: '/links/1/prevHash',
        message: 'entry 5 (stack.ingested) does not follow entry 4: entry 4 is not the one the chain holds',
      },
    ]);
    const moved = ownOf(chain()).reverse();
    expect(problems(bundleOf(moved, othersOf(chain()))).map((p) => p.pointer)).toEqual([
      '/entries/1/seq',
      '/entries/2/seq',
    ]);
  });

  it('names a forged head, and an entry of the subject hidden among the links', () => {
    const entries = ownOf(chain());
    expect(problems(bundleOf(entries, othersOf(chain()), { seq: 6, hash: 'f'.repeat(64) }))).toEqual([
      { pointer: '/head', message: "the head's hash is not entry 6's: the head or entry 6 is not the chain's" },
    ]);
    expect(problems(bundleOf(entries, othersOf(chain()), { seq: 7, hash: 'f'.repeat(64) }))).toEqual([
      { pointer: '/head', message: 'the head is entry 7 but the chain in the bundle ends at entry 6' },
    ]);
    const hidden = entries.filter((e) => e.seq !== 6);
    expect(problems(bundleOf(hidden, [...othersOf(chain()), chain()[5]]))).toEqual([
      {
        pointer: '/links/2',
        message: "entry 6 (episode.graded) is about episode e1 but is not among the bundle's entries",
      },
    ]);
  });
});

describe('version 2 entries: a bundle proves its chain through compact links of other subjects', () => {
  const key = newSigningKey();
  /** Seq 1 an older (version 1) entry, then version 2: e1's entries at 2, 4, 6; other episodes' at 3, 5, 7. */
  const chainOf = (): AuditEntry[] => {
    const entries: AuditEntry[] = [];
    for (let seq = 1; seq <= 7; seq++) {
      const unhashed = {
        tenant: 't1',
        seq,
        id: `00000000-0000-0000-0000-${String(seq).padStart(12, '0')}`,
        at: new Date(Date.UTC(2026, 11, 1, 12, 0, seq)).toISOString(),
        actor: 'mirror:grader',
        actorKind: 'grader' as const,
        action: 'episode.graded',
        subject: { kind: 'episode', id: seq % 2 === 0 ? 'e1' : `other${seq}` },
        details: { reward: seq / 10, comment: `what episode ${seq} did` },
        versions: { stack: 'abc' },
        prevHash: entries[seq - 2]?.hash ?? genesisHash,
        ...(seq > 1 ? { hashVersion: 2 as const } : {}),
      };
      entries.push({ ...unhashed, hash: entryHash(unhashed) });
    }
    return entries;
  };
  const bundleOf = (links: (AuditEntry | ChainLink)[], entries = chainOf().filter((e) => e.subject.id === 'e1')) =>
    sealEvidenceBundle(
      {
        tenant: 't1',
        subject: { kind: 'episode', id: 'e1' },
        exportedAt: '2026-12-01T13:00:00.000Z',
        entries,
        links,
        episodes: [],
        head: { seq: 7, hash: chainOf()[6].hash },
      },
      key,
    );
  const problems = (bundle: unknown) => verifyEvidenceBundle(bundle, keyFingerprint(publicKeyOf(key)));
  const links = () =>
    chainLinks(
      chainOf().filter((e) => e.subject.id === 'e1'),
      chainOf().slice(1),
    );

  it('hash a version 1 entry as before, and a version 2 entry over its compact link', () => {
    const [old, next] = chainOf();
    // Version 1 as it was always hashed: the whole entry but its hash, canonical JSON, SHA-256.
    const { hash: _hash, ...unhashed } = old;
    expect(old.hash).toBe(createHash('sha256').update(canonicalJson(unhashed)).digest('hex'));
    expect(compactLink(old)).toBeUndefined();
    expect(next.hash).toBe(linkHash(compactLink(next)!));
    expect(entryHash({ ...next, details: { reward: 1 } })).not.toBe(next.hash);
    // A version 1 entry claimed to be version 2 (or the reverse) no longer matches its hash.
    expect(entryHash({ ...old, hashVersion: 2 })).not.toBe(old.hash);
    expect(verifyLinks(chainOf()).broken).toBeUndefined();
  });

  it("carry other episodes' entries as compact links, without their content, and verify", () => {
    const compact = links();
    expect(compact.map((link) => link.seq)).toEqual([3, 5, 7]);
    expect(compact.every(isCompactLink)).toBe(true);
    expect(JSON.stringify(compact)).not.toContain('what episode');
    expect(problems(bundleOf(compact))).toEqual([]);
  });

  it('name a compact link changed, one re-hashed, one dropped, and an entry of the subject hidden as one', () => {
    const changed = links() as ChainLink[];
    changed[1] = { ...changed[1], contentDigest: 'f'.repeat(64) };
    expect(problems(bundleOf(changed))).toEqual(
      expect.arrayContaining([
        {
          pointer: '/links/1',
          message: 'entry 5 of the chain does not match its hash: it was changed after it was written',
        },
      ]),
    );
    const rehashed = links() as ChainLink[];
    rehashed[1] = { ...rehashed[1], contentDigest: 'f'.repeat(64) };
    rehashed[1] = { ...rehashed[1], hash: linkHash(rehashed[1]) };
    expect(problems(bundleOf(rehashed))).toEqual(
      expect.arrayContaining([
        {
          pointer: '/entries/2/prevHash',
          message: 'entry 6 (episode.graded) does not follow entry 5: entry 5 is not the one the chain holds',
        },
      ]),
    );
    const dropped = links().filter((link) => link.seq !== 5);
    expect(problems(bundleOf(dropped)).map((p) => p.message)).toContain(
      'entry 5 is missing from the chain: entry 4 is followed by entry 6',
    );
    const own = chainOf().filter((e) => e.subject.id === 'e1');
    const hidden = bundleOf([...links(), compactLink(own[2])!], own.slice(0, 2));
    expect(problems(hidden)).toEqual(
      expect.arrayContaining([
        { pointer: '/links/3', message: "entry 6 is about episode e1 but is not among the bundle's entries" },
      ]),
    );
  });
});

describe("a sign-off bound to a rollout's close", () => {
  const key = newSigningKey();
  const entriesWith = (bound: (closed: AuditEntry) => Record<string, unknown>): AuditEntry[] => {
    const entries: AuditEntry[] = [];
    const append = (action: string, details: Record<string, unknown>) => {
      const unhashed = {
        tenant: 't1',
        seq: entries.length + 1,
        id: `00000000-0000-0000-0000-${String(entries.length + 1).padStart(12, '0')}`,
        at: new Date(Date.UTC(2026, 11, 1, 12, 0, entries.length)).toISOString(),
        actor: 'reviewer-1',
        actorKind: 'reviewer' as const,
        action,
        subject: { kind: 'rollout', id: 'r1' },
        details: { rolloutId: 'r1', ...details },
        versions: {},
        prevHash: entries[entries.length - 1]?.hash ?? genesisHash,
      };
      entries.push({ ...unhashed, hash: entryHash(unhashed) });
    };
    append('rollout.opened', {});
    append('rollout.closed', { ...rolloutCommitment(rolloutMaterial(entries, 'r1', 2)) });
    append('rollout.signed_off', { decision: 'approved', closure: bound(entries[1]) });
    return entries;
  };
  const check = (entries: AuditEntry[]) =>
    verifyEvidenceBundle(
      sealEvidenceBundle(
        {
          tenant: 't1',
          subject: { kind: 'rollout', id: 'r1' },
          exportedAt: '2026-12-01T13:00:00.000Z',
          entries,
          links: [],
          episodes: [],
          head: { seq: 3, hash: entries[2].hash },
        },
        key,
      ),
    );

  it("verifies when the bound root is the close's, and names the sign-off when it is not", () => {
    expect(check(entriesWith((c) => ({ seq: c.seq, entryHash: c.hash, merkleRoot: c.details.merkleRoot })))).toEqual(
      [],
    );
    expect(check(entriesWith((c) => ({ seq: c.seq, entryHash: c.hash, merkleRoot: 'a'.repeat(64) })))).toEqual([
      {
        pointer: '/entries/2/details/closure/merkleRoot',
        message: expect.stringContaining(
          `is bound to Merkle root ${'a'.repeat(64)}, but its close (entry 2)`,
        ) as string,
      },
    ]);
    expect(check(entriesWith(() => ({ seq: 2, entryHash: 'b'.repeat(64), merkleRoot: 'a'.repeat(64) })))).toEqual([
      expect.objectContaining({ pointer: '/entries/2/details/closure' }),
    ]);
  });
});
