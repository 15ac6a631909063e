import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { PostgrestClient } from '@supabase/postgrest-js';
import * as yaml from 'js-yaml';

import { repositoryRoot } from '@test/support/cli-runner';
import { startEpisodeHarness } from '@test/support/episode-harness';

import { startEpisode } from './episode-runner';

const helpdeskSpec = {
  openapi: '3.0.3',
  info: { title: 'Helpdesk', version: '2' },
  servers: [{ url: 'https://helpdesk.example.com/api/v2' }],
  security: [{ bearer: [] }],
  components: {
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    schemas: {
      Ticket: {
        type: 'object',
        required: ['id', 'subject'],
        properties: { id: { type: 'string' }, subject: { type: 'string' }, status: { type: 'string' } },
      },
    },
  },
  paths: {
    '/tickets': {
      get: {
        operationId: 'listTickets',
        responses: {
          '200': {
            description: 'tickets',
            content: {
              'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Ticket' } } },
            },
          },
        },
      },
      post: {
        operationId: 'createTicket',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', required: ['subject'], properties: { subject: { type: 'string' } } },
            },
          },
        },
        responses: {
          '201': {
            description: 'created',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
          },
        },
      },
    },
    '/tickets/{id}': {
      get: {
        operationId: 'getTicket',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'one',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Ticket' } } },
          },
        },
      },
    },
  },
};

/**
 * A bundle that adds a spec of its own and a database served as a data twin to the example workplace, and gives its
 * first scenario both as tools. Made in a temporary folder, so the example stays as it is.
 */
const bundleWithOwnServices = (): { folder: string; scenarioFile: string } => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-endpoints-'));
  fs.cpSync(path.join(repositoryRoot, 'examples', 'acme-manufacturing'), folder, { recursive: true });
  fs.mkdirSync(path.join(folder, 'apis'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'apis', 'helpdesk.yaml'), yaml.dump(helpdeskSpec));
  fs.mkdirSync(path.join(folder, 'schemas'), { recursive: true });
  fs.writeFileSync(
    path.join(folder, 'schemas', 'ledger.sql'),
    'CREATE TABLE accounts (id serial PRIMARY KEY, holder text NOT NULL, balance numeric NOT NULL);\n',
  );
  const manifestFile = path.join(folder, 'mirror.yaml');
  const manifest = yaml.load(fs.readFileSync(manifestFile, 'utf8')) as { services: object[]; scenarios: string[] };
  manifest.services.push(
    { name: 'helpdesk', spec: 'apis/helpdesk.yaml' },
    { name: 'ledger', schema: 'schemas/ledger.sql' },
  );
  fs.writeFileSync(manifestFile, yaml.dump(manifest));
  const scenarioFile = path.join(folder, manifest.scenarios[0]);
  const scenario = yaml.load(fs.readFileSync(scenarioFile, 'utf8')) as { task: { tools: string[] } };
  scenario.task.tools.push('helpdesk', 'ledger');
  fs.writeFileSync(scenarioFile, yaml.dump(scenario));
  return { folder, scenarioFile };
};

/**
 * Real: ingestion of a bundle with packs, a spec and a data service; PostgreSQL event logs; the gateway over HTTP;
 * the Temporal dev server with the worker's episode workflow. Mocked: nothing.
 */
describe('the endpoints an agent gets', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;
  let folder: string;
  let scenarioId: string;

  beforeAll(async () => {
    const bundle = bundleWithOwnServices();
    folder = bundle.folder;
    harness = await startEpisodeHarness({ worker: true, bundle: folder });
    const found = harness.context.model.scenarios.find((s) => s.scenario.task.tools.includes('ledger'));
    scenarioId = found?.scenario.id as string;
  });

  afterAll(async () => {
    await harness.stop();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it("reach every tool of the scenario as the agent itself, and nothing answers without the agent's token", async () => {
    const { session, episode } = await startEpisode(harness.context, harness.signals, harness.scenario(scenarioId), 1);
    try {
      const { helpdesk, ledger, email, mail, erp } = session.endpoints;
      expect(Object.keys(session.endpoints).sort()).toEqual(
        ['email', 'erp', 'helpdesk', 'ledger', 'mail', 'slack'].sort(),
      );
      expect(helpdesk.baseUrl).toMatch(/\/helpdesk\/api\/v2$/);
      expect(email).toEqual(mail);
      expect(erp.baseUrl).toMatch(/\/erp\/api\/v1$/);

      const tickets = await fetch(`${helpdesk.baseUrl}/tickets`, {
        headers: { authorization: `Bearer ${helpdesk.token}` },
      });
      expect(tickets.status).toBe(200);
      expect(((await tickets.json()) as unknown[]).length).toBeGreaterThan(0);
      expect((await fetch(`${helpdesk.baseUrl}/tickets`)).status).toBe(401);
      const foreign = await fetch(`${helpdesk.baseUrl}/tickets`, {
        headers: { authorization: `Bearer ${ledger.token}` },
      });
      expect(foreign.status).toBe(401);
      const created = await fetch(`${helpdesk.baseUrl}/tickets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${helpdesk.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ subject: 'A question' }),
      });
      expect(created.status).toBe(201);

      const accounts = await new PostgrestClient(ledger.baseUrl, {
        headers: { Authorization: `Bearer ${ledger.token}` },
      })
        .from('accounts')
        .select('id, holder');
      expect(accounts.status).toBe(200);
      expect(accounts.data?.length).toBeGreaterThan(0);
      const anonymous = await new PostgrestClient(ledger.baseUrl).from('accounts').select('id');
      expect(anonymous.status).toBe(401);
      const opened = await new PostgrestClient(ledger.baseUrl, { headers: { Authorization: `Bearer ${ledger.token}` } })
        .from('accounts')
        .insert({ holder: 'Someone', balance: 10 });
      expect(opened.status).toBe(201);

      // Both writes are on record as the agent's own; the refused calls as attempts.
      const events = await harness.context.engine.events(harness.context.tenantId, episode.id);
      const writes = events.filter(
        (e) => e.event.type === 'record.created' && /^(helpdesk|ledger)\//.test(e.event.table),
      );
      expect(writes.map((e) => e.actor)).toEqual([session.identity.employeeId, session.identity.employeeId]);
      expect(events.some((e) => e.event.type === 'operation.refused' && e.event.service === 'helpdesk')).toBe(true);
    } finally {
      await session.finish();
    }
  });
});
