import { DataSource, EntityManager } from 'typeorm';

import { eventLogDigest } from '@libs/evidence-trail';
import {
  EpisodeDescriptor,
  EpisodeNotInTenantError,
  EpisodeStarter,
  EpisodeStore,
  EventRange,
  EventSequenceConflictError,
  FaultSettings,
  ForkDescriptor,
  CredentialIssuance,
  LoggedEvent,
  parseExact,
  stringifyExact,
} from '@libs/twin-engine';

import { AuditTrailRepository } from './audit-trail.repository';
import { EpisodeCallRepository } from './episode-call.repository';
import { readEpisodeVersions, readScenarioDigest } from './episode-versions';

/** Where a statement runs: the store's pool, or a transaction's manager. */
type Queryable = Pick<EntityManager, 'query'>;

interface EpisodeRow {
  id: string;
  tenant_id: string;
  stack_version: string;
  seed: string;
  secret: string;
  sizes: EpisodeDescriptor['sizes'];
  faults: FaultSettings | null;
  forked_from: string | null;
  forked_at_seq: number | null;
  scenario_id: string | null;
  scenario_seed: string | null;
}

interface EventRow {
  seq: number;
  at: Date;
  operation_id: string;
  actor: string | null;
  /** The jsonb as text: the driver's jsonb parser is JSON.parse, which would round an integer beyond 2^53. */
  event: string;
}

const isUuid = (id: string) => /^[0-9a-f-]{36}$/i.test(id);

/** The constraint a failed statement broke, as node-postgres reports it (TypeORM keeps it on the error or its cause). */
const constraintOf = (error: unknown): string | undefined => {
  const fields = error as { constraint?: string; driverError?: { constraint?: string } } | undefined;
  return fields?.constraint ?? fields?.driverError?.constraint;
};

/** The episode `$1` is the tenant's (`tenantParameter`): every event read and write goes through it. */
const ownedEpisode = (tenantParameter: string) =>
  `EXISTS (SELECT 1 FROM episodes o WHERE o.id = $1 AND o.tenant_id = ${tenantParameter})`;

/**
 * Episodes and their event logs in PostgreSQL. Raw SQL on purpose: `append` sits on the write path of every twin
 * mutation, and one multi-row INSERT is the whole cost. The primary key (episode, seq) makes a double append fail
 * loudly instead of forking history. Every statement names the tenant: an episode id of another tenant reads nothing
 * and writes nothing (the owning row is found by its primary key, one index probe per statement).
 */
export class PostgresEpisodeStore extends EpisodeStore {
  constructor(private readonly dataSource: DataSource) {
    super();
  }

  async createEpisode(episode: EpisodeDescriptor, by?: EpisodeStarter): Promise<void> {
    await this.dataSource.transaction((manager) => this.insertEpisode(manager, episode, by));
  }

  async forkEpisode(episode: ForkDescriptor, by?: EpisodeStarter): Promise<void> {
    // Copied inside PostgreSQL: a fork of a 50,000-event episode moves no event through this process, and binds three
    // parameters however long the log (rows as parameters passed PostgreSQL's 65,535 at about 10,900 events).
    const source = episode.forkedFrom.episodeId;
    await this.dataSource.transaction(async (manager) => {
      const [owned] = await manager.query<unknown[]>('SELECT 1 FROM episodes WHERE id = $1 AND tenant_id = $2', [
        isUuid(source) ? source : null,
        episode.tenantId,
      ]);
      if (!owned) {
        throw new EpisodeNotInTenantError(episode.tenantId, source);
      }
      await this.insertEpisode(manager, episode, by);
      await manager.query(
        `INSERT INTO episode_events (episode_id, seq, at, operation_id, actor, event)
         SELECT $1, seq, at, operation_id, actor, event FROM episode_events WHERE episode_id = $2 AND seq <= $3`,
        [episode.id, source, episode.forkedFrom.seq],
      );
    });
  }

