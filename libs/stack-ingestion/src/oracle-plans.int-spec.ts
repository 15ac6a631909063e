import * as fs from 'node:fs';
import * as path from 'node:path';

import { writeBundle } from '@test/support/bundle-fixtures';
import { repositoryRoot } from '@test/support/cli-runner';
import { IngestionError, IngestionProblem } from '@libs/bundle-documents';

import { ingestStack } from './ingest-stack';

const example = path.join(repositoryRoot, 'examples', 'clinic-network');
const scenarioFile = 'scenarios/relative-invoice-request.yaml';

/** The clinic example's files, with one scenario file edited. */
const bundleWith = (edit: (scenario: string) => string): string => {
  const files: Record<string, Buffer> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(example, dir), { withFileTypes: true })) {
      const file = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
      } else {
        files[file] = fs.readFileSync(path.join(example, file));
      }
    }
  };
  walk('');
  files[scenarioFile] = Buffer.from(edit(files[scenarioFile].toString('utf8')));
  return writeBundle(files);
};

const refusal = async (folder: string): Promise<IngestionProblem[]> => {
  try {
    await ingestStack({ kind: 'path', path: folder });
  } catch (error) {
    if (error instanceof IngestionError) {
      return error.problems;
    }
    throw error;
  }
  throw new Error('the bundle was accepted');
};

const lineOf = (text: string, needle: string): number => text.slice(0, text.indexOf(needle)).split('\n').length;

/** Real: the clinic example's files on disk, ingested. Mocked: nothing. */
describe('a scenario’s oracle and traps at ingest', () => {
  it('accepts the clinic example as it ships', async () => {
    const { model } = await ingestStack({ kind: 'path', path: example });
    expect(model.scenarios?.map((s) => [s.scenario.id, s.scenario.traps.length])).toEqual([
      ['invoice-dispute', 8],
      ['relative-invoice-request', 5],
    ]);
  });

  it('refuses a trap naming a rule no applied policy has, at the rule it names', async () => {
    const original = fs.readFileSync(path.join(example, scenarioFile), 'utf8');
    const edited = original.replace('catches: [no-other-patients-figures]', 'catches: [no-other-patient-figures]');
    const problems = await refusal(bundleWith(() => edited));
    expect(problems).toEqual([
      expect.objectContaining({
        file: scenarioFile,
        pointer: '/traps/0/catches/0',
        line: lineOf(edited, 'catches: [no-other-patient-figures]'),
        message: expect.stringMatching(
          /no policy set the scenario applies has a rule "no-other-patient-figures"/,
        ) as string,
      }),
    ]);
  });

  it('refuses a step calling a service the stack lacks, a bad template, a bad wait and an edit of no step', async () => {
    const problems = await refusal(
      bundleWith((text) =>
        text
          .replace(
            "do: { service: records, method: GET, path: '/patients?",
            "do: { service: billing, method: GET, path: '/patients?",
          )
          .replace('{{writer[0].full_name}}', '{{writer[0].full_name + }}')
          .replace(
            'wait: { until: \'events.exists(e, e.type == "email.sent" && e.data.to.exists(a, a == agent.email))\'',
            'wait: { until: \'events.exists(e, e.kind == "email.sent")\'',
          )
          .replace('replace: reply\n      with:\n        - say:', 'replace: answer\n      with:\n        - say:'),
      ),
    );
    expect(problems.map((p) => [p.file, p.pointer])).toEqual(
      expect.arrayContaining([
        [scenarioFile, '/oracle/steps/1/do/service'],
        [scenarioFile, '/oracle/steps/3/say/mail/text'],
        [scenarioFile, '/oracle/steps/0/wait/until'],
        [scenarioFile, '/traps/0/from_oracle/replace'],
      ]),
    );
    expect(problems.every((p) => p.line !== undefined && p.line > 0)).toBe(true);
  });
});
