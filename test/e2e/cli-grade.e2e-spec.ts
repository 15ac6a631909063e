import { AddressInfo } from 'node:net';
import * as path from 'node:path';

import { createDataSource, PostgresEpisodeStore, RepositoryStackSource, StackRepository } from '@libs/persistence';
import { ingestStack } from '@libs/stack-ingestion';
import { createGatewayServer, TwinEngine } from '@libs/twin-engine';
import { builtInPacks } from '@twins/index';
import { repositoryRoot, runCli } from '@test/support/cli-runner';
import { operatorHeaders, testOperatorKey } from '@test/support/operator-key';
import { createTestDatabase } from '@test/support/test-services';

interface GradeOutput {
  episodeId: string;
  scenarioId: string;
  seed: number;
  status: string;
  reward: number | null;
  policies: string[];
  verdicts: { rule: string; status: string }[];
  infrastructure: string[];
  grades: { policies: string }[];
}

/**
 * Real: the built CLI as a process, PostgreSQL, the example company's stack, its episodes started and forked through
 * the gateway's operator routes as a trainer would. Mocked: nothing. (Episodes of `mirror run`: cli-run.e2e-spec.)
 */
describe('mirror grade', () => {
  it('grades an episode started through the gateway and a fork of it, by the scenario stored with each', async () => {
    const database = await createTestDatabase();
    const dataSource = createDataSource(database.url);
    await dataSource.initialize();
    const stacks = new StackRepository(dataSource);
    const { model, version } = await ingestStack({
      kind: 'path',
      path: path.join(repositoryRoot, 'examples', 'acme-manufacturing'),
    });
    await stacks.saveVersion('default', version, model);
    const engine = new TwinEngine(
      new PostgresEpisodeStore(dataSource),
      new RepositoryStackSource(stacks),
      builtInPacks,
    );
    const server = createGatewayServer(engine, 'default', { error: () => undefined }, testOperatorKey);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const operator = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_mirror`;
    const post = async (route: string, body: unknown) => {
      const response = await fetch(`${operator}${route}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...operatorHeaders },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const env = { DATABASE_URL: database.url, MIRROR_TENANT: 'default' };
    try {
      const started = await post('/episodes', {
        stackVersion: version,
        seed: 7,
        scenario: { id: 'single-supplier-negotiation' },
      });
      expect(started).toMatchObject({
        status: 201,
        body: { scenario: { id: 'single-supplier-negotiation', seed: 7 } },
      });
      const episodeId = started.body.id as string;

      const graded = await runCli(['grade', episodeId, '--json'], env);
      expect(graded.stderr).toBe('');
      expect(graded.code).toBe(0);
      const grade = JSON.parse(graded.stdout) as GradeOutput;
      expect(grade).toMatchObject({
        episodeId,
        scenarioId: 'single-supplier-negotiation',
        seed: 7,
        policies: ['acme-procurement@2026.2'],
        // No one played it to an end, so there is no outcome to reward; its rules are still judged from its log.
        status: 'no outcome',
        reward: null,
        grades: [{ policies: 'acme-procurement@2026.2' }],
      });
      expect(grade.verdicts.map((v) => v.rule)).toEqual(
        expect.arrayContaining(['no-confidential-figures-to-suppliers', 'approval-above-threshold']),
      );
      expect(grade.infrastructure).toEqual(['the episode has no outcome: it did not end']);

      // A fork plays its source's task.
      const fork = await post(`/episodes/${episodeId}/fork`, {});
      expect(fork).toMatchObject({ status: 201, body: { scenario: { id: 'single-supplier-negotiation', seed: 7 } } });
      const forkGraded = await runCli(['grade', fork.body.id as string, '--json'], env);
      expect(forkGraded.code).toBe(0);
      expect(JSON.parse(forkGraded.stdout)).toMatchObject({
        episodeId: fork.body.id,
        scenarioId: 'single-supplier-negotiation',
        seed: 7,
      });

      // A scenario the stack does not have is refused when the episode starts, not when it is graded.
      const unknownScenario = await post('/episodes', { stackVersion: version, scenario: { id: 'no-such-task' } });
      expect(unknownScenario).toMatchObject({ status: 404, body: { error: 'not_found' } });
      expect(unknownScenario.body.message).toMatch(/no scenario "no-such-task"/);

      // An episode without a scenario has nothing to be graded against: said so, exit 2.
      const bare = await post('/episodes', { stackVersion: version, seed: 7 });
      expect(bare).toMatchObject({ status: 201, body: { scenario: null } });
      const refused = await runCli(['grade', bare.body.id as string], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(new RegExp(`episode ${bare.body.id as string} plays no scenario`));

      const unknown = await runCli(['grade', '00000000-0000-0000-0000-000000000000', '--json'], env);
      expect(unknown.code).toBe(2);
      expect(JSON.parse(unknown.stdout)).toMatchObject({
        errors: [{ message: 'no episode "00000000-0000-0000-0000-000000000000" is stored' }],
      });
      const malformed = await runCli(['grade', '../../etc/passwd'], env);
      expect(malformed.code).toBe(2);
      expect(malformed.stderr).toMatch(/no episode ".*" is stored/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await dataSource.destroy();
      await database.drop();
    }
  });
});