  /**
   * Stores a new episode and, in the same transaction, its start in the evidence trail (`episode.created` or
   * `episode.forked`) with the versions that make its world: stack, world seed, task, sizes, faults, and who started it
   * (`by`; Mirror's twins when nobody else is known). Its secret is never in the entry. An id already stored (a
   * retried start) is left as it was, and no second entry is written.
   */
  private async insertEpisode(manager: EntityManager, episode: EpisodeDescriptor, by?: EpisodeStarter): Promise<void> {
    const inserted = await manager.query<{ id: string }[]>(
      `INSERT INTO episodes
         (id, tenant_id, stack_version, seed, secret, sizes, faults, forked_from, forked_at_seq, scenario_id, scenario_seed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING RETURNING id`,
      [
        episode.id,
        episode.tenantId,
        episode.stackVersion,
        episode.seed,
        episode.secret,
        JSON.stringify(episode.sizes),
        episode.faults ? JSON.stringify(episode.faults) : null,
        episode.forkedFrom?.episodeId ?? null,
        episode.forkedFrom?.seq ?? null,
        episode.scenario?.id ?? null,
        episode.scenario?.seed ?? null,
      ],
    );
    if (inserted.length === 0) {
      return;
    }
    const scenarioDigest =
      episode.scenario &&
      (await readScenarioDigest(manager, episode.tenantId, episode.stackVersion, episode.scenario.id));
    await new AuditTrailRepository(this.dataSource).append(
      episode.tenantId,
      {
        actor: by?.actor ?? 'mirror:twins',
        actorKind: by?.actorKind ?? 'system',
        action: episode.forkedFrom ? 'episode.forked' : 'episode.created',
        subject: { kind: 'episode', id: episode.id },
        details: {
          ...(by?.rolloutId ? { rolloutId: by.rolloutId } : {}),
          sizes: episode.sizes,
          ...(episode.faults ? { faults: episode.faults } : {}),
          ...(episode.forkedFrom ? { forkedFrom: episode.forkedFrom } : {}),
        },
        versions: {
          stack: episode.stackVersion,
          worldSeed: episode.seed,
          ...(episode.scenario ? { scenario: episode.scenario.id, scenarioSeed: episode.scenario.seed } : {}),
          ...(scenarioDigest ? { scenarioDigest } : {}),
        },
      },
      manager,
    );
  }

  async findEpisode(tenantId: string, episodeId: string): Promise<EpisodeDescriptor | undefined> {
    if (!isUuid(episodeId)) {
      return undefined;
    }
    const [row] = await this.dataSource.query<EpisodeRow[]>('SELECT * FROM episodes WHERE id = $1 AND tenant_id = $2', [
      episodeId,
      tenantId,
    ]);
    if (!row) {
      return undefined;
    }
    return {
      id: row.id,
      tenantId: row.tenant_id,
      stackVersion: row.stack_version,
      seed: Number(row.seed),
      secret: row.secret,
      sizes: row.sizes,
      ...(row.faults ? { faults: row.faults } : {}),
      ...(row.forked_from ? { forkedFrom: { episodeId: row.forked_from, seq: row.forked_at_seq ?? 0 } } : {}),
      ...(row.scenario_id ? { scenario: { id: row.scenario_id, seed: Number(row.scenario_seed) } } : {}),
    };
  }

