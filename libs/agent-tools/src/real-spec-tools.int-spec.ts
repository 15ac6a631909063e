import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import Ajv2020 from 'ajv/dist/2020';

import { ingestStack, IngestionError } from '@libs/stack-ingestion';
import { repositoryRoot } from '@test/support/cli-runner';
import { sharedSpecsDir } from '@test/support/bundle-fixtures';

import { argumentProblems } from './argument-problems';
import { operationTools, toolCatalogue } from './tool-catalogue';
import type { ToolDefinition } from './tool-contract';

const ajv = new Ajv2020({ strict: false });

/** What every tool list must be, whatever spec it came from. */
const expectWellFormed = (tools: ToolDefinition[]): void => {
  const names = tools.map((t) => t.name);
  expect(new Set(names).size).toBe(names.length);
  for (const tool of tools) {
    expect(tool.name).toMatch(/^[a-z0-9_]{1,64}$/);
    expect(tool.inputSchema.type).toBe('object');
    if (!ajv.validateSchema(tool.inputSchema)) {
      throw new Error(`${tool.name}: ${ajv.errorsText()}`);
    }
    // Compiles its validator: a schema ajv cannot compile would refuse every call.
    expect(Array.isArray(argumentProblems(tool, {}))).toBe(true);
  }
};

const examples = ['acme-manufacturing', 'clinic-network', 'halden-it'];

/** Real: the examples' bundles and the shared vendor specs, ingested as Mirror ingests them. */
describe('tools from real specs', () => {
  it.each(examples)("builds every scenario's catalogue of %s within the limits", async (example) => {
    const { model } = await ingestStack({ kind: 'path', path: path.join(repositoryRoot, 'examples', example) });
    expect(model.scenarios.length).toBeGreaterThan(0);
    for (const { scenario } of model.scenarios) {
      const tools = toolCatalogue(model, scenario.task.tools);
      expect(tools.length).toBeLessThanOrEqual(128);
      expect(tools.slice(-2).map((t) => t.name)).toEqual(['wait_for_events', 'finish_episode']);
      expectWellFormed(tools);
    }
  });

  const specs = (
    JSON.parse(fs.readFileSync(path.join(sharedSpecsDir(), 'manifest.json'), 'utf8')) as {
      specs: { name: string; file: string; kind?: string }[];
    }
  ).specs;

  it.each(specs.map((s) => [s.name, s.file, s.kind === 'tree']))(
    'turns every operation of %s into a well-formed tool',
    async (_, file, tree) => {
      // A spec spread over sibling folders is read beyond its own, as a user asks with --allow-outside-refs.
      const { model } = await ingestStack({
        kind: 'path',
        path: path.join(sharedSpecsDir(), file),
        allowOutsideRefs: tree,
      });
      for (const service of model.services) {
        const tools = operationTools(model, [service.name]);
        expect(tools).toHaveLength(service.operations.length);
        expectWellFormed(tools);
      }
    },
  );

  it("refuses Halden's uncurated Box at ingest, naming the scenario's tools entry and the count", async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'mirror-uncurated-'));
    try {
      fs.cpSync(path.join(repositoryRoot, 'examples', 'halden-it'), folder, { recursive: true });
      const file = path.join(folder, 'scenarios', 'folder-access.yaml');
      const text = fs.readFileSync(file, 'utf8');
      fs.writeFileSync(
        file,
        text.replace(/ {2}tools:\n( {4}-[^\n]*\n| {6}[^\n]*\n| {8}[^\n]*\n)+/, '  tools: [slack, email, box]\n'),
      );
      const refused = await ingestStack({ kind: 'path', path: folder }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(IngestionError);
      const problems = (refused as IngestionError).problems;
      expect(problems).toEqual([
        expect.objectContaining({
          file: 'scenarios/folder-access.yaml',
          pointer: '/task/tools/2',
          message: expect.stringMatching(/^the task's tools come to \d+ \(slack \d+, email \d+, box 296,/) as string,
        }),
      ]);
      expect((refused as Error).message).toMatch(/scenarios\/folder-access\.yaml:\d+#\/task\/tools\/2/);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
