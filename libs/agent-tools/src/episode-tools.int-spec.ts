import * as path from 'node:path';

import { startEpisode } from '@libs/episode-runs';
import { repositoryRoot } from '@test/support/cli-runner';
import { startEpisodeHarness } from '@test/support/episode-harness';

import { argumentProblems } from './argument-problems';
import { callOperation } from './operation-call';
import { toolCatalogue } from './tool-catalogue';
import type { ToolDefinition } from './tool-contract';

/**
 * Real: ingestion of the clinic example (packs, a spec service, a data service), PostgreSQL event logs, the twin
 * gateway over HTTP, the Temporal dev server with the episode workflow. Mocked: nothing. The tools are called as an
 * outside agent would: through the catalogue's definitions, with the agent's own endpoints.
 */
describe('the tools of a clinic episode against its twins', () => {
  let harness: Awaited<ReturnType<typeof startEpisodeHarness>>;

  beforeAll(async () => {
    harness = await startEpisodeHarness({
      worker: true,
      bundle: path.join(repositoryRoot, 'examples', 'clinic-network'),
    });
  });

  afterAll(async () => {
    await harness.stop();
  });

  it('calls a spec operation and a data table through the catalogue and gets their records', async () => {
    const scenario = harness.scenario('invoice-dispute');
    const tools = toolCatalogue(harness.context.model, scenario.task.tools);
    const tool = (name: string): ToolDefinition => {
      const found = tools.find((t) => t.name === name);
      if (!found) {
        throw new Error(`no tool ${name}`);
      }
      return found;
    };
    const { session } = await startEpisode(harness.context, harness.signals, scenario, 1);
    try {
      const { helpdesk, records } = session.endpoints;

      const tickets = await callOperation(tool('helpdesk_list_tickets'), { page_size: 5 }, helpdesk);
      expect(tickets.isError).toBe(false);
      const listed = tickets.structured.tickets as { id: number; subject: string }[];
      expect(listed.length).toBeGreaterThan(0);
      expect(JSON.parse(tickets.text)).toEqual(tickets.structured);

      const one = await callOperation(tool('helpdesk_show_ticket'), { ticket_id: listed[0].id }, helpdesk);
      expect(one).toMatchObject({ isError: false });
      expect(JSON.stringify(one.structured)).toContain(listed[0].subject);

      const missing = await callOperation(tool('helpdesk_show_ticket'), { ticket_id: 999_999_999 }, helpdesk);
      expect(missing).toMatchObject({ isError: true, structured: { status: 404 } });

      const invoices = await callOperation(tool('records_list_invoices'), { order: 'id.asc', limit: 3 }, records);
      expect(invoices.isError).toBe(false);
      const rows = invoices.structured.result as { id: number; number: string }[];
      expect(rows.length).toBeGreaterThan(0);
      const filtered = await callOperation(
        tool('records_list_invoices'),
        { filters: { id: `eq.${rows[0].id}` }, select: 'id,number' },
        records,
      );
      expect(filtered).toMatchObject({
        isError: false,
        structured: { result: [{ id: rows[0].id, number: rows[0].number }] },
      });

      const bad = await callOperation(tool('records_list_invoices'), { filters: { id: 'like' } }, records);
      expect(bad).toMatchObject({ isError: true, structured: { status: 400 } });

      // A pack's operation, with its form-encoded body, as the agent itself.
      const posted = await callOperation(
        tool('slack_chat_post_message'),
        { channel: '#billing-finance', text: 'Looking into a disputed invoice.' },
        session.endpoints.slack,
      );
      expect(posted).toMatchObject({ isError: false, structured: { ok: true } });

      expect(argumentProblems(tool('records_update_invoices'), { values: { status: 'void' } })).toEqual([
        '/filters: is required',
        '/values/status: must be one of ["open","paid","disputed","refunded","written_off"]',
      ]);
    } finally {
      await session.finish();
    }
  });
});