  /**
   * Faults change what the agent meets without an event in the log, so each change is in the evidence trail, in the
   * transaction that stores it, with who made it (`by`; Mirror's twins when nobody else is known).
   */
  async setFaults(
    tenantId: string,
    episodeId: string,
    faults: FaultSettings | undefined,
    by?: EpisodeStarter,
  ): Promise<void> {
    if (!isUuid(episodeId)) {
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`UPDATE episodes SET faults = $2 WHERE id = $1 AND tenant_id = $3`, [
        episodeId,
        faults ? JSON.stringify(faults) : null,
        tenantId,
      ]);
      const versions = await readEpisodeVersions(manager, tenantId, episodeId);
      if (!versions) {
        return;
      }
      await new AuditTrailRepository(this.dataSource).append(
        tenantId,
        {
          actor: by?.actor ?? 'mirror:twins',
          actorKind: by?.actorKind ?? 'system',
          action: 'episode.faults_set',
          subject: { kind: 'episode', id: episodeId },
          details: { faults: faults ?? null },
          versions,
        },
        manager,
      );
    });
  }

  /**
   * A credential issued for the episode, in the evidence trail with who asked (`by`) and what it is for: the first
   * issuance of each (service, principal, scopes) only, since the same request gives the same token again (a worker
   * asks once per process, and a restarted one asks anew).
   */
  async recordCredentialIssued(
    tenantId: string,
    episodeId: string,
    credential: CredentialIssuance,
    by?: EpisodeStarter,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      const versions = await readEpisodeVersions(manager, tenantId, episodeId);
      if (!versions) {
        return;
      }
      const trail = new AuditTrailRepository(this.dataSource);
      const details = {
        service: credential.service,
        principal: credential.principal,
        // One string, so that finding an earlier issuance matches these scopes exactly (jsonb arrays match subsets).
        scopes: credential.scopes ? [...credential.scopes].sort().join(' ') : 'all',
        fingerprint: credential.fingerprint,
        // Episode tokens carry no expiry: they open this episode's twins only, for as long as it is kept.
        expires: 'never',
      };
      await trail.appendOnce(
        tenantId,
        {
          actor: by?.actor ?? 'mirror:twins',
          actorKind: by?.actorKind ?? 'system',
          action: 'episode.credential_issued',
          subject: { kind: 'episode', id: episodeId },
          details,
          versions,
        },
        manager,
      );
    });
  }

  async append(tenantId: string, episodeId: string, events: LoggedEvent[]): Promise<void> {
    if (events.length === 0) {
      return;
    }
    if (!isUuid(episodeId)) {
      throw new EpisodeNotInTenantError(tenantId, episodeId);
    }
    if (!events.some((logged) => logged.event.type === 'episode.closed')) {
      await this.insertEvents(this.dataSource, tenantId, episodeId, events);
      return;
    }
    await this.dataSource.transaction(async (manager) => {
      await this.insertEvents(manager, tenantId, episodeId, events);
      await this.recordEnd(manager, tenantId, episodeId);
    });
  }

  /**
   * An episode's end in the evidence trail, in the transaction that stores it: the digest of its whole log (now
   * frozen: an ended episode logs nothing more) and the head of its chain of calls that changed nothing (the engine
   * writes out the calls answered before it stores the end). So an episode nobody grades has its material committed
   * to all the same; calls answered after the end (reads, refused writes) are vouched for by a later grading only.
   */
  private async recordEnd(manager: EntityManager, tenantId: string, episodeId: string): Promise<void> {
    const versions = (await readEpisodeVersions(manager, tenantId, episodeId)) ?? {};
    // JSON as read back, as a bundle carries the log and `audit verify --deep` digests it.
    const log = JSON.parse(stringifyExact(await this.readEvents(manager, tenantId, episodeId, {}))) as unknown[];
    await new AuditTrailRepository(this.dataSource).append(
      tenantId,
      {
        actor: 'mirror:twins',
        actorKind: 'system',
        action: 'episode.closed',
        subject: { kind: 'episode', id: episodeId },
        details: {
          eventLog: eventLogDigest(log),
          calls: await new EpisodeCallRepository(this.dataSource).head(tenantId, episodeId, manager),
        },
        versions,
      },
      manager,
    );
  }

  private async insertEvents(
    runner: Queryable,
    tenantId: string,
    episodeId: string,
    events: LoggedEvent[],
  ): Promise<void> {
    // One array per column: seven parameters whatever the batch's size (a fork's or an import's as much as one write's).
    const inserted = await runner
      .query<unknown[]>(
        `INSERT INTO episode_events (episode_id, seq, at, operation_id, actor, event)
       SELECT $1, e.seq, e.at, e.operation_id, e.actor, e.event::jsonb
       FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::text[], $6::text[]) AS e(seq, at, operation_id, actor, event)
       WHERE ${ownedEpisode('$7')} RETURNING seq`,
        [
          episodeId,
          events.map((event) => event.seq),
          events.map((event) => event.at),
          events.map((event) => event.operationId),
          events.map((event) => event.actor ?? null),
          // Integers beyond 2^53 a client sent are written as their digits (jsonb keeps them exact as numeric).
          events.map((event) => stringifyExact(event.event)),
          tenantId,
        ],
      )
      .catch((error: unknown) => {
        // The log's key is (episode, seq): an event of that number is there already, written by another copy.
        if (constraintOf(error) === 'pk_episode_events') {
          throw new EventSequenceConflictError(episodeId, events[0].seq);
        }
        throw error;
      });
    if (inserted.length === 0) {
      throw new EpisodeNotInTenantError(tenantId, episodeId);
    }
  }

  async events(tenantId: string, episodeId: string, range: EventRange = {}): Promise<LoggedEvent[]> {
    if (!isUuid(episodeId)) {
      return [];
    }
    return this.readEvents(this.dataSource, tenantId, episodeId, range);
  }

  private async readEvents(
    runner: Queryable,
    tenantId: string,
    episodeId: string,
    range: EventRange,
  ): Promise<LoggedEvent[]> {
    const rows = await runner.query<EventRow[]>(
      `SELECT seq, at, operation_id, actor, event::text AS event FROM episode_events
       WHERE episode_id = $1 AND ($2::int IS NULL OR seq > $2) AND ($3::int IS NULL OR seq <= $3) AND ${ownedEpisode('$4')}
       ORDER BY seq`,
      [episodeId, range.after ?? null, range.until ?? null, tenantId],
    );
    return rows.map((row) => ({
      seq: row.seq,
      at: new Date(row.at).toISOString(),
      operationId: row.operation_id,
      ...(row.actor !== null ? { actor: row.actor } : {}),
      event: parseExact(row.event) as LoggedEvent['event'],
    }));
  }
}
