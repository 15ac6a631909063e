import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { DataSource } from 'typeorm';

import { loadConfig } from '@libs/config';
import { silentLog } from '@libs/embedded-services';
import { episodePlayer } from '@libs/episode-host';
import { createDataSource, StackRepository } from '@libs/persistence';
import { ReferenceAgent, referenceAgents } from '@libs/reference-agents';
import { ingestStack } from '@libs/stack-ingestion';
import { repositoryRoot } from '@test/support/cli-runner';
import { startEpisodeHarness } from '@test/support/episode-harness';
import { createTestDatabase } from '@test/support/test-services';

// Planted: real in shape (a scheme's prefix and a valid Luhn digit, a token secretlint knows), made up here.
const card = '4539 1488 0343 6467';
const token = `ghp_${'A1b2C3d4E5'.repeat(3)}z9Y8x7`;
const address = 'ceo.private@gmail.com';
const planted = [
  card,
  card.replace(/ /g, ''),
  token,
  address,
  'sk_live_51HxQwErTyUiOp',
  'lena.berg@nordicfasteners.se',
];

/** Every row of every table of the database, as text: what a grep of the storage finds. */
const everything = async (dataSource: DataSource): Promise<string> => {
  const tables = await dataSource.query<{ table_name: string }[]>(
    `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const texts: string[] = [];
  for (const { table_name: table } of tables) {
    const rows = await dataSource.query<{ row: string }[]>(`SELECT t::text AS row FROM "${table}" t`);
    texts.push(...rows.map((r) => r.row));
  }
  return texts.join('\n');
};

const expectNonePlanted = (text: string): void => {
  for (const value of planted) {
    expect(text).not.toContain(value);
  }
};

/**
 * Real: ingestion, PostgreSQL with its migrations, the twins, Temporal, the worker, the graders and the episode
 * player that stores runs, grades, transcripts and evidence. Nothing mocked.
 */
describe('secrets and personal data in storage', () => {
  it('an ingest of a spec and samples with planted secrets and personal data leaves none in any table', async () => {
    const bundle = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-redaction-'));
    const database = await createTestDatabase();
    const dataSource = createDataSource(database.url);
    try {
      fs.cpSync(path.join(repositoryRoot, 'examples', 'acme-procurement'), bundle, { recursive: true });
      const spec = path.join(bundle, 'apis', 'procurement.yaml');
      fs.writeFileSync(
        spec,
        fs
          .readFileSync(spec, 'utf8')
          .replace(
            'email: { type: string, format: email }',
            `email: { type: string, format: email, example: '${address}' }`,
          )
          .replace('phone: { type: string }', `phone: { type: string, example: 'card ${card}', default: '${token}' }`),
      );
      // The sample already holds suppliers' real-looking addresses and live-looking keys; a note with a card is added.
      const samples = path.join(bundle, 'samples', 'suppliers.csv');
      const [header, ...rows] = fs.readFileSync(samples, 'utf8').trim().split('\n');
      fs.writeFileSync(
        samples,
        [
          `${header},notes`,
          ...rows.map((row, i) => `${row},${i === 0 ? `paid with ${card}` : 'paid by transfer'}`),
        ].join('\n'),
      );
      expect(fs.readFileSync(spec, 'utf8')).toContain(address);

      const { model, version } = await ingestStack({ kind: 'path', path: bundle });
      await dataSource.initialize();
      await new StackRepository(dataSource).saveVersion('test', version, model);

      const stored = await everything(dataSource);
      expectNonePlanted(stored);
      expect(stored).toContain('redacted-email@');
      expect(stored).toContain('[redacted:card]');
      expect(model.warnings.filter((w) => w.message.includes('it is stored as '))).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ pointer: expect.stringMatching(/\/email\/example$/) }),
          expect.objectContaining({ pointer: expect.stringMatching(/\/phone\/default$/) }),
        ]),
      );
    } finally {
      await dataSource.destroy().catch(() => undefined);
      await database.drop();
      fs.rmSync(bundle, { recursive: true, force: true });
    }
  });

  describe('episodes', () => {
    let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;
    let transcripts: string;
    let player: ReturnType<typeof episodePlayer>;
    const scenarioId = 'single-supplier-negotiation';
    const diligent = referenceAgents.get('diligent')!;

    beforeAll(async () => {
      harness = await startEpisodeHarness({ worker: true });
      transcripts = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-transcripts-'));
      const config = loadConfig({ MIRROR_TENANT: 'test', MIRROR_DATA_DIR: transcripts });
      player = episodePlayer({
        config,
        dataSource: harness.dataSource,
        signals: harness.signals,
        log: silentLog,
        transcripts,
      });
    });

    afterAll(async () => {
      await harness.stop();
      fs.rmSync(transcripts, { recursive: true, force: true });
    });

    const play = (agent: ReferenceAgent, seed: number) =>
      player.play(
        { bundle: { model: harness.context.model, version: harness.context.stackVersion }, context: harness.context },
        { scenario: harness.scenario(scenarioId), file: 'scenarios/single-supplier-negotiation.yaml' },
        seed,
        agent,
      );

    it('an agent’s planted token, card and address reach the log, transcript, grade and trail as markers only', async () => {
      const leaky: ReferenceAgent = {
        name: 'leaks-a-token-and-a-card',
        async run(session) {
          const list = await session.slack<{ ok: boolean; channels: { id: string; is_member?: boolean }[] }>(
            'conversations.list',
            {
              limit: 200,
            },
          );
          const channel = list.channels.find((c) => c.is_member)!.id;
          await session.slack('chat.postMessage', {
            channel,
            text: `for the record: ${token}, card ${card}, ${address}`,
          });
          await session
            .mail('/me/sendMail', {
              body: {
                message: {
                  subject: `card ${card}`,
                  body: { contentType: 'text', content: `the key is ${token}` },
                  toRecipients: [{ emailAddress: { address } }],
                },
              },
            })
            .catch(() => undefined);
          await diligent.run(session);
        },
      };

      const played = await play(leaky, 4);

      const stored = await everything(harness.dataSource);
      expectNonePlanted(stored);
      expect(stored).toContain('for the record: [redacted:secret], card [redacted:card], redacted-email@gmail.com');
      // Each redaction noted beside what it redacted, by kind and place.
      const log = await harness.dataSource.query<{ event: string }[]>(
        'SELECT event::text AS event FROM episode_events WHERE episode_id = $1',
        [played.episodeId],
      );
      expect(log.map((row) => row.event).join('\n')).toMatch(
        /"redactions": \[\{"kind": "secret", "place": "\/record\/text", "detector": "secretlint:github"\}, \{"kind": "card", /,
      );
      const transcript = fs.readFileSync(played.transcriptFile, 'utf8');
      expectNonePlanted(transcript);
      expect(transcript).toContain('[redacted:');
    });

    it('leaves the diligent agent’s episodes untouched, so their grades are what they were, on three seeds', async () => {
      for (const seed of [1, 2, 3]) {
        const played = await play(diligent, seed);
        expect(played).toMatchObject({ status: 'succeeded', passed: true });
        const redacted = await harness.dataSource.query<{ places: unknown }[]>(
          `SELECT event->'redactions' AS places FROM episode_events WHERE episode_id = $1 AND event ? 'redactions'`,
          [played.episodeId],
        );
        // No event changed: the graders read the same log as without redaction.
        expect(redacted).toEqual([]);
        const [run] = await harness.dataSource.query<{ outcome: Record<string, unknown> }[]>(
          'SELECT outcome FROM episode_runs WHERE episode_id = $1',
          [played.episodeId],
        );
        expect(run.outcome).not.toHaveProperty('redactions');
        expect(fs.readFileSync(played.transcriptFile, 'utf8')).not.toContain('[redacted:');
      }
    });
  });
});
